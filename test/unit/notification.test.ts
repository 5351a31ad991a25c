import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { DomainError, fold } from '../../src/aggregates/decider.ts';
import {
  type CreateNotification,
  isValidNotificationBody,
  isValidNotificationTitle,
  type NotificationCommand,
  type NotificationEvent,
  notification,
} from '../../src/aggregates/notification.ts';
import { scenario } from '../support/given-when-then.ts';
import { cellOf, transcribedTable } from '../support/state-table.ts';

const ctx = { now: new Date('2026-03-01T12:00:00Z') };

function create(over: Partial<CreateNotification> = {}): CreateNotification {
  return {
    kind: 'create',
    notificationId: 'ntf_a',
    tenantId: 'ten_a',
    title: 'Manutenção',
    body: 'Domingo, 2h às 3h.\nSem impacto em cobranças.',
    severity: 'warning',
    createdBy: 'usr_root',
    ...over,
  };
}

const created: NotificationEvent = {
  type: 'Notification.Created',
  data: {
    notification_id: 'ntf_a',
    tenant_id: 'ten_a',
    title: 'Manutenção',
    body: 'Domingo, 2h às 3h.\nSem impacto em cobranças.',
    severity: 'warning',
    created_by: 'usr_root',
  },
};
const readBy = (userId: string): NotificationEvent => ({
  type: 'Notification.Read',
  data: { notification_id: 'ntf_a', tenant_id: 'ten_a', user_id: userId },
});

/**
 * SPEC 5.7's notification rows, transcribed here (the oracle of the property below, never
 * `notificationTransitions`): a super_admin creates; any user in scope marks it read for themselves.
 */
const NOTIFICATION_TABLE = transcribedTable(
  [
    `
    # SPEC 5.7 "Create internal notification", "Mark notification read"; a repeated creation replays.
    state     | create            | mark_read
    none      | Created>published | not_found
    published | replay            | Read>published
    `,
  ],
  'Notification.',
);

describe('notification decider: creation (SPEC 2.7, 5.7)', () => {
  test('none -> create -> published, unread by everyone', () => {
    const state = scenario(notification).given([]).when(create()).thenEmits([created]);
    assert.ok(state.status === 'published');
    assert.equal(state.tenantId, 'ten_a');
    assert.equal(state.readBy.size, 0);
  });

  test('a platform-wide notification has tenant null', () => {
    scenario(notification)
      .given([])
      .when(create({ tenantId: null }))
      .thenEmits([{ ...created, data: { ...created.data, tenant_id: null } }]);
  });

  test('SPEC 7 validation_error: title 1 to 120 bytes, body 1 to 4000 bytes, trimmed, no control characters (line breaks in the body)', () => {
    for (const title of ['', ' ', ' x', 'x ', 'a\nb', 'x'.repeat(121), 'é'.repeat(61)]) {
      scenario(notification).given([]).when(create({ title })).thenFails('validation_error');
    }
    for (const body of ['', ' x', 'x'.repeat(4001), 'bell\u0007', 'nul\u0000']) {
      scenario(notification).given([]).when(create({ body })).thenFails('validation_error');
    }
    for (const [title, body] of [
      ['é'.repeat(60), 'x'.repeat(4000)],
      ['x', 'linha 1\r\nlinha 2\tcom tab'],
    ] as const) {
      scenario(notification)
        .given([])
        .when(create({ title, body }))
        .thenEmits([{ ...created, data: { ...created.data, title, body } }]);
    }
  });

  test('an exact repeat is a no-op; other facts are 409 conflict', () => {
    scenario(notification).given([created]).when(create()).thenEmits([]);
    scenario(notification)
      .given([created, readBy('usr_x')])
      .when(create())
      .thenEmits([]);
    for (const over of [{ tenantId: null }, { title: 'Outra' }, { severity: 'info' as const }]) {
      scenario(notification).given([created]).when(create(over)).thenFails('conflict');
    }
  });
});

