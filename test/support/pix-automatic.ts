import type { AuthorizationInterval } from '../../src/aggregates/pix-automatic-authorization.ts';
import { pixAutomaticAuthorization } from '../../src/aggregates/pix-automatic-authorization.ts';
import { handleCommand } from '../../src/commands/command-handler.ts';
import { authorizationStream } from '../../src/commands/pix-automatic/authorizations/load.ts';
import type { EventMetadata } from '../../src/events/event-store.ts';
import { newId } from '../../src/ids.ts';
import { pixBody } from './charges.ts';
import { commandDeps, type SeedContext } from './fixtures.ts';

const metadata: EventMetadata = { actor: 'system:test', request_id: 'req_seed_pxa' };

export interface SeedAuthorization {
  readonly tenantId: string;
  readonly livemode: boolean;
  readonly amount?: number;
  readonly firstDueDate: string;
  readonly intervalMonths?: AuthorizationInterval;
  /** `approved` (default), or left `pending`. */
  readonly status?: 'approved' | 'pending';
  /** A live authorization's provider record (its receiving account); null for a test key. */
  readonly providerId?: string | null;
  readonly environment?: 'sandbox' | 'production';
  readonly simulated?: boolean;
  /** The provider's id of the recurrence (`idRec`). */
  readonly providerReference?: string;
}

/**
 * A Pix Automatic authorization driven through its own decider (SPEC 2.6, 3.2): created at the provider,
 * then approved by the payer (a simulated one by `simulate_approved`, an external one by a provider read),
 * for the debit tests that need one in a given state. Its payer is pixBody()'s (document 12345678901).
 */
export async function seedAuthorization(ctx: SeedContext, a: SeedAuthorization): Promise<string> {
  const id = newId('pxa');
  const deps = commandDeps(ctx);
  const stream = authorizationStream(id);
  const simulated = a.simulated ?? true;
  const run = (command: Parameters<typeof pixAutomaticAuthorization.decide>[0]) =>
    handleCommand(deps, pixAutomaticAuthorization, stream, command, { metadata, retryOnConflict: true });
  await run({
    kind: 'create',
    data: {
      authorization_id: id,
      tenant_id: a.tenantId,
      livemode: a.livemode,
      simulated,
      environment: a.environment ?? 'sandbox',
      provider_id: a.providerId ?? null,
      name: 'Assinatura',
      description: 'Assinatura mensal',
      amount: a.amount ?? 4990,
      first_due_date: a.firstDueDate,
      interval_months: a.intervalMonths ?? 1,
      customer: pixBody().customer as never,
      created_at: ctx.now().toISOString(),
    },
  });
  await run({
    kind: 'issued',
    providerReference: a.providerReference ?? `sim_${id}`,
    copyPaste: 'SIMULADOR-TESTE-NAO-PAGAVEL',
  });
  if ((a.status ?? 'approved') === 'approved') {
    await run(
      simulated ? { kind: 'simulate_approved' } : { kind: 'remote_approved', providerStatus: 'APROVADA' },
    );
  }
  return id;
}
