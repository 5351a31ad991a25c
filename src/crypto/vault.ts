import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { newId } from '../ids.ts';
import { AEAD_KEY_BYTES, AeadOpenError, aeadOpen, aeadSeal } from './aead.ts';

/**
 * The personal-data vault (issue 22 item 4.4, DESIGN.md "Secrets and personal data at rest";
 * docs/decisions.md "Personal-data vault and crypto-shredding"). Erasable personal data lives in
 * `personal_data_vault` (migration 0018), outside the event log, which is never rewritten:
 * - each record is AES-256-GCM under a fresh random 32-byte data key; the data key is wrapped (AES-256-GCM)
 *   by the master key, the credentials key (`credentialsKey(config)`, CREDENTIALS_ENCRYPTION_KEY);
 * - both layers bind the record's id, tenant, mode, purpose and subject as associated data, so a row
 *   copied or edited into another tenant, purpose or subject fails to open;
 * - shredding destroys the wrapped key: the ciphertext stays and no key, the master key included, opens it;
 * - events and the audit keep the vault id and `hash`, an HMAC of the data under a key derived from the
 *   master key (a plain digest of a bank account could be found by trying every account).
 */

/** What a record is for. A new kind of erasable data adds its name here (the column only checks the form). */
export type VaultPurpose = 'refund_bank_account' | (string & {});

/** Why a record was shredded; `expired` is written by `shredExpired` only. */
export type ShredReason = 'refund_completed' | 'refund_cancelled' | 'erasure_request' | 'expired';

export type VaultData = Record<string, string>;

/** SPEC 4.8 / issue 22 item 4.4: a refund's bank account is kept at most 90 days. */
export const VAULT_DEFAULT_TTL_DAYS = 90;
/** The actor `shredExpired` records. */
export const VAULT_EXPIRY_ACTOR = 'system:vault-expiry';

const HASH_INFO = 'calebe personal-data-vault hash v1';
const DAY_MS = 86_400_000;

/** Every vault failure. Messages name the vault id at most: never data, ciphertext or keys. */
export class VaultError extends Error {
  override readonly name: string = 'VaultError';
}

/**
 * The server has no master key (DATABASE_URL without CREDENTIALS_ENCRYPTION_KEY). Callers answer
 * `422 validation_error` on the field that carried the data, as for provider credentials: nothing is
 * written (docs/decisions.md "Personal-data vault and crypto-shredding").
 */
export class VaultKeyMissingError extends VaultError {
  override readonly name = 'VaultKeyMissingError';
  constructor() {
    super('The personal-data vault needs CREDENTIALS_ENCRYPTION_KEY on the server.');
  }
}

/** No record with this id for this tenant and purpose (another tenant's record is not found either). */
export class VaultNotFoundError extends VaultError {
  override readonly name = 'VaultNotFoundError';
  constructor(readonly vaultId: string) {
    super(`Vault record ${vaultId} not found.`);
  }
}

/** The record's data key is destroyed (or its retention ended): the data is gone for good. */
export class VaultShreddedError extends VaultError {
  override readonly name = 'VaultShreddedError';
  constructor(
    readonly vaultId: string,
    readonly reason: string,
    /** When the key was destroyed, or when the retention ended for a record the worker has not reached yet. */
    readonly at: Date,
  ) {
    super(`Vault record ${vaultId} was shredded (${reason}).`);
  }
}

/** The record does not open: altered row, a row moved to another binding, or another master key. */
export class VaultIntegrityError extends VaultError {
  override readonly name = 'VaultIntegrityError';
  constructor(readonly vaultId: string) {
    super(`Vault record ${vaultId} cannot be opened: it was altered or sealed under another key.`);
  }
}

export interface SealInput {
  tenantId: string;
  livemode: boolean;
  purpose: VaultPurpose;
  /** Whose or what the data is about: the refund (or charge) id, later a payer id. */
  subjectId: string;
  data: VaultData;
  /** Retention before `shredExpired` destroys the key (default 90 days). */
  ttlDays?: number;
  now: Date;
}

