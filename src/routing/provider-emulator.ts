import { DomainError } from '../aggregates/decider.ts';
import { PRIORITY_MAX, routingRule } from '../aggregates/routing-rule.ts';
import { foldStream } from '../commands/fold-stream.ts';
import { createProvider, loadProvider, type ProviderDeps, updateProvider } from '../commands/providers.ts';
import { createRoutingRule, routingRuleStream, updateRoutingRule } from '../commands/routing-rules.ts';
import type { Config } from '../config.ts';
import type { EventMetadata } from '../events/event-store.ts';
import type { Logger } from '../logger.ts';
import { DEFAULT_KEYS } from '../providers/emulator/server.ts';

/**
 * `PROVIDER_EMULATOR_URL` (issue 13 item 3; docs/decisions.md "The gateway against the provider emulator"):
 * the gateway wired to a `calebe provider-emulator` the way a stripe-mock user points a client at the mock,
 * with one variable. Each start makes sure of a sandbox external provider on the emulator's two hosts, with
 * the emulator's default sandbox key, and a global boleto rule ahead of the simulator's, so a live key's
 * boleto is issued there for real (`simulated: false`). Pix stays on the simulator: SPEC 1, the external
 * provider has no Pix sandbox.
 *
 * The variable is the truth for what it owns: set, the record follows its URL and the rule is enabled;
 * unset, the rule is disabled (the record stays: charges keep their provider, SPEC 2.8). An administrator's
 * other edits (name, methods, priority, limit, credentials) are kept. Fixed ids make it safe with several
 * instances starting at once, as for the simulator (src/routing/simulator.ts).
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
    await updateProvider(deps, EMULATOR_PROVIDER_ID, hosts, metadata);
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
  config: Pick<Config, 'PROVIDER_EMULATOR_URL'>,
  logger: Logger,
): Promise<void> {
  const url = config.PROVIDER_EMULATOR_URL;
  if (url === undefined) {
    if (await setRule(deps, false)) {
      logger.info(
        { rule_id: EMULATOR_RULE_ID },
        'provider emulator rule disabled (PROVIDER_EMULATOR_URL unset)',
      );
    }
    return;
  }
  const changed = [await ensureProvider(deps, url), await setRule(deps, true)].some(Boolean);
  if (changed) {
    logger.info(
      { provider_id: EMULATOR_PROVIDER_ID, rule_id: EMULATOR_RULE_ID, url },
      'boletos of live keys go to the provider emulator',
    );
  }
}
