import type { Kysely } from 'kysely';
import { DomainError } from '../../../aggregates/decider.ts';
import type {
  RefundRoute,
  TransactionCommand,
  TransactionFacts,
  VaultReference,
} from '../../../aggregates/transaction.ts';
import { transaction } from '../../../aggregates/transaction.ts';
import { type CredentialsKeyConfig, credentialsKey } from '../../../crypto/credentials.ts';
import { open, seal, shred, VaultKeyMissingError } from '../../../crypto/vault.ts';
import type { Database } from '../../../db/schema.ts';
import type { EventMetadata } from '../../../events/event-store.ts';
import { payoutBankAccount, payoutCompensationDate, withCapability } from '../../../providers/port.ts';
import { diagnosticsFor } from '../../../providers/safe2pay/diagnostics.ts';
import { type CommandDeps, handleCommand } from '../../command-handler.ts';
import { foldStream } from '../../fold-stream.ts';
import { refundPayoutEnabled } from '../../providers/refund-payout.ts';
import {
  type AdapterContext,
  type Attempt,
  adapterOf,
  guarded,
  type Reserve,
  refuseBlockedSubaccount,
  stillPending,
} from '../shared/provider-changes.ts';
import { transactionStream } from '../shared/stream.ts';

/**
 * SPEC 4.8 "a boleto paid by boleto needs a bank account of the payer" (issue 22 item 4): the provider has
 * no refund for it (wire doc wave 2b §5.1), so the money goes back by a transfer to an account in the
 * payer's own name. Two routes, chosen by the charge's provider record:
 *
 *   payout   (`boleto_refund_payout` on): a transfer through the provider (`v2/Transfer`, funded from the
 *            balance), reserved, sent, recorded (`RefundPayoutSent`), then polled by the reconciler until
 *            transferred (refunded) or returned by the bank (refund failed, awaiting a person). A refusal,
 *            an answer asking to fund the lot by boleto included, hands it to a person; an uncertain answer
 *            is reconciled by listing the provider's transfers by `Identification` before anything is sent
 *            again.
 *   operator (otherwise): a person transfers the money and completes the refund in the panel with its
 *            evidence, or cancels it with a reason (../refund-queue/route.ts).
 *
 * The account never enters an event: it is sealed in the personal-data vault (src/crypto/vault.ts) before
 * the reservation, which carries the vault id and a keyed hash; the vault record is shredded when the
 * refund ends (src/projections/refund-vault.ts) or after 90 days.
 */

/** SPEC 4.8 `bank_account` as the request carries it (src/http/contract/transactions.ts). */
export interface RefundBankAccount {
  readonly bank_code: string;
  readonly branch: string;
  readonly account: string;
  readonly account_type: 'checking' | 'savings';
  readonly holder_name: string;
  readonly holder_document: string;
}

export const BANK_ACCOUNT_PURPOSE = 'refund_bank_account';
const SYSTEM_ACTOR = 'system:refund';

/** Where the vault lives: the database and the key that wraps its data keys. */
export interface VaultAccess {
  readonly db: Kysely<Database>;
  readonly config: CredentialsKeyConfig;
}

export type PayoutContext = AdapterContext & { readonly vault: VaultAccess };

/** The reference sent as the transfer's `Identification`: one per reservation of the charge's refund. */
export function payoutIdentification(state: TransactionFacts): string {
  const at = state.refundRequestedAt === null ? 0 : Date.parse(state.refundRequestedAt);
  return `refund:${state.reserved.transaction_id}:${at.toString(36)}`;
}

const digits = (document: string) => document.replace(/[^0-9A-Za-z]/g, '').toUpperCase();

/** The account must be in the boleto payer's name (the provider's panel rule, wire doc wave 2b §5.1). */
export function checkHolder(state: TransactionFacts, account: RefundBankAccount): void {
  const payer = state.reserved.request.customer.document;
  if (payer === undefined || digits(payer) !== digits(account.holder_document)) {
    throw new DomainError(
      'validation_error',
      "The refund goes to an account in the boleto payer's own name: holder_document must be the payer's CPF or CNPJ.",
      { param: 'bank_account.holder_document' },
    );
  }
}

