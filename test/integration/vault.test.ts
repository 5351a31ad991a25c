import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { vaultExpiryJob } from '../../src/commands/transactions/vault-expiry/job.ts';
import { AeadOpenError, aeadOpen } from '../../src/crypto/aead.ts';
import {
  open,
  type SealInput,
  seal,
  shred,
  shredExpired,
  shredSubject,
  VAULT_EXPIRY_ACTOR,
  VaultIntegrityError,
  VaultKeyMissingError,
  VaultNotFoundError,
  VaultShreddedError,
  vaultHash,
} from '../../src/crypto/vault.ts';
import { PostgresEventStore } from '../../src/events/postgres-event-store.ts';
import { createLogger } from '../../src/logger.ts';
import { JobRunner } from '../../src/workers/job-runner.ts';
import { JobLease } from '../../src/workers/lease.ts';
import { dumpEveryTable as dumpAll } from '../support/database-dump.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { jobDeps } from '../support/jobs.ts';

// Issue 22 item 4.4 (SPEC 4.8 refund of a boleto paid by boleto: the payer's bank account): the personal-data
// vault on a real PostgreSQL. Data sealed with a data key per record wrapped by the credentials key, bound to
// its id, tenant, mode, purpose and subject; shredding destroys the wrapped key; records past 90 days are
// shredded by the expiry worker. docs/decisions.md "Personal-data vault and crypto-shredding".

const DAY_MS = 86_400_000;
const t0 = new Date('2026-11-27T12:00:00.000Z');
const masterKey = randomBytes(32);
const PURPOSE = 'refund_bank_account';

/** A payer's bank account as SPEC 4.8 `bank_account` carries it; the holder document is a valid test CPF. */
function bankAccount(accountNumber = '0098765-4', document = '11144477735') {
  return {
    holder_name: 'Maria Oliveira',
    holder_document: document,
    bank_code: '001',
    agency: '1234',
    account: accountNumber,
  };
}

function input(overrides: Partial<SealInput> = {}): SealInput {
  return {
    tenantId: 'ten_vault_a',
    livemode: true,
    purpose: PURPOSE,
    subjectId: 'txn_subject_a',
    data: bankAccount(),
    now: t0,
    ...overrides,
  };
}

