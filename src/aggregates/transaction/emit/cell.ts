import type { DomainError } from '../../decider.ts';
import type { TransactionCommand } from '../commands.ts';
import type { TransactionEvent, TransactionEventType } from '../events.ts';
import type { ChargePolicy } from '../policies/index.ts';
import type { TransactionFacts } from '../state.ts';

/** What an `emits` cell of the table decides: its events (none: a conditional no-op), or a refusal. */
export type Emit = readonly TransactionEvent[] | DomainError;

/** An `emits` cell's own checks, given the charge, the command, the time and the charge's policy. */
export interface EmitInput {
  readonly s: TransactionFacts;
  readonly c: TransactionCommand;
  readonly now: Date;
  readonly policy: ChargePolicy;
  /** The charge's transaction_id. */
  readonly id: string;
}

/** The cell of one event type; null when the command cannot emit it (the table and the cell disagree). */
export type EmitCell = (input: EmitInput) => Emit | null;

/** The cells of a family of events, one per type. */
export type EmitCells<T extends TransactionEventType> = { readonly [K in T]: EmitCell };
