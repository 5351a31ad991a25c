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

/** An emulated Pix Automatic authorization (a BCB recurrence) as the control API shows it (issue 27). */
export interface EmulatedPixAuthorization {
  readonly idRec: string;
  readonly status: string;
  readonly journey: 'JORNADA_2' | 'JORNADA_3';
  readonly amount: number;
  readonly via: 'v3' | 'bcb';
  readonly immediatePayment: { readonly amount: number; readonly reference: string | null } | null;
  readonly cancellation: { readonly solicitante: string; readonly codigo: string } | null;
  readonly debits: readonly EmulatedPixDebit[];
}

/** An emulated debit (a BCB recurring charge) as the control API shows it (issue 27). */
export interface EmulatedPixDebit {
  readonly txid: string;
  readonly idRec: string;
  readonly reference: string | null;
  readonly dueDate: string;
  readonly amount: number;
  readonly status: string;
  readonly settlementDate: string | null;
  readonly cancellation: { readonly solicitante: string; readonly codigo: string } | null;
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
    /** Clears every fault rule, keeping the emulated state and the calls. */
    async clearFaults(): Promise<void> {
      await send('DELETE', '/faults');
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
    /**
     * Issue 27 (docs/provider-emulator.md "Pix Automatic"): the payer or the bank moves an authorization
     * (`approve`, `reject`, `expire`, `cancel` by the payer) by its provider id.
     */
    async moveAuthorization(id: string, to: 'approve' | 'reject' | 'expire' | 'cancel'): Promise<void> {
      await send('POST', `/pix-automatic/authorizations/${encodeURIComponent(id)}/move`, { to });
    },
    /** Issue 27: a debit (schedule) moves: `activate`, `pay` (settlement date: the emulator's today), `fail`, `reject`, `cancel`. */
    async moveDebit(
      id: string,
      to: 'activate' | 'pay' | 'fail' | 'reject' | 'cancel',
      settlementDate?: string,
    ): Promise<void> {
      await send('POST', `/pix-automatic/debits/${encodeURIComponent(id)}/move`, {
        to,
        ...(settlementDate === undefined ? {} : { settlementDate }),
      });
    },
    /** Issue 27: the emulator's Pix Automatic authorization by its provider id (BCB names and states). */
    async pixAuthorization(id: string): Promise<EmulatedPixAuthorization> {
      const json = (await send('GET', `/pix-automatic/authorizations/${encodeURIComponent(id)}`)) as {
        authorization: EmulatedPixAuthorization;
      };
      return json.authorization;
    },
    /** Issue 27: every emulated debit, or those scheduled with `reference`. */
    async pixDebits(reference?: string): Promise<EmulatedPixDebit[]> {
      const q = reference === undefined ? '' : `?reference=${encodeURIComponent(reference)}`;
      const json = (await send('GET', `/pix-automatic/debits${q}`)) as { debits: EmulatedPixDebit[] };
      return json.debits;
    },
    /** Issue 27: the v3 answers' casing (`pascal`: `Id`, `QrData.PixCopyAndPaste`; `camel`: `id`, `qrData...`). */
    async pixCasing(casing: 'pascal' | 'camel'): Promise<void> {
      await send('POST', '/pix-automatic/settings', { casing });
    },
    /** Issue 27: pins the emulator's Pix Automatic "today" (`YYYY-MM-DD`); null follows the real clock. */
    async pixToday(today: string | null): Promise<void> {
      await send('POST', '/pix-automatic/clock', { today });
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