async function route(ctx: PayoutContext, state: TransactionFacts): Promise<RefundRoute> {
  const charge = { providerId: state.reserved.provider_id, simulated: state.reserved.simulated };
  return (await refundPayoutEnabled(ctx.deps, charge)) ? 'payout' : 'operator';
}

async function sealAccount(ctx: PayoutContext, state: TransactionFacts, account: RefundBankAccount) {
  try {
    const sealed = await seal(ctx.vault.db, await credentialsKey(ctx.vault.config), {
      tenantId: state.reserved.tenant_id,
      livemode: state.reserved.livemode,
      purpose: BANK_ACCOUNT_PURPOSE,
      subjectId: state.reserved.transaction_id,
      data: { ...account },
      now: ctx.deps.now(),
    });
    return { vault_id: sealed.vaultId, hmac: sealed.hash } satisfies VaultReference;
  } catch (error) {
    if (!(error instanceof VaultKeyMissingError)) throw error;
    throw new DomainError(
      'validation_error',
      'This gateway cannot keep a bank account: set CREDENTIALS_ENCRYPTION_KEY to refund a boleto paid by boleto.',
      { param: 'bank_account' },
    );
  }
}

/**
 * The refund of a boleto paid by boleto: the account sealed, the refund reserved with its reference, then
 * the payout sent (route `payout`) or left to a person (route `operator`). Answers pending (202) until the
 * money has gone; a reservation lost to a concurrent request shreds the account it sealed.
 */
export async function payoutAttempt(
  ctx: PayoutContext,
  state: TransactionFacts,
  account: RefundBankAccount,
  reserve: Reserve,
): Promise<Attempt> {
  const refunded: Attempt = { kind: 'confirmed', command: { kind: 'refund', refundStatus: 'succeeded' } };
  if (state.status !== 'paid') return refunded;
  // Already on its way (a transfer in flight, or a person's): asking again changes nothing.
  if (state.refundStatus === 'pending' && !state.refundInFlight) return stillPending;
  checkHolder(state, account);
  const how = await route(ctx, state);
  const resolved = how === 'payout' ? await adapterOf(ctx, state) : null;
  if (resolved !== null) refuseBlockedSubaccount(resolved);
  const bankAccount = await sealAccount(ctx, state, account);
  let reserved: TransactionFacts | null = null;
  try {
    reserved = await reserve({ kind: 'request_refund', route: how, bankAccount });
  } finally {
    if (reserved === null) {
      const by = { reason: 'refund_cancelled', actor: SYSTEM_ACTOR } as const;
      await shred(ctx.vault.db, bankAccount.vault_id, by, ctx.deps.now());
    }
  }
  if (reserved === null) return refunded;
  if (how === 'operator') return stillPending;
  if (resolved === null || 'blocked' in resolved) {
    const diagnostics = resolved?.blocked ?? diagnosticsFor('credentials_missing', null, null);
    return { kind: 'pending', command: { kind: 'hand_refund_to_operator', diagnostics } };
  }
  return sendPayout(resolved, reserved, account, ctx.deps.now());
}

type Resolved = Exclude<Awaited<ReturnType<typeof adapterOf>>, { readonly blocked: unknown }>;

async function sendPayout(
  resolved: Resolved,
  state: TransactionFacts,
  account: RefundBankAccount,
  now: Date,
): Promise<Attempt> {
  const outcome = await guarded(() =>
    withCapability(resolved.adapter, 'payouts', (payouts) =>
      payouts.payout(
        {
          transactionId: state.reserved.transaction_id,
          identification: payoutIdentification(state),
          amount: state.reserved.amount,
          receiverName: account.holder_name,
          receiverDocument: digits(account.holder_document),
          bankAccount: payoutBankAccount(account),
          compensationDate: payoutCompensationDate(now),
        },
        resolved.context(),
      ),
    ),
  );
  switch (outcome.kind) {
    case 'issued':
      return { kind: 'pending', command: { kind: 'record_payout_sent', transferId: outcome.transferId } };
    case 'refused':
      // Never shown as done, never retried blindly: a person takes it from here.
      return {
        kind: 'pending',
        command: { kind: 'hand_refund_to_operator', diagnostics: outcome.diagnostics },
      };
    case 'uncertain':
      return { kind: 'pending', command: { kind: 'refund_unconfirmed', diagnostics: outcome.diagnostics } };
  }
}

