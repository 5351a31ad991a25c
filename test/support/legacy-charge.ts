import { type ReserveTransaction, transaction } from '../../src/aggregates/transaction.ts';
import { handleCommand } from '../../src/commands/command-handler.ts';
import { claimIdempotencyKey, type JsonValue } from '../../src/commands/idempotency.ts';
import { transactionStream } from '../../src/commands/transactions/shared/stream.ts';
import { sha256Hex } from '../../src/crypto/secrets.ts';
import { newId } from '../../src/ids.ts';
import { simulatedArtifacts } from '../../src/providers/simulator.ts';
import { pixBody } from './charges.ts';
import { commandDeps, type SeedContext, type SeededKey } from './fixtures.ts';

/**
 * SPEC 4.1 "Legacy replay": a Pix record stored before phone and address were required (imported history),
 * written as the gateway stored it: the key's claim, the reservation and its issuance (test mode, simulator).
 */

const metadata = { actor: 'system:import', request_id: 'req_import' };
/** The body an integrator sent before the payer's phone and address were required. */
export function legacyBody(): Record<string, unknown> {
  const body = pixBody({ reference: 'legacy-1' });
  const { phone: _p, address: _a, ...customer } = body.customer as Record<string, unknown>;
  return { ...body, customer };
}

/** Writes the old record as the gateway stored it: the key's claim, the reservation and its issuance. */
export async function seedLegacyPix(
  ctx: SeedContext,
  key: SeededKey,
  idempotencyKey: string,
): Promise<string> {
  const deps = commandDeps(ctx);
  const body = legacyBody();
  const transactionId = newId('txn');
  const request = { tenant_id: key.tenantId, method: 'pix' as const, ...body, expires_in: 3600 };
  const reserve: ReserveTransaction = {
    kind: 'reserve',
    transactionId,
    tenantId: key.tenantId,
    livemode: false,
    method: 'pix',
    amount: body.amount as number,
    reference: body.reference as string,
    description: body.description as string,
    costCenterId: null,
    callbackUrl: null,
    providerId: null,
    subaccountId: null,
    environment: 'sandbox',
    simulated: true,
    idempotencyKeySha256: sha256Hex(idempotencyKey),
    expiresIn: 3600,
    boleto: null,
    request: request as ReserveTransaction['request'],
    providerRequest: null,
  };
  await claimIdempotencyKey(
    deps,
    {
      scope: key.tenantId,
      key: idempotencyKey,
      method: 'POST',
      route: '/v1/pix',
      body: request,
      resourceId: transactionId,
      payload: { reserve: JSON.parse(JSON.stringify(reserve)) as JsonValue },
    },
    metadata,
  );
  const stream = transactionStream(transactionId);
  await handleCommand(deps, transaction, stream, reserve, { metadata });
  const artifacts = simulatedArtifacts({
    transactionId,
    method: 'pix',
    amount: reserve.amount,
    reference: reserve.reference,
    description: reserve.description,
    customer: {},
    expiresIn: 3600,
    boleto: null,
    providerRequest: null,
    now: new Date(),
  });
  await handleCommand(deps, transaction, stream, { kind: 'record_issued', artifacts }, { metadata });
  return transactionId;
}
