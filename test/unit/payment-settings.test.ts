import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { fold } from '../../src/aggregates/decider.ts';
import {
  type PaymentSettingsEvent,
  paymentSettings,
  type SetAllowLivePayments,
} from '../../src/aggregates/payment-settings.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { scenario } from '../support/given-when-then.ts';

const NOW = new Date('2026-01-15T12:00:00.000Z');
const set = (allow: boolean, environmentDefault = false, updatedBy = 'usr_a'): SetAllowLivePayments => ({
  kind: 'set_allow_live_payments',
  allowLivePayments: allow,
  environmentDefault,
  updatedBy,
});
const updated = (
  allow: boolean,
  previous: boolean,
  previousSource: 'database' | 'environment',
  updatedBy = 'usr_a',
): PaymentSettingsEvent => ({
  type: 'PaymentSettings.Updated',
  data: {
    allow_live_payments: allow,
    previous_allow_live_payments: previous,
    previous_source: previousSource,
    updated_by: updatedBy,
    updated_at: NOW.toISOString(),
  },
});

describe('payment settings decider (SPEC 2.7, 4.14)', () => {
  test('SPEC 4.14: the first save records the environment default as the previous value', () => {
    scenario(paymentSettings)
      .given([])
      .when(set(true, false))
      .thenEmits([updated(true, false, 'environment')]);
  });

  test('SPEC 4.14: a first save equal to the environment default is still saved (the record decides from then on)', () => {
    const state = scenario(paymentSettings)
      .given([])
      .when(set(true, true))
      .thenEmits([updated(true, true, 'environment')]);
    assert.deepEqual(state, {
      saved: true,
      allowLivePayments: true,
      updatedAt: NOW.toISOString(),
      updatedBy: 'usr_a',
    });
  });

  test('SPEC 4.14: a change records previous and new values and the administrator', () => {
    scenario(paymentSettings)
      .given([updated(true, false, 'environment')])
      .when(set(false, true, 'usr_b'))
      .thenEmits([updated(false, true, 'database', 'usr_b')]);
  });

  test('SPEC 4.14: saving the saved value again is a no-op (nothing to audit)', () => {
    scenario(paymentSettings)
      .given([updated(true, false, 'environment')])
      .when(set(true, false))
      .thenEmits([]);
  });

  test('SPEC 4.14: the environment default never overrides a saved value (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 20 }),
        (steps) => {
          const history: PaymentSettingsEvent[] = [];
          let expected: boolean | undefined;
          for (const [allow, env] of steps) {
            const state = fold(paymentSettings, history);
            const decision = paymentSettings.decide(set(allow, env), state, { now: NOW });
            assert.ok(Array.isArray(decision));
            for (const e of decision) {
              assert.equal(e.data.previous_allow_live_payments, expected ?? env);
              history.push(e);
            }
            expected = allow;
          }
          const final = fold(paymentSettings, history);
          assert.ok(final.saved);
          assert.equal(final.allowLivePayments, expected);
        },
      ),
    );
  });
});

const entry = {
  tenant_id: 'ten_1',
  provider_id: 'prv_1',
  reference: 'order-1',
  idempotency_key: 'key-1',
  amount: 1250,
};

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.message;
  }
  assert.fail('expected a configuration error');
}

describe('production control configuration (SPEC 5.8)', () => {
  test('SPEC 5.8: defaults are off and no scope', () => {
    const c = loadConfig({});
    assert.equal(c.ALLOW_LIVE_PAYMENTS, false);
    assert.equal(c.ALLOW_UNSCOPED_LIVE_PAYMENTS, false);
    assert.equal(c.LIVE_PAYMENT_SCOPE_JSON, undefined);
  });

  test('SPEC 5.8: the booleans are exactly true or false', () => {
    const c = loadConfig({ ALLOW_LIVE_PAYMENTS: 'true', ALLOW_UNSCOPED_LIVE_PAYMENTS: 'true' });
    assert.equal(c.ALLOW_LIVE_PAYMENTS, true);
    assert.equal(c.ALLOW_UNSCOPED_LIVE_PAYMENTS, true);
    assert.match(configError({ ALLOW_LIVE_PAYMENTS: 'yes' }), /ALLOW_LIVE_PAYMENTS: must be true or false/);
    assert.match(configError({ ALLOW_UNSCOPED_LIVE_PAYMENTS: '1' }), /ALLOW_UNSCOPED_LIVE_PAYMENTS/);
  });

  test('SPEC 5.8: one combination object; method defaults to pix', () => {
    const c = loadConfig({ LIVE_PAYMENT_SCOPE_JSON: JSON.stringify(entry) });
    assert.deepEqual(c.LIVE_PAYMENT_SCOPE_JSON, [{ ...entry, method: 'pix' }]);
  });

  test('SPEC 5.8: a list of combinations', () => {
    const other = { ...entry, reference: 'order-2', method: 'boleto' };
    const c = loadConfig({ LIVE_PAYMENT_SCOPE_JSON: JSON.stringify([entry, other]) });
    assert.deepEqual(c.LIVE_PAYMENT_SCOPE_JSON, [{ ...entry, method: 'pix' }, other]);
  });

  test('SPEC 5.8: blank means no scope', () => {
    assert.equal(loadConfig({ LIVE_PAYMENT_SCOPE_JSON: '  ' }).LIVE_PAYMENT_SCOPE_JSON, undefined);
  });

  test('SPEC 5.8: invalid or incomplete scope JSON prevents start, with a clear message', () => {
    assert.match(
      configError({ LIVE_PAYMENT_SCOPE_JSON: '{bad' }),
      /LIVE_PAYMENT_SCOPE_JSON: is not valid JSON/,
    );
    for (const field of Object.keys(entry)) {
      const incomplete = Object.fromEntries(Object.entries(entry).filter(([k]) => k !== field));
      assert.match(
        configError({ LIVE_PAYMENT_SCOPE_JSON: JSON.stringify(incomplete) }),
        new RegExp(`LIVE_PAYMENT_SCOPE_JSON\\.0\\.${field}`),
      );
    }
    const bad = [
      [],
      null,
      42,
      { ...entry, amount: 12.5 },
      { ...entry, amount: '1250' },
      { ...entry, amount: 0 },
      { ...entry, method: 'card' },
      { ...entry, extra: true },
      { ...entry, tenant_id: 'x' },
      { ...entry, provider_id: 'x' },
      { ...entry, idempotency_key: 'has space' },
      [entry, { ...entry, reference: '' }],
    ];
    for (const value of bad) {
      assert.match(
        configError({ LIVE_PAYMENT_SCOPE_JSON: JSON.stringify(value) }),
        /LIVE_PAYMENT_SCOPE_JSON/,
      );
    }
  });
});
