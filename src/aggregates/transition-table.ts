import type { ErrorCode } from '../aggregates/errors.ts';

/**
 * One cell of a state table: what a command does to an aggregate in a given state. Deciders look their move
 * up in the table first, so the table is the code and a reader can hold it against SPEC.md line by line.
 */
export type Move<S extends string, T extends string> =
  /** Append this event; the aggregate moves to `to`. A creation may still be refused by its own checks. */
  | { readonly emits: T; readonly to: S }
  /** Nothing is appended: the aggregate is already where the command would take it. */
  | { readonly noop: true }
  /** Refused with this SPEC 7 code; nothing is appended. */
  | { readonly refuse: ErrorCode }
  /** A repeated creation: with the same facts it is a no-op (a retry), with other facts `409 conflict`. */
  | { readonly repeat: 'same_facts_or_conflict' };

/** Rows: the aggregate's states (`none` before its first event); columns: command kinds. */
export type TransitionTable<S extends string, K extends string, T extends string> = {
  readonly [state in S | 'none']: { readonly [kind in K]: Move<S, T> };
};
