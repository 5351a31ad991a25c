import assert from 'node:assert/strict';
import type { Fault, Operation } from '../../src/providers/emulator/faults.ts';
import {
  type ChargeCase,
  chargeRequest,
  type ExternalProviderWorld,
  keyOf,
  transactionIdOf,
} from './external-provider.ts';
import type { TestResponse } from './http.ts';

/**
 * Small steps over the gateway and the provider emulator for the refresh and reconciler tests of issue 13
 * (SPEC 3.1, 4.6): create, refresh, read, and what the emulator saw.
 */
export function externalCharges(world: ExternalProviderWorld) {
  async function create(
    c: ChargeCase,
    fault?: { fault: Fault; commit?: boolean },
  ): Promise<{ res: TestResponse; id: string }> {
    if (fault) {
      await world.control.fault({
        operation: 'create',
        fault: fault.fault,
        ...(fault.commit === undefined ? {} : { commit: fault.commit }),
      });
    }
    const res = await chargeRequest(world, c).send();
    return { res, id: transactionIdOf(res) };
  }

  /** An issued (pending) charge and its external id. */
  async function pending(c: ChargeCase): Promise<{ id: string; providerReference: string }> {
    const { res, id } = await create(c);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.status, 'pending');
    return { id, providerReference: res.body.data.provider_reference };
  }

  function refresh(c: ChargeCase, id: string): Promise<TestResponse> {
    return world.app.request('POST', `/v1/transactions/${id}/refresh`, {
      headers: { 'x-api-key': keyOf(world, c) },
    });
  }

  async function read(c: ChargeCase, id: string) {
    const res = await world.app.request('GET', `/v1/transactions/${id}`, {
      headers: { 'x-api-key': keyOf(world, c) },
    });
    assert.equal(res.status, 200, res.text);
    return res.body.data;
  }

  /** How many wire calls of this operation the emulator received for the charge (its reference). */
  async function calls(id: string, operation: Operation): Promise<number> {
    return (await world.control.calls({ reference: id, operation })).length;
  }

  /** The emulator's own record of the charges carrying this reference. */
  async function remote(id: string) {
    const res = await fetch(`${world.emulator.url}/_emulator/charges?reference=${encodeURIComponent(id)}`);
    const json = (await res.json()) as {
      charges: Array<{
        id: number;
        status: number;
        duplicatePayment: boolean;
        boleto: { keyPix: string } | null;
      }>;
    };
    return json.charges;
  }

  /** The charge's events, oldest first (type, data and who wrote them). */
  async function events(id: string) {
    return world.app.gateway.store.read(`transaction-${id}`);
  }

  return { create, pending, refresh, read, calls, remote, events };
}
