import { DomainError } from '../../aggregates/decider.ts';
import { type SubaccountRecordState, subaccount } from '../../aggregates/subaccount.ts';
import type { Config } from '../../config.ts';
import { credentialsKey, decryptCredentials, encryptCredentials } from '../../crypto/credentials.ts';
import type { SubaccountCredentials } from '../../providers/port.ts';
import type { CommandDeps } from '../command-handler.ts';
import { type FoldedStream, foldExisting } from '../fold-stream.ts';

/**
 * Marketplace subaccount links (SPEC 2.7, 3.6, 4.14): the record folded from its stream, its DTO, and the
 * sealing of its tokens (AES-256-GCM bound to the subaccount id and its provider id, like provider
 * credentials: a ciphertext copied onto another record or provider does not open).
 */

export const subaccountStream = (id: string) => `subaccount-${id}`;

type KeyConfig = Pick<Config, 'CREDENTIALS_ENCRYPTION_KEY' | 'DATABASE_URL' | 'CALEBE_DATA_DIR'>;

export interface SubaccountView {
  id: string;
  provider_id: string;
  tenant_id: string;
  status: SubaccountRecordState['status'];
  name: string;
  document: string;
  email: string;
  provider_reference: string | null;
  has_production_token: boolean;
  has_sandbox_token: boolean;
  last_provider_error_code: string | null;
  last_error_message: string | null;
  last_error_code: string | null;
  created_at: string;
  updated_at: string;
}

/** The stored names of the sealed tokens (never renamed: stored ciphertexts hold them). */
const TOKEN_FIELDS = {
  productionToken: 'production_token',
  sandboxToken: 'sandbox_token',
  productionSecretKey: 'production_secret_key',
  sandboxSecretKey: 'sandbox_secret_key',
} as const satisfies Record<keyof SubaccountCredentials, string>;

/** Seals the provider's tokens at once; null when it handed out none. Refused without an encryption key. */
export async function sealTokens(
  config: KeyConfig,
  subaccountId: string,
  providerId: string,
  credentials: SubaccountCredentials,
): Promise<string | null> {
  const plain: Record<string, string> = {};
  for (const [field, stored] of Object.entries(TOKEN_FIELDS)) {
    const secret = credentials[field as keyof SubaccountCredentials];
    if (secret !== null) plain[stored] = secret.reveal();
  }
  if (Object.keys(plain).length === 0) return null;
  const key = await credentialsKey(config);
  if (!key) throw new Error('subaccount tokens cannot be sealed without CREDENTIALS_ENCRYPTION_KEY');
  return encryptCredentials(key, subaccountId, plain, [providerId]);
}

/**
 * The stored token set, opened; null when there is none or it does not open (a masked or unreadable token is
 * no token, SPEC 2.7). Memory only: never stored, logged or answered.
 */
export async function openTokens(
  config: KeyConfig,
  subaccountId: string,
  providerId: string,
  ciphertext: string | null,
): Promise<Record<string, unknown> | null> {
  if (ciphertext === null) return null;
  const key = await credentialsKey(config);
  if (!key) return null;
  try {
    return decryptCredentials(key, subaccountId, ciphertext, [providerId]);
  } catch {
    return null;
  }
}

/** The token of an environment in an opened set, or null. */
export function environmentToken(
  opened: Record<string, unknown> | null,
  environment: 'production' | 'sandbox',
): string | null {
  const token =
    opened?.[environment === 'production' ? TOKEN_FIELDS.productionToken : TOKEN_FIELDS.sandboxToken];
  return typeof token === 'string' && token !== '' ? token : null;
}

/** Which tokens open (SPEC 2.7: recomputed on each read; an unreadable ciphertext has none). */
export async function tokenPresence(
  config: KeyConfig,
  subaccountId: string,
  providerId: string,
  ciphertext: string | null,
): Promise<{ production: boolean; sandbox: boolean }> {
  const opened = await openTokens(config, subaccountId, providerId, ciphertext);
  return {
    production: environmentToken(opened, 'production') !== null,
    sandbox: environmentToken(opened, 'sandbox') !== null,
  };
}

