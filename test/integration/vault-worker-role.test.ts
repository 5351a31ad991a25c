import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { createGateway, type Gateway, type Role, startGateway } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { credentialsKey } from '../../src/crypto/credentials.ts';
import { open, seal, VAULT_EXPIRY_ACTOR, VaultShreddedError } from '../../src/crypto/vault.ts';
import type { Database } from '../../src/db/schema.ts';
import { createLogger } from '../../src/logger.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';

// Issue 22 item 4.4: "after 90 days, destroy the data key". The gateway's worker role runs the vault's
// expiry worker, as it runs the reconciler; the api role does not. On PostgreSQL with
// CREDENTIALS_ENCRYPTION_KEY, and on the embedded database with its generated credentials key.

const DAY_MS = 86_400_000;
const scope = { tenantId: 'ten_vault_role', purpose: 'refund_bank_account' };

/** A record sealed 91 days ago with the default 90-day retention: due at once. */
async function sealExpired(db: Kysely<Database>, masterKey: Buffer | undefined) {
  const { vaultId } = await seal(db, masterKey, {
    ...scope,
    livemode: true,
    subjectId: 'txn_vault_role',
    data: { holder_document: '11144477735', account: '0098765-4', agency: '1234', bank_code: '001' },
    now: new Date(Date.now() - 91 * DAY_MS),
  });
  return vaultId;
}

async function shredderOf(db: Kysely<Database>, vaultId: string) {
  const row = await db
    .selectFrom('personal_data_vault')
    .select(['wrapped_key', 'shredded_by'])
    .where('id', '=', vaultId)
    .executeTakeFirstOrThrow();
  return row.wrapped_key === null ? row.shredded_by : undefined;
}

async function waitShredded(db: Kysely<Database>, vaultId: string): Promise<string | null | undefined> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const by = await shredderOf(db, vaultId);
    if (by !== undefined || Date.now() > deadline) return by;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function started(env: Record<string, string>, role: Role): Promise<Gateway> {
  const gateway = await createGateway(
    loadConfig({ PORT: '0', BCRYPT_COST: '4', LOG_LEVEL: 'silent', ...env }),
    createLogger('silent'),
  );
  await startGateway(gateway, role);
  return gateway;
}

describe('the vault expiry worker runs with the worker role (issue 22 item 4.4)', () => {
  let t: TestDatabase;
  const randomKey = randomBytes(32).toString('base64');
  const env = () => ({
    DATABASE_URL: t.url,
    CREDENTIALS_ENCRYPTION_KEY: randomKey,
    DOCUMENT_SIGNING_SECRET: 'vault-worker-role-document-signing-secret-0123456789',
  });

  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.drop());

  test('PostgreSQL: an api-role gateway leaves an expired record alone; a worker-role gateway shreds it', async () => {
    const masterKey = await credentialsKey({
      CREDENTIALS_ENCRYPTION_KEY: randomKey,
      CALEBE_DATA_DIR: '/nonexistent',
    });
    const vaultId = await sealExpired(t.db, masterKey);

    const api = await started(env(), 'api');
    try {
      // The worker's first tick runs as soon as it starts; an api process has none.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      assert.equal(await shredderOf(t.db, vaultId), undefined, 'not shredded by an api-role process');
    } finally {
      await api.close();
    }

    const worker = await started(env(), 'worker');
    try {
      assert.equal(await waitShredded(t.db, vaultId), VAULT_EXPIRY_ACTOR);
    } finally {
      await worker.close();
    }
    await assert.rejects(open(t.db, masterKey, vaultId, scope), VaultShreddedError);
  });

  test('embedded database: the generated credentials key seals, and the worker role shreds on expiry', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'calebe-vault-'));
    try {
      const gateway = await started(
        {
          CALEBE_DATA_DIR: dataDir,
          DOCUMENT_SIGNING_SECRET: 'vault-embedded-document-signing-secret-0123456789',
        },
        'worker',
      );
      try {
        const masterKey = await credentialsKey(gateway.config);
        assert.ok(masterKey, 'generated into the data directory');
        const vaultId = await sealExpired(gateway.database.db, masterKey);
        gateway.jobs.wake();
        assert.equal(await waitShredded(gateway.database.db, vaultId), VAULT_EXPIRY_ACTOR);
      } finally {
        await gateway.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
