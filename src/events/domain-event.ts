/** A domain event as deciders see it: the type plus its (validated, upcast) payload. */
export interface DomainEvent<T extends string = string, D = unknown> {
  readonly type: T;
  readonly data: D;
}