describe('personal-data vault (issue 22 item 4.4)', () => {
  let t: TestDatabase;

  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.drop());

  const row = (id: string) =>
    t.db.selectFrom('personal_data_vault').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  const dumpEveryTable = () => dumpAll(t.db);

  test('round trip: the data comes back for its tenant and purpose; the row holds only ciphertext and the hash', async () => {
    const data = bankAccount('0011223-3', '39053344705');
    const sealed = await seal(t.db, masterKey, input({ data }));
    assert.match(sealed.vaultId, /^vlt_[0-9a-z]{26}$/);
    assert.equal(sealed.hash, vaultHash(masterKey, data));
    assert.deepEqual(sealed.expiresAt, new Date(t0.getTime() + 90 * DAY_MS), 'default retention: 90 days');
    assert.deepEqual(
      await open(t.db, masterKey, sealed.vaultId, { tenantId: 'ten_vault_a', purpose: PURPOSE, now: t0 }),
      data,
    );

    const stored = await row(sealed.vaultId);
    assert.equal(stored.tenant_id, 'ten_vault_a');
    assert.equal(stored.subject_id, 'txn_subject_a');
    assert.equal(stored.livemode, true);
    assert.equal(stored.hash, sealed.hash);
    assert.equal(stored.shredded_at, null);
    assert.ok(stored.wrapped_key);
    const text = JSON.stringify(stored);
    for (const clear of ['0011223', '39053344705', 'Maria Oliveira']) assert.ok(!text.includes(clear), clear);
  });

  test('another tenant, another purpose, or an unknown id: not found (nothing says the record exists)', async () => {
    const { vaultId } = await seal(t.db, masterKey, input());
    await assert.rejects(
      open(t.db, masterKey, vaultId, { tenantId: 'ten_vault_b', purpose: PURPOSE, now: t0 }),
      VaultNotFoundError,
    );
    await assert.rejects(
      open(t.db, masterKey, vaultId, { tenantId: 'ten_vault_a', purpose: 'payer_profile', now: t0 }),
      VaultNotFoundError,
    );
    await assert.rejects(
      open(t.db, masterKey, 'vlt_00000000000000000000000000', { tenantId: 'ten_vault_a', purpose: PURPOSE }),
      VaultNotFoundError,
    );
  });

  test('a row with an altered tenant, purpose, subject, mode or ciphertext, or another master key, fails to open', async () => {
    const cases: {
      column: string;
      change: (id: string) => Promise<unknown>;
      scope: { tenantId: string; purpose: string };
    }[] = [
      {
        column: 'tenant_id',
        change: (id) =>
          t.db
            .updateTable('personal_data_vault')
            .set({ tenant_id: 'ten_vault_thief' })
            .where('id', '=', id)
            .execute(),
        scope: { tenantId: 'ten_vault_thief', purpose: PURPOSE },
      },
      {
        column: 'purpose',
        change: (id) =>
          t.db
            .updateTable('personal_data_vault')
            .set({ purpose: 'payer_profile' })
            .where('id', '=', id)
            .execute(),
        scope: { tenantId: 'ten_vault_a', purpose: 'payer_profile' },
      },
      {
        column: 'subject_id',
        change: (id) =>
          t.db
            .updateTable('personal_data_vault')
            .set({ subject_id: 'txn_other' })
            .where('id', '=', id)
            .execute(),
        scope: { tenantId: 'ten_vault_a', purpose: PURPOSE },
      },
      {
        column: 'livemode',
        change: (id) =>
          t.db.updateTable('personal_data_vault').set({ livemode: false }).where('id', '=', id).execute(),
        scope: { tenantId: 'ten_vault_a', purpose: PURPOSE },
      },
      {
        column: 'ciphertext',
        change: async (id) => {
          const parts = (await row(id)).ciphertext.split('.');
          const body = Buffer.from(parts[2] ?? '', 'base64url');
          body[0] = (body[0] ?? 0) ^ 1;
          parts[2] = body.toString('base64url');
          await t.db
            .updateTable('personal_data_vault')
            .set({ ciphertext: parts.join('.') })
            .where('id', '=', id)
            .execute();
        },
        scope: { tenantId: 'ten_vault_a', purpose: PURPOSE },
      },
      {
        // Another record's sealed data and key moved onto this row: bound to the other id, they do not open.
        column: 'wrapped_key and ciphertext of another record',
        change: async (id) => {
          const other = await row((await seal(t.db, masterKey, input())).vaultId);
          await t.db
            .updateTable('personal_data_vault')
            .set({ wrapped_key: other.wrapped_key, ciphertext: other.ciphertext })
            .where('id', '=', id)
            .execute();
        },
        scope: { tenantId: 'ten_vault_a', purpose: PURPOSE },
      },
    ];
    for (const c of cases) {
      const { vaultId } = await seal(t.db, masterKey, input());
      await c.change(vaultId);
      await assert.rejects(
        open(t.db, masterKey, vaultId, { ...c.scope, now: t0 }),
        VaultIntegrityError,
        c.column,
      );
    }
    const { vaultId } = await seal(t.db, masterKey, input());
    await assert.rejects(
      open(t.db, randomBytes(32), vaultId, { tenantId: 'ten_vault_a', purpose: PURPOSE, now: t0 }),
      VaultIntegrityError,
    );
  });

  test('without a master key (DATABASE_URL and no CREDENTIALS_ENCRYPTION_KEY) sealing is refused and nothing is written', async () => {
    const before = await t.db
      .selectFrom('personal_data_vault')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    await assert.rejects(seal(t.db, undefined, input({ subjectId: 'txn_no_key' })), VaultKeyMissingError);
    const after = await t.db
      .selectFrom('personal_data_vault')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(after.n, before.n);
    const { vaultId } = await seal(t.db, masterKey, input());
    await assert.rejects(
      open(t.db, undefined, vaultId, { tenantId: 'ten_vault_a', purpose: PURPOSE }),
      VaultKeyMissingError,
    );
  });

  test('shred destroys the data key: open fails as shredded, the master key alone cannot read the ciphertext; idempotent', async () => {
    const { vaultId, hash } = await seal(t.db, masterKey, input({ subjectId: 'txn_shred' }));
    const shredAt = new Date(t0.getTime() + 3 * DAY_MS);
    assert.deepEqual(
      await shred(t.db, vaultId, { reason: 'refund_completed', actor: 'usr_operator' }, shredAt),
      { shredded: true },
    );
    const again = new Date(t0.getTime() + 4 * DAY_MS);
    assert.deepEqual(await shred(t.db, vaultId, { reason: 'refund_cancelled', actor: 'usr_other' }, again), {
      shredded: false,
    });

    const error = await open(t.db, masterKey, vaultId, {
      tenantId: 'ten_vault_a',
      purpose: PURPOSE,
      now: t0,
    }).catch((e: unknown) => e);
    assert.ok(error instanceof VaultShreddedError);
    assert.equal(error.reason, 'refund_completed');
    assert.deepEqual(error.at, shredAt);

    // The audit keeps who, when, why and the hash; the first shred's record stays.
    const info = await row(vaultId);
    assert.deepEqual(
      {
        shreddedAt: info.shredded_at,
        shredReason: info.shred_reason,
        shreddedBy: info.shredded_by,
        hash: info.hash,
      },
      { shreddedAt: shredAt, shredReason: 'refund_completed', shreddedBy: 'usr_operator', hash },
    );

    // What remains is the ciphertext. The master key never sealed it (it wrapped the destroyed data key), so
    // it does not open it under the record's own binding, nor under any binding.
    const stored = await row(vaultId);
    assert.equal(stored.wrapped_key, null);
    const binding = JSON.stringify(['calebe-vault-v1', vaultId, 'ten_vault_a', true, PURPOSE, 'txn_shred']);
    for (const aad of [`data ${binding}`, `key ${binding}`, '']) {
      assert.throws(() => aeadOpen(masterKey, aad, stored.ciphertext), AeadOpenError);
    }
    await assert.rejects(
      shred(t.db, 'vlt_00000000000000000000000000', { reason: 'erasure_request', actor: 'usr_x' }, t0),
      VaultNotFoundError,
    );
  });

  test('a dump of every table: before shred only ciphertext; after shred neither the account number nor the holder document', async () => {
    const accountNumber = '7654321-0';
    const document = '98765432100';
    const { vaultId } = await seal(
      t.db,
      masterKey,
      input({ subjectId: 'txn_dump', data: bankAccount(accountNumber, document) }),
    );
    const before = await dumpEveryTable();
    assert.ok(before.includes(vaultId), 'the dump holds the vault row');
    for (const clear of [accountNumber, '7654321', document])
      assert.ok(!before.includes(clear), `${clear} before shred`);
    // Still readable with the master key before the shred: the ciphertext in the dump is the data.
    assert.equal(
      (await open(t.db, masterKey, vaultId, { tenantId: 'ten_vault_a', purpose: PURPOSE, now: t0 })).account,
      accountNumber,
    );
    const { wrapped_key } = await row(vaultId);
    assert.ok(wrapped_key && before.includes(wrapped_key));

    await shred(t.db, vaultId, { reason: 'refund_completed', actor: 'usr_operator' }, t0);
    const after = await dumpEveryTable();
    for (const clear of [accountNumber, '7654321', document])
      assert.ok(!after.includes(clear), `${clear} after shred`);
    assert.ok(!after.includes(wrapped_key), 'the wrapped data key is gone from the database');
    await assert.rejects(
      open(t.db, masterKey, vaultId, { tenantId: 'ten_vault_a', purpose: PURPOSE, now: t0 }),
      VaultShreddedError,
    );
  });

  test('errors never carry the data, the ciphertext or a key', async () => {
    const data = bankAccount('5550001-2', '71428793860');
    const { vaultId } = await seal(t.db, masterKey, input({ data }));
    const stored = await row(vaultId);
    const failures = [
      await open(t.db, randomBytes(32), vaultId, {
        tenantId: 'ten_vault_a',
        purpose: PURPOSE,
        now: t0,
      }).catch((e: unknown) => e),
      await open(t.db, masterKey, vaultId, { tenantId: 'ten_vault_b', purpose: PURPOSE, now: t0 }).catch(
        (e: unknown) => e,
      ),
      await seal(t.db, undefined, input({ data })).catch((e: unknown) => e),
    ];
    await shred(t.db, vaultId, { reason: 'erasure_request', actor: 'usr_dpo' }, t0);
    failures.push(
      await open(t.db, masterKey, vaultId, { tenantId: 'ten_vault_a', purpose: PURPOSE, now: t0 }).catch(
        (e: unknown) => e,
      ),
    );
    for (const failure of failures) {
      assert.ok(failure instanceof Error);
      const text = `${failure.message}\n${failure.stack}\n${JSON.stringify(failure)}`;
      for (const secret of [
        '5550001',
        '71428793860',
        stored.ciphertext,
        stored.wrapped_key ?? '',
        masterKey.toString('base64'),
      ]) {
        assert.ok(!text.includes(secret), `${failure.name} leaks`);
      }
    }
  });

  test('retention: past expires_at a record no longer opens, and shredExpired shreds only expired rows, in batches, idempotently', async () => {
    const tenantId = 'ten_vault_expiry';
    const scope = { tenantId, purpose: PURPOSE };
    const short = await Promise.all(
      [1, 2, 3].map((n) => seal(t.db, masterKey, input({ tenantId, subjectId: `txn_exp_${n}`, ttlDays: n }))),
    );
    const long = await seal(t.db, masterKey, input({ tenantId, subjectId: 'txn_exp_90' }));
    const day3 = new Date(t0.getTime() + 3 * DAY_MS);

    const late = await open(t.db, masterKey, short[0]?.vaultId ?? '', {
      ...scope,
      now: new Date(t0.getTime() + DAY_MS),
    }).catch((e: unknown) => e);
    assert.ok(
      late instanceof VaultShreddedError && late.reason === 'expired',
      'retention over, not yet shredded',
    );

    // Only rows of this test are due before day 3 + 1 ms: the other tests' rows expire at day 90.
    assert.deepEqual(
      await shredExpired(t.db, new Date(t0.getTime() + DAY_MS - 1), 10),
      [],
      'nothing due yet',
    );
    const first = await shredExpired(t.db, day3, 2);
    const second = await shredExpired(t.db, day3, 2);
    assert.equal(first.length, 2);
    assert.deepEqual([...first, ...second].sort(), short.map((s) => s.vaultId).sort());
    assert.deepEqual(await shredExpired(t.db, day3, 10), [], 'idempotent');

    for (const s of short) {
      const info = await row(s.vaultId);
      assert.equal(info.shred_reason, 'expired');
      assert.equal(info.shredded_by, VAULT_EXPIRY_ACTOR);
      assert.deepEqual(info.shredded_at, day3);
      assert.equal(info.hash, s.hash);
      assert.equal(info.wrapped_key, null);
    }
    assert.deepEqual(await open(t.db, masterKey, long.vaultId, { ...scope, now: day3 }), bankAccount());
  });

  test('two workers shredding at once take disjoint rows and together shred every expired one', async () => {
    const tenantId = 'ten_vault_race';
    const sealed = await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        seal(
          t.db,
          masterKey,
          input({
            tenantId,
            subjectId: `txn_race_${n}`,
            ttlDays: 1,
            now: new Date(t0.getTime() - 10 * DAY_MS),
          }),
        ),
      ),
    );
    const at = new Date(t0.getTime() - 5 * DAY_MS);
    const [a, b] = await Promise.all([shredExpired(t.db, at, 25), shredExpired(t.db, at, 25)]);
    const rest = await shredExpired(t.db, at, 100);
    const all = [...(a ?? []), ...(b ?? []), ...rest];
    assert.equal(new Set(all).size, all.length, 'no row shredded twice');
    assert.deepEqual(all.sort(), sealed.map((s) => s.vaultId).sort());
  });

  test("an erasure request shreds every record of one subject of one tenant (LGPD), not another tenant's", async () => {
    const mine = await Promise.all(
      ['refund_bank_account', 'payer_profile'].map((purpose) =>
        seal(t.db, masterKey, input({ tenantId: 'ten_lgpd_a', subjectId: 'payer_123', purpose })),
      ),
    );
    const theirs = await seal(t.db, masterKey, input({ tenantId: 'ten_lgpd_b', subjectId: 'payer_123' }));
    const by = { reason: 'erasure_request' as const, actor: 'usr_dpo' };
    assert.deepEqual(
      await shredSubject(t.db, 'ten_lgpd_a', 'payer_123', by, t0),
      mine.map((m) => m.vaultId).sort(),
    );
    assert.deepEqual(await shredSubject(t.db, 'ten_lgpd_a', 'payer_123', by, t0), [], 'idempotent');
    await assert.rejects(
      open(t.db, masterKey, mine[1]?.vaultId ?? '', {
        tenantId: 'ten_lgpd_a',
        purpose: 'payer_profile',
        now: t0,
      }),
      VaultShreddedError,
    );
    assert.deepEqual(
      await open(t.db, masterKey, theirs.vaultId, { tenantId: 'ten_lgpd_b', purpose: PURPOSE, now: t0 }),
      bankAccount(),
    );
  });

  test('the expiry worker (worker role, under its lease) shreds due records on its own and logs no personal data', async () => {
    const tenantId = 'ten_vault_worker';
    const due = await seal(
      t.db,
      masterKey,
      input({ tenantId, subjectId: 'txn_worker', ttlDays: 1, data: bankAccount('3141592-6', '27182818284') }),
    );
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    const worker = new JobRunner(
      [vaultExpiryJob({ intervalMs: 20 })],
      jobDeps(t.db, new PostgresEventStore(t.db, []), { logger }),
      {
        clock: { now: () => new Date(t0.getTime() + 2 * DAY_MS) },
        lease: (job) => new JobLease(t.db, job.name),
      },
    );
    worker.start();
    try {
      const deadline = Date.now() + 10_000;
      while ((await row(due.vaultId)).wrapped_key !== null) {
        assert.ok(Date.now() < deadline, 'the worker shredded the due record');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await worker.stop();
    }
    assert.equal((await row(due.vaultId)).shredded_by, VAULT_EXPIRY_ACTOR);
    const logged = lines.join('\n');
    assert.match(logged, /vault records shredded on expiry/);
    for (const clear of ['3141592', '27182818284']) assert.ok(!logged.includes(clear));
  });
});
