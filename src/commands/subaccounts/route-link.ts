import type { Kysely } from 'kysely';
import { DomainError } from '../../aggregates/decider.ts';
import { subaccount } from '../../aggregates/subaccount.ts';
import type { Config } from '../../config.ts';
import { constantQuery } from '../../db/constant-query.ts';
import type { Database } from '../../db/schema.ts';
import type { ProviderEnvironment } from '../../providers/port.ts';
import type { CommandDeps } from '../command-handler.ts';
import { foldStream } from '../fold-stream.ts';
import { environmentToken, openTokens, subaccountStream } from './record.ts';

/**
 * Issue 28 item 3, SPEC 2.8 (marketplace providers): which subaccount a new charge of a tenant is issued
 * through, and the token every call about that charge is sent with.
 *
 * - {@link routeLink}, at issuance (before the idempotency claim, so a refusal stores nothing): the link of
 *   the EXACT tenant (never an ancestor's: a child does not inherit its parent's subaccount) for the routed
 *   provider, in status `active` (`disabled`, `creating`, `unknown` and `failed` do not count), else
 *   `422 subaccount_not_configured`; its sealed token set must open and hold the token of the provider's
 *   environment (production -> `production_token`, sandbox -> `sandbox_token`), else
 *   `422 subaccount_credentials_missing`. Several active links of one tenant and provider: the oldest
 *   (created_at, then id) serves, deterministically (docs/decisions.md "Marketplace routing"). One SQL read
 *   of the `subaccounts` read model: inline (committed with the events), and a reference projection that
 *   async mode catches up before the request decides, so never behind them.
 * - {@link subaccountToken}, at call time (issuance, refresh, reconcile, refund, due date, payout): the
 *   token of the charge's environment read from the subaccount's own stream. A link disabled since the
 *   charge was issued still serves that charge (disabling stops new charges only); a token gone or
 *   unreadable is `422 subaccount_credentials_missing` and nothing is sent. The matrix key is never a
 *   fallback.
 */

type KeyConfig = Pick<Config, 'CREDENTIALS_ENCRYPTION_KEY' | 'DATABASE_URL' | 'CALEBE_DATA_DIR'>;

export interface RouteLink {
  readonly subaccountId: string;
  /** The token of the provider's environment, opened (memory only: never stored, logged or answered). */
  readonly token: string;
}

interface LinkRow {
  id: string;
  tokens_ciphertext: string | null;
}

const activeLink = constantQuery<LinkRow>(`
  select id, tokens_ciphertext from subaccounts
  where tenant_id = $1 and provider_id = $2 and status = 'active'
  order by created_at, id
  limit 1`);

export function notConfigured(): DomainError {
  return new DomainError(
    'subaccount_not_configured',
    'The routed provider is a marketplace and this tenant has no active subaccount link with it; an ' +
      "administrator creates or links one for this tenant (a parent's subaccount is not inherited).",
  );
}

export function credentialsMissing(environment: ProviderEnvironment): DomainError {
  return new DomainError(
    'subaccount_credentials_missing',
    `The subaccount link of this tenant has no usable ${environment} token; an administrator replaces it ` +
      'with PATCH /admin/subaccounts/{id}/credentials. Nothing was sent.',
  );
}

/** The named token of a sealed set, or null when the set does not open or lacks it. */
async function openToken(
  config: KeyConfig,
  subaccountId: string,
  providerId: string,
  ciphertext: string | null,
  environment: ProviderEnvironment,
): Promise<string | null> {
  return environmentToken(await openTokens(config, subaccountId, providerId, ciphertext), environment);
}

/** The link a new charge of `tenantId` on the marketplace `providerId` is issued through (see above). */
export async function routeLink(
  ctx: { db: Kysely<Database>; config: KeyConfig },
  input: { tenantId: string; providerId: string; environment: ProviderEnvironment },
): Promise<RouteLink> {
  const { rows } = await activeLink(ctx.db, [input.tenantId, input.providerId]);
  const row = rows[0];
  if (!row) throw notConfigured();
  const token = await openToken(
    ctx.config,
    row.id,
    input.providerId,
    row.tokens_ciphertext,
    input.environment,
  );
  if (token === null) throw credentialsMissing(input.environment);
  return { subaccountId: row.id, token };
}

/**
 * The token of an issued charge's subaccount for its environment, from the subaccount's stream (any status:
 * a disabled link still serves the charges it issued). Missing, of another provider, or unusable:
 * `422 subaccount_credentials_missing`.
 */
export async function subaccountToken(
  ctx: { deps: Pick<CommandDeps, 'store' | 'registry'>; config: KeyConfig },
  input: { subaccountId: string; providerId: string; environment: ProviderEnvironment },
): Promise<string> {
  const state = await foldStream(ctx.deps, subaccount, subaccountStream(input.subaccountId));
  const token =
    state.status === 'none' || state.providerId !== input.providerId
      ? null
      : await openToken(
          ctx.config,
          input.subaccountId,
          input.providerId,
          state.tokensCiphertext,
          input.environment,
        );
  if (token === null) throw credentialsMissing(input.environment);
  return token;
}
