import { DomainError } from '../../aggregates/decider.ts';
import { PRIORITY_MAX } from '../../aggregates/routing-rule.ts';
import { CHARGE_METHODS } from '../../aggregates/transaction.ts';
import type { Config } from '../../config.ts';
import type { EventMetadata } from '../../events/event-store.ts';
import type { Logger } from '../../logger.ts';
import { createRoutingRule } from '../routing-rules/create/handler.ts';
import { createProvider } from './create/handler.ts';
import type { ProviderDeps } from './deps.ts';

/**
 * SPEC 2.8, last line: with the simulator enabled, its provider and its global pix and boleto rules exist
 * from the start. Fixed ids make it idempotent and safe with several instances starting at once: each
 * creation appends with `no_stream`, and the loser of a race re-decides into a no-op.
 */
export const SIMULATOR_PROVIDER_ID = 'prv_simulator';
export const SIMULATOR_RULE_IDS = {
  pix: 'rul_simulator_pix',
  boleto: 'rul_simulator_boleto',
  credit_card: 'rul_simulator_credit_card',
} as const;

/** `ENABLE_SIMULATOR`, defaulting to on with the embedded database and off with DATABASE_URL. */
export function simulatorEnabled(config: Pick<Config, 'ENABLE_SIMULATOR' | 'DATABASE_URL'>): boolean {
  return config.ENABLE_SIMULATOR ?? !config.DATABASE_URL;
}

const metadata: EventMetadata = { actor: 'system:bootstrap', request_id: 'bootstrap' };

/** A later edit by an administrator (renamed, disabled, re-prioritized) is kept: only absence is repaired. */
async function keepExisting<T>(create: () => Promise<T>): Promise<void> {
  try {
    await create();
  } catch (error) {
    if (!(error instanceof DomainError && error.code === 'conflict')) throw error;
  }
}

export async function bootstrapSimulator(deps: ProviderDeps, logger: Logger): Promise<void> {
  let created = false;
  await keepExisting(async () => {
    const r = await createProvider(
      deps,
      {
        providerId: SIMULATOR_PROVIDER_ID,
        name: 'Simulator',
        kind: 'simulator',
        environment: 'sandbox',
        enabledMethods: [...CHARGE_METHODS],
        isMarketplace: false,
      },
      metadata,
    );
    created ||= r.created;
  });
  for (const method of CHARGE_METHODS) {
    await keepExisting(async () => {
      const r = await createRoutingRule(
        deps,
        {
          ruleId: SIMULATOR_RULE_IDS[method],
          method,
          tenantId: null,
          providerId: SIMULATOR_PROVIDER_ID,
          // The lowest precedence: any global rule an administrator adds wins over the simulator's.
          priority: PRIORITY_MAX,
          enabled: true,
        },
        metadata,
      );
      created ||= r.created;
    });
  }
  if (created) logger.info({ provider_id: SIMULATOR_PROVIDER_ID }, 'simulator provider and rules created');
}
