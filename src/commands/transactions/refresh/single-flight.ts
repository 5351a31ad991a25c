/**
 * In-process single flight (issue 23 item 2.11): concurrent calls with the same key share one run of the
 * work and its outcome (value or error); the key is forgotten once that run settles, so a later call runs
 * the work again. Nothing is cached past the flight.
 *
 * Written here rather than taken from npm: `promise-coalesce` (the maintained one without dependencies)
 * is these same lines over a module-wide Map shared by everything in the process, and `p-memoize` is a
 * cache first (its version 9 needs Node 22). An instance of this class belongs to the gateway that made it
 * (one per app, so two gateways in one test process never share flights).
 */
export class SingleFlight<K, V> {
  private readonly flights = new Map<K, Promise<V>>();

  /** Joins the run in flight for `key`, or starts `work` as that run. */
  run(key: K, work: () => Promise<V>): Promise<V> {
    const current = this.flights.get(key);
    if (current) return current;
    const flight = (async () => work())().finally(() => this.flights.delete(key));
    this.flights.set(key, flight);
    return flight;
  }
}
