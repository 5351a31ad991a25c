/**
 * F6's race phase (issue 22 item 1, issue 23 item 2.1): 50 refunds at once on one paid Pix, and 50 due-date
 * changes at once (50 dates) on one open boleto, each request with its own Idempotency-Key, on several
 * charges, while the emulator answers refunds and due-date changes slowly, with resets or with 503 now and
 * then. Reserve -> call -> record (SPEC 3.1, 4.8) must let exactly one operation per charge reach the
 * provider: every other request answers 409 refund_in_progress / change_in_progress (or, after the first was
 * recorded, the state as it is), none a 5xx, and once the charges are refreshed the gateway and the emulator
 * agree (refunded iff status 6; the due date the emulator holds).
 */
import type { Fault, Operation } from '../src/providers/emulator/faults.ts';
import type { ProviderEmulator } from '../src/providers/emulator/server.ts';
import { emulatorControl } from '../test/support/emulator-control.ts';
import { Counter, call } from './support.ts';

/** Requests per charge, all sent at once (the external review's burst). */
export const RACE_WIDTH = 50;
/** Charges raced per kind. */
const RACED_CHARGES = 5;

type Mix = [probability: number, fault: Fault, commit?: boolean][];

/** Slow answers widen the window in flight; resets and 503s leave a change uncertain (never sent again). */
const CHANGE_FAULTS: Mix = [
  [0.4, { type: 'latency', ms: 800 }],
  [0.15, { type: 'reset' }],
  [0.15, { type: 'http_error', status: 503 }, true],
];

export interface RaceResult {
  /** Charges raced (refunds, due dates). */
  refundCharges: number;
  dueDateCharges: number;
  answers: Counter;
  /** Answers that are neither the change nor the documented 409: a 5xx, another code. */
  unexpected: string[];
  /** Charges whose operations at the emulator outnumber the accepted intents (a refund: more than one). */
  doubled: string[];
  /** Charges where the gateway and the emulator disagree after a refresh. */
  diverging: string[];
}

interface RemoteDetail {
  reference: string;
  status: number;
  boleto: { dueDate: string } | null;
}

async function remoteOf(emulator: ProviderEmulator, reference: string): Promise<RemoteDetail | undefined> {
  const res = await fetch(`${emulator.url}/_emulator/charges`);
  const { charges } = (await res.json()) as { charges: RemoteDetail[] };
  return charges.find((c) => c.reference === reference);
}

function saoPauloDatePlus(days: number): string {
  return new Date(Date.now() - 3 * 3_600_000 + days * 86_400_000).toISOString().slice(0, 10);
}

export async function raceChanges(opts: {
  baseUrl: string;
  apiKey: string;
  emulator: ProviderEmulator;
  /** Local charges after settling: the paid Pix and open boletos to race. */
  charges: readonly { id: string; status: string; method: 'pix' | 'boleto' }[];
  prefix: string;
}): Promise<RaceResult> {
  const control = emulatorControl(opts.emulator.url);
  for (const operation of ['refund', 'change_due_date'] as Operation[]) {
    for (const [probability, fault, commit] of CHANGE_FAULTS) {
      await control.fault({ operation, times: null, probability, fault, ...(commit ? { commit } : {}) });
    }
  }
  const paidPix = opts.charges
    .filter((c) => c.method === 'pix' && c.status === 'paid')
    .slice(0, RACED_CHARGES);
  const openBoletos = opts.charges
    .filter((c) => c.method === 'boleto' && c.status === 'pending')
    .slice(0, RACED_CHARGES);
  const result: RaceResult = {
    refundCharges: paidPix.length,
    dueDateCharges: openBoletos.length,
    answers: new Counter(),
    unexpected: [],
    doubled: [],
    diverging: [],
  };
  const headers = (key: string) => ({ 'x-api-key': opts.apiKey, 'idempotency-key': key });

  const race = async (
    id: string,
    operation: 'refund' | 'change_due_date',
    send: (i: number) => ReturnType<typeof call>,
  ) => {
    const answers = await Promise.all(Array.from({ length: RACE_WIDTH }, (_, i) => send(i)));
    const allowed = operation === 'refund' ? 'refund_in_progress' : 'change_in_progress';
    for (const a of answers) {
      result.answers.add(`${operation} ${a.status}${a.code === '-' ? '' : ` ${a.code}`}`);
      const ok = a.status === 200 || a.status === 202 || (a.status === 409 && a.code === allowed);
      if (!ok) result.unexpected.push(`${id} ${operation}: ${a.status} ${a.code}`);
    }
    // A refund is sent at most once. Due dates differ per request, so a request arriving after the first
    // change was recorded is a change of its own: one call per change answered (200, 202, a 502 refusal).
    const sent = (await control.calls({ reference: id, operation })).length;
    const answered = answers.filter((a) => a.status === 200 || a.status === 202 || a.status === 502).length;
    const ok = operation === 'refund' ? sent <= 1 : sent === answered;
    if (!ok) result.doubled.push(`${id} ${operation}: ${sent} calls for ${answered} changes answered`);
  };

  await Promise.all([
    ...paidPix.map((c) =>
      race(c.id, 'refund', (i) =>
        call(opts.baseUrl, 'POST', `/v1/transactions/${c.id}/refund`, {
          headers: headers(`${opts.prefix}-refund-${c.id}-${i}`),
        }),
      ),
    ),
    ...openBoletos.map((c) =>
      race(c.id, 'change_due_date', (i) =>
        call(opts.baseUrl, 'PATCH', `/v1/transactions/${c.id}/boleto`, {
          headers: headers(`${opts.prefix}-due-${c.id}-${i}`),
          json: { due_date: saoPauloDatePlus(10 + i) },
        }),
      ),
    ),
  ]);

  // The faults off, a refresh brings what an uncertain answer left pending (it reads, never sends).
  await fetch(`${opts.emulator.url}/_emulator/faults`, { method: 'DELETE' });
  for (const c of [...paidPix, ...openBoletos]) {
    const refreshed = await call(opts.baseUrl, 'POST', `/v1/transactions/${c.id}/refresh`, {
      headers: { 'x-api-key': opts.apiKey },
    });
    const local = (refreshed.body as { data?: { status: string; boleto_due_date: string | null } } | null)
      ?.data;
    const remote = await remoteOf(opts.emulator, c.id);
    const agrees =
      local !== undefined &&
      remote !== undefined &&
      (c.method === 'pix'
        ? (local.status === 'refunded') === (remote.status === 6)
        : local.boleto_due_date === remote.boleto?.dueDate);
    if (!agrees) {
      result.diverging.push(
        `${c.id}: refresh ${refreshed.status} ${local ? `${local.status} ${local.boleto_due_date}` : refreshed.code}; emulator ${remote ? `${remote.status} ${remote.boleto?.dueDate ?? ''}` : 'none'}`,
      );
    }
  }
  return result;
}
