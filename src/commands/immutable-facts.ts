/**
 * Facts that never change once they are in the log (a claim is the first and only event of its stream; a
 * stream's first event is never rewritten), remembered per event store so a replay need not read them again.
 * Bounded (least recently used first out); each process keeps its own, which is safe for immutable facts.
 * Values are deep-frozen: callers share them.
 */
export class ImmutableFacts<V> {
  readonly #byStore = new WeakMap<object, Map<string, V>>();
  constructor(readonly limit: number) {}

  get(store: object, key: string): V | undefined {
    const map = this.#byStore.get(store);
    const value = map?.get(key);
    if (map && value !== undefined) {
      map.delete(key);
      map.set(key, value);
    }
    return value;
  }

  set(store: object, key: string, value: V): void {
    let map = this.#byStore.get(store);
    if (!map) {
      map = new Map();
      this.#byStore.set(store, map);
    }
    map.delete(key);
    if (map.size >= this.limit) map.delete(map.keys().next().value as string);
    map.set(key, deepFreeze(value));
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