export interface SealedRecord {
  vaultId: string;
  /** HMAC-SHA-256 of the data's canonical JSON, hex: what events and the audit keep. */
  hash: string;
  expiresAt: Date;
}

export interface VaultScope {
  tenantId: string;
  purpose: VaultPurpose;
}

export interface ShredBy {
  reason: ShredReason;
  /** Who destroyed the key: a user id, or a `system:` actor. */
  actor: string;
}

/** Encrypts `data` under a new data key and stores it. Throws VaultKeyMissingError without a master key. */
export async function seal(
  db: Kysely<Database>,
  masterKey: Buffer | undefined,
  input: SealInput,
): Promise<SealedRecord> {
  if (!masterKey) throw new VaultKeyMissingError();
  const ttlDays = input.ttlDays ?? VAULT_DEFAULT_TTL_DAYS;
  if (!Number.isInteger(ttlDays) || ttlDays < 1) throw new RangeError('ttlDays must be a positive integer');
  const plaintext = Buffer.from(canonicalJson(checkData(input.data)), 'utf8');
  const vaultId = newId('vlt');
  const binding = bindingOf(vaultId, input);
  const dataKey = randomBytes(AEAD_KEY_BYTES);
  let ciphertext: string;
  let wrappedKey: string;
  try {
    ciphertext = aeadSeal(dataKey, `data ${binding}`, plaintext);
    wrappedKey = aeadSeal(masterKey, `key ${binding}`, dataKey);
  } finally {
    dataKey.fill(0);
    plaintext.fill(0);
  }
  const hash = vaultHash(masterKey, input.data);
  const expiresAt = new Date(input.now.getTime() + ttlDays * DAY_MS);
  await db
    .insertInto('personal_data_vault')
    .values({
      id: vaultId,
      tenant_id: input.tenantId,
      livemode: input.livemode,
      purpose: input.purpose,
      subject_id: input.subjectId,
      wrapped_key: wrappedKey,
      ciphertext,
      hash,
      created_at: input.now,
      expires_at: expiresAt,
    })
    .execute();
  return { vaultId, hash, expiresAt };
}

/**
 * The data of a readable record of this tenant and purpose. VaultNotFoundError (absent, or another
 * tenant's or purpose's), VaultShreddedError (key destroyed, or retention over at `now`),
 * VaultIntegrityError (does not authenticate), VaultKeyMissingError.
 */
export async function open(
  db: Kysely<Database>,
  masterKey: Buffer | undefined,
  vaultId: string,
  scope: VaultScope & { now?: Date },
): Promise<VaultData> {
  if (!masterKey) throw new VaultKeyMissingError();
  const row = await db
    .selectFrom('personal_data_vault')
    .selectAll()
    .where('id', '=', vaultId)
    .where('tenant_id', '=', scope.tenantId)
    .where('purpose', '=', scope.purpose)
    .executeTakeFirst();
  if (!row) throw new VaultNotFoundError(vaultId);
  if (row.wrapped_key === null) {
    throw new VaultShreddedError(vaultId, row.shred_reason ?? 'unknown', row.shredded_at ?? row.expires_at);
  }
  const now = scope.now ?? new Date();
  if (row.expires_at.getTime() <= now.getTime())
    throw new VaultShreddedError(vaultId, 'expired', row.expires_at);
  const binding = bindingOf(row.id, {
    tenantId: row.tenant_id,
    livemode: row.livemode,
    purpose: row.purpose,
    subjectId: row.subject_id,
  });
  let dataKey: Buffer | undefined;
  let plaintext: Buffer | undefined;
  try {
    dataKey = aeadOpen(masterKey, `key ${binding}`, row.wrapped_key);
    plaintext = aeadOpen(dataKey, `data ${binding}`, row.ciphertext);
    return checkData(JSON.parse(plaintext.toString('utf8')));
  } catch (error) {
    if (error instanceof AeadOpenError || error instanceof SyntaxError || error instanceof TypeError) {
      throw new VaultIntegrityError(vaultId);
    }
    throw error;
  } finally {
    dataKey?.fill(0);
    plaintext?.fill(0);
  }
}

