import type { Fault, Operation } from '../../src/providers/emulator/faults.ts';
import type { EmulatorCall, Move } from '../../src/providers/emulator/server.ts';

/** An emulator charge as the control API lists it (a card keeps its last four digits and brand only). */
export interface EmulatedChargeState {
  readonly id: number;
  readonly status: number;
  readonly card?: {
    readonly last4: string;
    readonly brand: string;
    readonly installments: number;
    readonly returnCode: string | null;
  } | null;
}

/**
 * A client of the provider emulator's control API (docs/provider-emulator.md), over a real socket;
 * `controlToken` for an emulator started with one (issue 23 item 2.7).
 */
export function emulatorControl(baseUrl: string, controlToken?: string) {
  async function send(method: string, path: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(controlToken === undefined ? {} : { authorization: `Bearer ${controlToken}` }),
    };
    const res = await fetch(`${baseUrl}/_emulator${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json: unknown = await res.json();
    if (!res.ok) throw new Error(`emulator control ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }
  return {
    async fault(rule: {
      operation?: Operation;
      reference?: string;
      times?: number | null;
      commit?: boolean;
      probability?: number;
      fault: Fault;
    }): Promise<void> {
      await send('POST', '/faults', rule);
    },
    async move(providerReference: string, to: Move, status?: number): Promise<void> {
      await send('POST', `/charges/${providerReference}/move`, {
        to,
        ...(status === undefined ? {} : { status }),
      });
    },
    async calls(filter: { reference?: string; operation?: Operation } = {}): Promise<EmulatorCall[]> {
      const q = new URLSearchParams(filter as Record<string, string>).toString();
      const json = (await send('GET', `/calls${q ? `?${q}` : ''}`)) as { calls: EmulatorCall[] };
      return json.calls;
    },
    async charges(reference: string): Promise<EmulatedChargeState[]> {
      const json = (await send('GET', `/charges?reference=${encodeURIComponent(reference)}`)) as {
        charges: EmulatedChargeState[];
      };
      return json.charges;
    },
    /** The bank moves a payout's transfer (docs/provider-emulator.md "Transfers"). */
    async moveTransfer(
      transferId: string,
      move: { to: 'transferred' | 'returned'; hash?: string; reason?: string },
    ): Promise<void> {
      await send('POST', `/transfers/${transferId}/move`, move);
    },
    /**
     * Issue 25: how the card endpoints answer where the wire doc leaves two behaviours open: a sandbox key's
     * `/v2/token` gives a token or none; `CreditCard/Cancel` answers `true` or `{isCancelled}`.
     */
    async cards(settings: {
      sandboxTokens?: 'returned' | 'withheld';
      cancelAnswer?: 'boolean' | 'object';
    }): Promise<void> {
      await send('POST', '/cards', settings);
    },
    async reset(): Promise<void> {
      await send('POST', '/reset');
    },
  };
}
export type EmulatorControl = ReturnType<typeof emulatorControl>;

/** A payer as the provider port receives it (normalized copies, SPEC 4.1). */
export const portCustomer = {
  name: 'Maria Silva',
  document: '12345678909',
  email: 'maria@example.com',
  phone: '51999998888',
  address: {
    zip_code: '90010000',
    street: 'Rua dos Andradas',
    number: '100',
    district: 'Centro',
    city: 'Porto Alegre',
    state: 'RS',
  },
};
