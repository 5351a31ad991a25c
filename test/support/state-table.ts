import assert from 'node:assert/strict';
import {
  type DecideContext,
  type Decider,
  DomainError,
  type DomainEvent,
  fold,
} from '../../src/aggregates/decider.ts';
import { type ErrorCode, isErrorCode } from '../../src/aggregates/errors.ts';
import type { TransitionTable } from '../../src/aggregates/transition-table.ts';

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
 * exactly the cell for (state, kind) of `table`, the expectation. Pass a transcription of the SPEC written
 * in the test (transcribedTable), not the table under test: a cell read from the code cannot fail.
 * Returns the events to append (none for refusals and no-ops).
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

/**
 * A state table transcribed from SPEC.md inside a test, as text, so that the test's expectation is written
 * independently of the table in the code. Each block is a group of columns: a header `state | kind | ...`,
 * then one row per state. A cell is `Event>status` (appends `<eventPrefix>Event`, the aggregate moves to
 * `status`), `=` (nothing appended), `replay` (a repeated creation: same facts a no-op, else 409) or a SPEC 7
 * code (refused with it). Lines starting with `#` are comments: say which SPEC row a cell comes from.
 */
export function transcribedTable(
  blocks: readonly string[],
  eventPrefix: string,
): TransitionTable<string, string, string> {
  const table: Record<string, Record<string, TransitionTable<string, string, string>[string][string]>> = {};
  for (const block of blocks) {
    const lines = block
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    const [header, ...rows] = lines.map((l) => l.split('|').map((c) => c.trim()));
    assert.ok(header && header[0] === 'state', `a block starts with its header: ${block}`);
    const kinds = header.slice(1);
    for (const row of rows) {
      const [state, ...cells] = row;
      assert.ok(state, 'a row names its state');
      assert.equal(cells.length, kinds.length, `row ${state} has one cell per column`);
      table[state] ??= {};
      cells.forEach((cell, i) => {
        const kind = kinds[i] as string;
        const row = table[state] as Record<string, unknown>;
        assert.ok(!(kind in row), `${state} x ${kind} is transcribed once`);
        row[kind] = parseCell(cell, eventPrefix);
      });
    }
  }
  return table as TransitionTable<string, string, string>;
}

function parseCell(
  cell: string,
  eventPrefix: string,
): TransitionTable<string, string, string>[string][string] {
  if (cell === '=') return { noop: true };
  if (cell === 'replay') return { repeat: 'same_facts_or_conflict' };
  const emits = /^([A-Za-z]+)>([a-z_]+)$/.exec(cell);
  if (emits) return { emits: `${eventPrefix}${emits[1]}`, to: emits[2] as string };
  assert.ok(isErrorCode(cell), `a cell is Event>status, =, replay or a SPEC 7 code: ${cell}`);
  return { refuse: cell };
}

/** The cell of (state, kind) in a transcribed table; fails when the transcription has none. */
export function cellOf(
  table: TransitionTable<string, string, string>,
  state: string,
  kind: string,
): TransitionTable<string, string, string>[string][string] {
  const move = table[state]?.[kind];
  assert.ok(move, `the transcription has ${state} x ${kind}`);
  return move;
}