/**
 * Destroys the record's data key (crypto-shredding). Idempotent: `shredded: false` when an earlier call (or
 * the expiry worker) already did, and the first shred's when/why/who stay. VaultNotFoundError if no record.
 */
export async function shred(
  db: Kysely<Database>,
  vaultId: string,
  by: ShredBy,
  now: Date,
): Promise<{ shredded: boolean }> {
  const done = await db
    .updateTable('personal_data_vault')
    .set({ wrapped_key: null, shredded_at: now, shred_reason: by.reason, shredded_by: by.actor })
    .where('id', '=', vaultId)
    .where('wrapped_key', 'is not', null)
    .returning('id')
    .executeTakeFirst();
  if (done) return { shredded: true };
  const exists = await db
    .selectFrom('personal_data_vault')
    .select('id')
    .where('id', '=', vaultId)
    .executeTakeFirst();
  if (!exists) throw new VaultNotFoundError(vaultId);
  return { shredded: false };
}

/**
 * An erasure request (LGPD art. 18): destroys the keys of every readable record of one subject of a
 * tenant, whatever its purpose. Returns the ids shredded by this call.
 */
export async function shredSubject(
  db: Kysely<Database>,
  tenantId: string,
  subjectId: string,
  by: ShredBy,
  now: Date,
): Promise<string[]> {
  const rows = await db
    .updateTable('personal_data_vault')
    .set({ wrapped_key: null, shredded_at: now, shred_reason: by.reason, shredded_by: by.actor })
    .where('tenant_id', '=', tenantId)
    .where('subject_id', '=', subjectId)
    .where('wrapped_key', 'is not', null)
    .returning('id')
    .execute();
  return rows.map((r) => r.id).sort();
}

/**
 * Shreds up to `limit` records whose retention ended at `now`, oldest expiry first (the expiry worker's
 * tick, src/workers/vault-expiry.ts). Rows another worker is shredding are skipped, not waited for.
 * Returns the ids shredded by this call; running it again shreds nothing more.
 */
export async function shredExpired(db: Kysely<Database>, now: Date, limit: number): Promise<string[]> {
  const rows = await db
    .updateTable('personal_data_vault')
    .set({ wrapped_key: null, shredded_at: now, shred_reason: 'expired', shredded_by: VAULT_EXPIRY_ACTOR })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('personal_data_vault')
        .select('id')
        .where('wrapped_key', 'is not', null)
        .where('expires_at', '<=', now)
        .orderBy('expires_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .where('wrapped_key', 'is not', null)
    .returning('id')
    .execute();
  return rows.map((r) => r.id).sort();
}

/**
 * HMAC-SHA-256 (hex) of the data's canonical JSON under a key derived from the master key by HKDF-SHA-256.
 * Stable for the same data and master key, so a later request can be matched to the stored hash; without the
 * master key it reveals nothing, where a plain SHA-256 of an account number falls to enumeration.
 */
export function vaultHash(masterKey: Buffer, data: VaultData): string {
  const hashKey = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), HASH_INFO, 32));
  try {
    return createHmac('sha256', hashKey)
      .update(canonicalJson(checkData(data)), 'utf8')
      .digest('hex');
  } finally {
    hashKey.fill(0);
  }
}

/**
 * JSON with the keys sorted by UTF-16 code units and no whitespace: RFC 8785 (JCS) for an object of strings,
 * written out so integer-like keys keep that order (a JS object would move them first).
 */
export function canonicalJson(data: VaultData): string {
  const keys = Object.keys(data).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(data[k])}`).join(',')}}`;
}

/** The associated data of both layers: a record opens only under its own id, tenant, mode, purpose and subject. */
function bindingOf(
  vaultId: string,
  b: { tenantId: string; livemode: boolean; purpose: string; subjectId: string },
): string {
  return JSON.stringify(['calebe-vault-v1', vaultId, b.tenantId, b.livemode, b.purpose, b.subjectId]);
}

function checkData(data: unknown): VaultData {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new TypeError('vault data must be an object of strings');
  }
  for (const value of Object.values(data)) {
    if (typeof value !== 'string') throw new TypeError('vault data must be an object of strings');
  }
  return data as VaultData;
}