/**
 * The stored set with one environment's token replaced, sealed again (SPEC 4.14 credentials). A set that does
 * not open is dropped: only the new token is kept (a masked or unreadable token is no token, SPEC 2.7).
 */
export async function resealWithToken(
  config: KeyConfig,
  subaccountId: string,
  providerId: string,
  ciphertext: string | null,
  environment: 'production' | 'sandbox',
  token: string,
): Promise<string> {
  const key = await credentialsKey(config);
  if (!key) {
    throw new DomainError(
      'validation_error',
      'The server cannot store credentials (CREDENTIALS_ENCRYPTION_KEY).',
      {
        param: 'api_key',
      },
    );
  }
  let current: Record<string, unknown> = {};
  if (ciphertext !== null) {
    try {
      current = decryptCredentials(key, subaccountId, ciphertext, [providerId]);
    } catch {
      current = {};
    }
  }
  const field = environment === 'production' ? TOKEN_FIELDS.productionToken : TOKEN_FIELDS.sandboxToken;
  return encryptCredentials(key, subaccountId, { ...current, [field]: token }, [providerId]);
}

export interface SubaccountRow {
  id: string;
  provider_id: string;
  tenant_id: string;
  status: string;
  name: string;
  document: string;
  email: string;
  provider_reference: string | null;
  tokens_ciphertext: string | null;
  last_provider_error_code: string | null;
  last_error_message: string | null;
  last_error_code: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

export async function toSubaccountView(config: KeyConfig, row: SubaccountRow): Promise<SubaccountView> {
  const tokens = await tokenPresence(config, row.id, row.provider_id, row.tokens_ciphertext);
  return {
    id: row.id,
    provider_id: row.provider_id,
    tenant_id: row.tenant_id,
    status: row.status as SubaccountView['status'],
    name: row.name,
    document: row.document,
    email: row.email,
    provider_reference: row.provider_reference,
    has_production_token: tokens.production,
    has_sandbox_token: tokens.sandbox,
    last_provider_error_code: row.last_provider_error_code,
    last_error_message: row.last_error_message,
    last_error_code: row.last_error_code,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export type LoadedSubaccount = FoldedStream<SubaccountRecordState>;

/** Folded from its stream (consistent while an async read model trails); ids not `sac_…` are never read. */
export async function loadSubaccount(
  deps: Pick<CommandDeps, 'store' | 'registry'>,
  id: string,
): Promise<LoadedSubaccount | undefined> {
  if (!/^sac_[A-Za-z0-9]{1,60}$/.test(id)) return undefined;
  return foldExisting(deps.store, (r) => deps.registry.decode(r), subaccount, subaccountStream(id));
}

export async function mustLoadSubaccount(
  deps: Pick<CommandDeps, 'store' | 'registry'>,
  id: string,
): Promise<LoadedSubaccount> {
  const loaded = await loadSubaccount(deps, id);
  if (!loaded) throw new DomainError('not_found', 'The subaccount does not exist.');
  return loaded;
}

export function viewOfLoaded(config: KeyConfig, l: LoadedSubaccount): Promise<SubaccountView> {
  const s = l.state;
  return toSubaccountView(config, {
    id: s.id,
    provider_id: s.providerId,
    tenant_id: s.tenantId,
    status: s.status,
    name: s.name,
    document: s.document,
    email: s.email,
    provider_reference: s.providerReference,
    tokens_ciphertext: s.tokensCiphertext,
    last_provider_error_code: s.lastProviderErrorCode,
    last_error_message: s.lastErrorMessage,
    last_error_code: s.lastErrorCode,
    created_at: l.createdAt,
    updated_at: l.updatedAt,
  });
}
