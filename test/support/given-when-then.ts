import assert from 'node:assert/strict';
import {
  type DecideContext,
  type Decider,
  DomainError,
  type DomainEvent,
  fold,
} from '../../src/aggregates/decider.ts';

const defaultCtx: DecideContext = { now: new Date('2026-01-15T12:00:00Z') };

/**
 * Given/when/then for deciders (DESIGN.md: deciders are pure and tested this way).
 *   scenario(decider).given([...events]).when(command).thenEmits([...events])
 *   scenario(decider).given([...events]).when(command).thenFails('provider_status_conflict')
 */
export function scenario<C, E extends DomainEvent, S>(decider: Decider<C, E, S>) {
  return {
    given(history: readonly E[]) {
      return {
        when(command: C, ctx: DecideContext = defaultCtx) {
          const state = fold(decider, history);
          const decision = decider.decide(command, state, ctx);
          return {
            thenEmits(expected: readonly E[]) {
              if (decision instanceof DomainError) {
                assert.fail(`expected events, got domain error ${decision.code}: ${decision.message}`);
              }
              assert.deepEqual(decision, expected);
              return fold(decider, [...history, ...decision]);
            },
            thenFails(code: string) {
              assert.ok(decision instanceof DomainError, `expected domain error ${code}, got events`);
              assert.equal(decision.code, code);
              return decision;
            },
          };
        },
      };
    },
  };
}
