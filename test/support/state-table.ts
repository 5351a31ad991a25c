import assert from 'node:assert/strict';
import {
  type DecideContext,
  type Decider,
  DomainError,
  type DomainEvent,
  fold,
} from '../../src/aggregates/decider.ts';
import type { TransitionTable } from '../../src/aggregates/transition-table.ts';
import type { ErrorCode } from '../../src/http/errors.ts';

export interface TableStepOptions<C, S> {
  /** The command kind that creates the aggregate: the only one with checks of its own beyond the table. */
  creation?: string;
  /** Codes those creation checks may refuse with. */
  creationRefusals?: readonly ErrorCode[];
  /** For a repeated creation: whether the command repeats the stored facts (a no-op) or not (409). */
  sameFacts?: (state: S, command: C) => boolean;
}

/**
 * One step of a state-table property test: decides `command` after `history` and asserts the decision is
 * exactly the table's cell for (state, kind). Returns the events to append (none for refusals and no-ops).
 */
export function stepByTable<C extends { kind: string }, E extends DomainEvent, S extends { status: string }>(
  decider: Decider<C, E, S>,
  table: TransitionTable<string, string, string>,
  history: readonly E[],
  command: C,
  ctx: DecideContext,
  opts: TableStepOptions<C, S> = {},
): readonly E[] {
  const before = fold(decider, history);
  const move = table[before.status]?.[command.kind];
  assert.ok(move, `the table has a cell for ${before.status} x ${command.kind}`);
  const decision = decider.decide(command, before, ctx);
  const refusedWith = (code: string) => decision instanceof DomainError && decision.code === code;
  if ('refuse' in move) {
    assert.ok(refusedWith(move.refuse), `${before.status} + ${command.kind} is refused with ${move.refuse}`);
    return [];
  }
  if ('noop' in move) {
    assert.deepEqual(decision, []);
    return [];
  }
  if ('repeat' in move) {
    if (opts.sameFacts) {
      if (opts.sameFacts(before, command)) assert.deepEqual(decision, []);
      else assert.ok(refusedWith('conflict'), 'a repeated creation with other facts is 409 conflict');
    } else {
      assert.ok((Array.isArray(decision) && decision.length === 0) || refusedWith('conflict'));
    }
    return [];
  }
  if (decision instanceof DomainError) {
    assert.equal(command.kind, opts.creation, `only ${opts.creation} has checks of its own`);
    assert.ok(
      (opts.creationRefusals ?? ['validation_error']).includes(decision.code as ErrorCode),
      decision.code,
    );
    return [];
  }
  assert.deepEqual(
    decision.map((e) => e.type),
    [move.emits],
  );
  assert.equal(fold(decider, [...history, ...decision]).status, move.to);
  return decision;
}
