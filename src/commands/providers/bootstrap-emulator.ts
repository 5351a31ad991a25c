import { DomainError } from '../../aggregates/decider.ts';
import { PRIORITY_MAX, routingRule } from '../../aggregates/routing-rule.ts';
import type { Config } from '../../config.ts';
import type { EventMetadata } from '../../events/event-store.ts';
import type { Logger } from '../../logger.ts';
import { DEFAULT_KEYS } from '../../providers/emulator/server.ts';
import { foldStream } from '../fold-stream.ts';
import { createRoutingRule } from '../routing-rules/create/handler.ts';
import { routingRuleStream } from '../routing-rules/record.ts';
import { updateRoutingRule } from '../routing-rules/update/handler.ts';
import { createProvider } from './create/handler.ts';
import type { ProviderDeps } from './deps.ts';
import { loadProvider } from './record.ts';
import { updateProvider } from './update/handler.ts';

/**
 * `PROVIDER_EMULATOR_URL` (issue 13 item 3; docs/decisions.md "The gateway against the provider emulator"):
 * the gateway wired to a `calebe provider-emulator` the way a stripe-mock user points a client at the mock,
 * with one variable. Each start makes sure of a sandbox external provider on the emulator's two hosts, with
 * the emulator's default sandbox key, and a global boleto rule ahead of the simulator's, so a live key's
 * boleto is issued there for real (`simulated: false`). Pix stays on the simulator: SPEC 1, the external
 * provider has no Pix sandbox.
 *
 * Set, the record follows its URL and the rule is enabled. Unset, a development start changes nothing (issue
 * 23 item 2.7): one process started without the variable (a worker, a CLI, a second api) must not switch the
 * rule off for the processes that have it. The rule is switched off explicitly: by an administrator (PATCH
 * /admin/rules/rul_provider_emulator_boleto `{"enabled": false}`), or by any start in production mode
 * (CALEBE_ENV), which refuses the variable and never lets a live boleto reach an emulator. The record stays
 * either way (charges keep their provider, SPEC 2.8). An administrator's other edits (name, methods,
 * priority, limit, credentials) are kept. Fixed ids make it safe with several instances starting at once,
 * as for the simulator (src/routing/simulator.ts).
 */
export const EMULATOR_PROVIDER_ID = 'prv_provider_emulator';
export const EMULATOR_RULE_ID = 'rul_provider_emulator_boleto';
/** Ahead of the simulator's global rule (PRIORITY_MAX), behind any global rule an administrator adds. */
export const EMULATOR_RULE_PRIORITY = PRIORITY_MAX - 1;

const metadata: EventMetadata = { actor: 'system:bootstrap', request_id: 'bootstrap' };

/** The emulator's hosts under its base URL (docs/provider-emulator.md "Wire endpoints"). */
export function emulatorHosts(baseUrl: string): { paymentHost: string; apiHost: string } {
  return { paymentHost: `${baseUrl}/payment`, apiHost: `${baseUrl}/api` };
}

async function ensureProvider(deps: ProviderDeps, baseUrl: string): Promise<boolean> {
  const hosts = emulatorHosts(baseUrl);
  const existing = await loadProvider(deps, EMULATOR_PROVIDER_ID);
  if (!existing) {
    try {
      const r = await createProvider(
        deps,
        {
          providerId: EMULATOR_PROVIDER_ID,
          name: 'Provider emulator (sandbox)',
          kind: 'external',
          environment: 'sandbox',
          enabledMethods: ['boleto'],
          isMarketplace: false,
          credentials: { api_key: DEFAULT_KEYS.sandbox[0] as string },
          ...hosts,
        },
        metadata,
      );
      return r.created;
    } catch (error) {
      // Another instance created it meanwhile (ciphertexts differ per sealing): fall through to the hosts.
      if (!(error instanceof DomainError && error.code === 'conflict')) throw error;
    }
  }
  const current = existing ?? (await loadProvider(deps, EMULATOR_PROVIDER_ID));
  if (current && (current.payment_host !== hosts.paymentHost || current.api_host !== hosts.apiHost)) {
    // The operator moved the emulator: its record's key follows the configured URL (issue 23 item 2.3: a
    // host change through the panel needs the credentials again; this one is the server's own setting).
    await updateProvider(deps, EMULATOR_PROVIDER_ID, { ...hosts, resealStoredCredentials: true }, metadata);
    return true;
  }
  return false;
}

async function setRule(deps: ProviderDeps, enabled: boolean): Promise<boolean> {
  const rule = await foldStream(deps, routingRule, routingRuleStream(EMULATOR_RULE_ID));
  if (rule.status === 'none') {
    if (!enabled) return false;
    try {
      const r = await createRoutingRule(
        deps,
        {
          ruleId: EMULATOR_RULE_ID,
          method: 'boleto',
          tenantId: null,
          providerId: EMULATOR_PROVIDER_ID,
          priority: EMULATOR_RULE_PRIORITY,
          enabled: true,
        },
        metadata,
      );
      return r.created;
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'conflict')) throw error;
      return false;
    }
  }
  if (rule.enabled === enabled) return false;
  await updateRoutingRule(deps, EMULATOR_RULE_ID, { enabled }, metadata);
  return true;
}

export async function wireProviderEmulator(
  deps: ProviderDeps,
  config: Pick<Config, 'PROVIDER_EMULATOR_URL' | 'CALEBE_ENV'>,
  logger: Logger,
): Promise<void> {
  if (config.CALEBE_ENV === 'production') {
    // The configuration already refused PROVIDER_EMULATOR_URL here; a rule left on by a development run
    // against the same database is switched off.
    if (await setRule(deps, false)) {
      logger.warn(
        { rule_id: EMULATOR_RULE_ID },
        'provider emulator rule disabled: this gateway runs in production mode (CALEBE_ENV)',
      );
    }
    return;
  }
  const url = config.PROVIDER_EMULATOR_URL;
  if (url === undefined) return;
  const changed = [await ensureProvider(deps, url), await setRule(deps, true)].some(Boolean);
  if (changed) {
    logger.info(
      { provider_id: EMULATOR_PROVIDER_ID, rule_id: EMULATOR_RULE_ID, url },
      'boletos of live keys go to the provider emulator',
    );
  }
}