/**
 * The reconciler's step for a pending payout (../settle-pending-changes/job.ts): a transfer recorded
 * is polled (transferred: refunded with the provider's confirmation as evidence; returned: refund failed,
 * awaiting a person); a payout left uncertain is looked up by its `Identification`: one transfer found is
 * recorded, none is sent again (the only second call, once the provider shows the first never happened),
 * two or more go to a person.
 */
export async function settlePayout(ctx: PayoutContext, state: TransactionFacts): Promise<Attempt> {
  const resolved = await adapterOf(ctx, state);
  if ('blocked' in resolved) return stillPending;
  const identification = payoutIdentification(state);
  const transferId = state.refundTransferId;
  if (transferId !== null) {
    const target = { transferId, identification, amount: state.reserved.amount };
    const read = await guarded(() =>
      withCapability(resolved.adapter, 'payouts', (payouts) =>
        payouts.queryPayout(target, resolved.context()),
      ),
    );
    if (read.kind !== 'issued') return stillPending;
    if (read.state === 'transferred') return transferred(ctx, state, read.confirmation ?? transferId);
    if (read.state === 'returned') {
      const diagnostics = diagnosticsFor('status_refused', read.returnReason, null);
      return { kind: 'refused', command: { kind: 'record_payout_returned', diagnostics }, diagnostics };
    }
    return stillPending;
  }
  const found = await guarded(() =>
    withCapability(resolved.adapter, 'payouts', (payouts) =>
      payouts.findPayout(identification, resolved.context()),
    ),
  );
  if (found.kind !== 'issued') return stillPending;
  const [only, ...more] = found.transferIds;
  if (only !== undefined && more.length === 0) {
    return { kind: 'pending', command: { kind: 'record_payout_sent', transferId: only } };
  }
  if (only !== undefined) {
    const diagnostics = diagnosticsFor('mismatch', null, null);
    return { kind: 'pending', command: { kind: 'hand_refund_to_operator', diagnostics } };
  }
  const account = await openAccount(ctx, state);
  if (account === null) {
    const diagnostics = diagnosticsFor('credentials_missing', null, null);
    return { kind: 'pending', command: { kind: 'hand_refund_to_operator', diagnostics } };
  }
  return sendPayout(resolved, state, account, ctx.deps.now());
}

function transferred(ctx: PayoutContext, state: TransactionFacts, reference: string): Attempt {
  const evidence = {
    reference,
    paid_on: payoutCompensationDate(ctx.deps.now()),
    amount: state.reserved.amount,
  };
  const command: TransactionCommand = {
    kind: 'refund',
    refundStatus: 'succeeded',
    source: 'payout',
    evidence,
  };
  return { kind: 'confirmed', command };
}

/** The payer's account of the pending refund, or null when the vault can no longer open it. */
export async function openAccount(
  ctx: { vault: VaultAccess; deps: { now(): Date } },
  state: TransactionFacts,
): Promise<RefundBankAccount | null> {
  if (state.refundVault === null) return null;
  try {
    const data = await open(
      ctx.vault.db,
      await credentialsKey(ctx.vault.config),
      state.refundVault.vault_id,
      { tenantId: state.reserved.tenant_id, purpose: BANK_ACCOUNT_PURPOSE, now: ctx.deps.now() },
    );
    return data as unknown as RefundBankAccount;
  } catch {
    return null;
  }
}

/**
 * A refresh of a charge whose refund is being paid out also reads the transfer (SPEC 4.6: a refresh queries
 * the provider and persists what it finds), so a payer's refund shows as soon as the bank confirmed it.
 */
export async function refreshPayout(
  ctx: PayoutContext & { deps: CommandDeps },
  id: string,
  metadata: EventMetadata,
): Promise<void> {
  const state = await foldStream(ctx.deps, transaction, transactionStream(id));
  if (state.status !== 'paid' || state.refundRoute !== 'payout') return;
  if (state.refundStatus !== 'pending' || state.refundInFlight) return;
  const attempt = await settlePayout(ctx, state);
  if (attempt.command === null) return;
  await handleCommand(ctx.deps, transaction, transactionStream(id), attempt.command, {
    metadata,
    retryOnConflict: true,
  });
}
