/**
 * Faults the emulator can inject (docs/provider-emulator.md "Faults"). A rule matches by operation and/or
 * reference and applies to the next `times` matching calls (null: every call until cleared), each with its
 * `probability` (default 1; a rule that does not fire leaves the call to the next rule). Transport
 * faults happen after the emulator did the work (`commit`), so a test sees a charge that exists remotely
 * while its answer was lost, which is exactly the case the gateway must treat as uncertain.
 */

export const OPERATIONS = [
  'create',
  'change_due_date',
  'query',
  'query_by_reference',
  'refund',
  'cancel',
  'release',
  'sandbox_status',
  // Issue 25: card tokenization (card-wire.ts); a card charge is a `create`, its refund a `refund`.
  'tokenize',
  // Issue 22 item 4.2: the transfer API (transfers.ts).
  'transfer_create',
  'transfer_get',
  'transfer_list',
  // Issue 27: Pix Automatic (pix-automatic.ts, pix-automatic-bcb.ts), the v3 and the BCB view alike.
  'pixauto_authorize',
  'pixauto_authorization_get',
  'pixauto_revoke',
  'pixauto_schedule',
  'pixauto_schedule_get',
  'pixauto_schedule_list',
  'pixauto_schedule_cancel',
  // Issue 28: marketplace subaccounts (subaccounts.ts); the reference is the body's or the record's Identity.
  'subaccount_create',
  'subaccount_get',
  'subaccount_list',
  'subaccount_update',
  'subaccount_delete',
] as const;
export type Operation = (typeof OPERATIONS)[number];

export type Fault =
  /**
   * Answer normally after a delay. With `answerFirst` the answer is computed at once and only delivered
   * late, so it shows the state of the moment it was asked (a read that arrives stale).
   */
  | { readonly type: 'latency'; readonly ms: number; readonly answerFirst?: boolean }
  /** Never answer (the socket stays open until the client gives up or the emulator closes). */
  | { readonly type: 'no_answer' }
  /** Destroy the connection without an answer. */
  | { readonly type: 'reset' }
  /** Send the status line and part of the body, then cut the connection. */
  | { readonly type: 'truncate' }
  /** Answer HTTP 200 with a body that is not JSON. */
  | { readonly type: 'garbage' }
  /** Answer this HTTP status with `body` as the raw text (no body when absent). */
  | { readonly type: 'http_error'; readonly status: number; readonly body?: string }
  /** The v2 error envelope `{HasError: true, ErrorCode, Error}` with this HTTP status (default 200). */
  | {
      readonly type: 'has_error';
      readonly code: string;
      readonly message: string;
      readonly httpStatus?: number;
    }
  /** Answer normally but with this `Status` (an unknown code, 8 refused, a string...). */
  | { readonly type: 'status'; readonly status: number | string }
  /** A query answer whose amount, reference or id differs from the charge. */
  | { readonly type: 'disagree'; readonly field: 'amount' | 'reference' | 'id' }
  /** Broken boleto/Pix data in the answer. */
  | { readonly type: 'artifacts'; readonly field: 'url' | 'line' | 'barcode' | 'due_date' | 'pix' }
  /** Set a field of the answer's detail (or of each listed item) to a raw JSON value, e.g. `Amount: "12.505"`. */
  | { readonly type: 'override'; readonly field: string; readonly value: unknown }
  /** Boleto creation: the attached Pix is null in the answer and appears on the `queries`-th later query. */
  | { readonly type: 'late_pix'; readonly queries?: number }
  /**
   * Issue 27: a v3 answer's `data` (or each listed item) without this field, in either casing (`Id` drops
   * `Id` and `id`): the work is done, the answer does not say what it made.
   */
  | { readonly type: 'omit'; readonly field: string };

export interface FaultRule {
  readonly id: number;
  readonly operation: Operation | null;
  readonly reference: string | null;
  /** Remaining matching calls; null = unlimited. */
  remaining: number | null;
  readonly fault: Fault;
  /** Do the work before the fault (default: true except for http_error and has_error). */
  readonly commit: boolean;
  /** Chance (0 to 1) that the rule fires on a matching call; a chaos mix is a list of such rules. */
  readonly probability: number;
}

export class FaultBook {
  #rules: FaultRule[] = [];
  #next = 1;
  readonly #random: () => number;

  /** `random` in [0, 1) decides probabilistic rules (a seeded source makes a run repeatable). */
  constructor(random: () => number = Math.random) {
    this.#random = random;
  }

  add(input: {
    operation?: Operation | null;
    reference?: string | null;
    times?: number | null;
    fault: Fault;
    commit?: boolean;
    probability?: number;
  }): FaultRule {
    const defaultCommit = input.fault.type !== 'http_error' && input.fault.type !== 'has_error';
    const rule: FaultRule = {
      id: this.#next++,
      operation: input.operation ?? null,
      reference: input.reference ?? null,
      remaining: input.times === undefined ? 1 : input.times,
      fault: input.fault,
      commit: input.commit ?? defaultCommit,
      probability: input.probability ?? 1,
    };
    this.#rules.push(rule);
    return rule;
  }

  /** The first rule matching this call that fires (its probability), consumed once. */
  take(operation: Operation, reference: string | null): FaultRule | null {
    const rule = this.#rules.find(
      (r) =>
        (r.operation === null || r.operation === operation) &&
        (r.reference === null || r.reference === reference) &&
        (r.remaining === null || r.remaining > 0) &&
        (r.probability >= 1 || this.#random() < r.probability),
    );
    if (!rule) return null;
    if (rule.remaining !== null) rule.remaining -= 1;
    return rule;
  }

  list(): readonly FaultRule[] {
    return this.#rules.filter((r) => r.remaining === null || r.remaining > 0);
  }

  clear(): void {
    this.#rules = [];
  }
}