describe('notification decider: per-user receipts (SPEC 5.7 "Mark notification read")', () => {
  test('none: 404 not_found', () => {
    scenario(notification).given([]).when({ kind: 'mark_read', userId: 'usr_x' }).thenFails('not_found');
  });

  test('a user marks it read once; a repeat appends nothing; another user has a receipt of their own', () => {
    scenario(notification)
      .given([created])
      .when({ kind: 'mark_read', userId: 'usr_x' })
      .thenEmits([readBy('usr_x')]);
    scenario(notification)
      .given([created, readBy('usr_x')])
      .when({ kind: 'mark_read', userId: 'usr_x' })
      .thenEmits([]);
    const state = scenario(notification)
      .given([created, readBy('usr_x')])
      .when({ kind: 'mark_read', userId: 'usr_y' })
      .thenEmits([readBy('usr_y')]);
    assert.ok(state.status === 'published');
    assert.deepEqual([...state.readBy].sort(), ['usr_x', 'usr_y']);
  });
});

const command: fc.Arbitrary<NotificationCommand> = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    notificationId: fc.constant('ntf_a'),
    tenantId: fc.constantFrom('ten_a', null),
    title: fc.constantFrom('Manutenção', 'Aviso', '', 'x'.repeat(121)),
    body: fc.constantFrom('Texto', 'Outro\ntexto'),
    severity: fc.constantFrom('info' as const, 'warning' as const, 'critical' as const),
    createdBy: fc.constant('usr_root'),
  }),
  fc.record({ kind: fc.constant('mark_read' as const), userId: fc.constantFrom('usr_x', 'usr_y', 'usr_z') }),
);

describe('notification state table (property)', () => {
  test('every decision is the cell of the table; text never changes; each user has at most one receipt', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 40 }), (commands) => {
        const history: NotificationEvent[] = [];
        for (const c of commands) {
          const before = fold(notification, history);
          const move = cellOf(NOTIFICATION_TABLE, before.status, c.kind);
          const decision = notification.decide(c, before, ctx);
          if ('refuse' in move) {
            assert.ok(decision instanceof DomainError && decision.code === move.refuse);
          } else if ('noop' in move) {
            assert.deepEqual(decision, []);
          } else if ('repeat' in move) {
            const same =
              before.status !== 'none' &&
              c.kind === 'create' &&
              c.tenantId === before.tenantId &&
              c.title === before.title &&
              c.body === before.body &&
              c.severity === before.severity;
            if (same) assert.deepEqual(decision, []);
            else assert.ok(decision instanceof DomainError && decision.code === 'conflict');
          } else if (
            c.kind === 'create' &&
            !(isValidNotificationTitle(c.title) && isValidNotificationBody(c.body))
          ) {
            assert.ok(decision instanceof DomainError && decision.code === 'validation_error');
          } else if (c.kind === 'mark_read' && before.status !== 'none' && before.readBy.has(c.userId)) {
            assert.deepEqual(decision, [], 'a repeated receipt appends nothing');
          } else {
            assert.ok(Array.isArray(decision));
            assert.deepEqual(
              decision.map((e) => e.type),
              [move.emits],
            );
            assert.equal(fold(notification, [...history, ...decision]).status, move.to);
          }
          if (Array.isArray(decision)) history.push(...decision);
          const after = fold(notification, history);
          if (before.status !== 'none' && after.status !== 'none') {
            assert.equal(after.title, before.title);
            assert.equal(after.body, before.body);
            assert.equal(after.tenantId, before.tenantId);
            for (const u of before.readBy) assert.ok(after.readBy.has(u), 'receipts are never withdrawn');
          }
        }
        const receipts = history.filter((e) => e.type === 'Notification.Read').map((e) => e.data.user_id);
        assert.equal(new Set(receipts).size, receipts.length);
      }),
    );
  });
});
