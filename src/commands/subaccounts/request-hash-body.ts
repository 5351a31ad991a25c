import { DomainError } from '../../aggregates/decider.ts';
import type { Config } from '../../config.ts';
import type { CreateSubaccountBody } from '../../contract/subaccounts.ts';
import { credentialsKey } from '../../crypto/credentials.ts';
import { vaultHash } from '../../crypto/vault.ts';

type BankAccount = CreateSubaccountBody['bank_account'];

/**
 * What an idempotency hash of a subaccount request covers: the body with its bank account replaced by a
 * keyed hash (HMAC under a key derived from CREDENTIALS_ENCRYPTION_KEY, the vault's `vaultHash`). The claim
 * stores only a hash of the request, but a plain SHA-256 over a body whose other fields are known falls to
 * enumeration of a short account number; keyed, it reveals nothing without the master key.
 */
export async function withKeyedBankAccount<T extends { bank_account: BankAccount }>(
  config: Pick<Config, 'CREDENTIALS_ENCRYPTION_KEY' | 'DATABASE_URL' | 'CALEBE_DATA_DIR'>,
  body: T,
  param = 'bank_account',
): Promise<Omit<T, 'bank_account'> & { bank_account: string }> {
  const key = await credentialsKey(config);
  if (!key) {
    throw new DomainError(
      'validation_error',
      'The server cannot take a bank account without CREDENTIALS_ENCRYPTION_KEY.',
      { param: param },
    );
  }
  const account: Record<string, string> = {};
  for (const [field, value] of Object.entries(body.bank_account)) {
    if (value !== undefined) account[field] = String(value);
  }
  return { ...body, bank_account: vaultHash(key, account) };
}
