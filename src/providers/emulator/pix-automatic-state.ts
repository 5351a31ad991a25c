import { randomBytes } from 'node:crypto';
import type { ProviderEnvironment as Environment } from '../port.ts';
import { dynamicPixPayload } from './pix.ts';

/**
 * The emulator's Pix Automatic state (issue 27 item 5; wire doc wave 2b §3.1-3.5, §7.7): recurrences
 * (authorizations) and their recurring charges (debits, BCB `CobR`), kept with the Banco Central's own names
 * and states so the provider's v3 view (pix-automatic.ts) and the BCB view (pix-automatic-bcb.ts) read the
 * same objects directly. Every rule a write must pass lives here, once, for both views.
 *
 * Its calendar is "today" in America/Sao_Paulo (UTC-3, no DST since 2019) unless the control API pins it
 * (`POST /_emulator/pix-automatic/clock`), so the 2-to-10-day window and the "first attempt is today" rule
 * are testable on any day.
 */

export const REC_STATUSES = ['CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA'] as const;
export type RecStatus = (typeof REC_STATUSES)[number];
export const COBR_STATUSES = ['CRIADA', 'ATIVA', 'CONCLUIDA', 'EXPIRADA', 'REJEITADA', 'CANCELADA'] as const;
export type CobRStatus = (typeof COBR_STATUSES)[number];
export const PERIODICITIES = ['SEMANAL', 'MENSAL', 'TRIMESTRAL', 'SEMESTRAL', 'ANUAL'] as const;
export const RETRY_POLICIES = ['NAO_PERMITE', 'PERMITE_3R_7D'] as const;

/** The emulator's ISPB in every `idRec` (8 digits, wire doc §3.3). */
const ISPB = '12345678';

/** `BCB RecOperacaoInvalida` / `CobROperacaoInvalida` and not-found, as one closed set of refusals. */
export type Refusal =
  | { readonly kind: 'not_found' }
  | { readonly kind: 'invalid'; readonly property: string; readonly reason: string }
  /** `CobROperacaoInvalida` / `RecOperacaoInvalida`: valid request, state forbids it. */
  | { readonly kind: 'operation'; readonly code: RefusalCode; readonly reason: string };

/** Why an operation is refused (the emulator's own numbers on the v3 view, docs/provider-emulator.md). */
export const REFUSAL_CODES = {
  invalid: '9002',
  notFound: '9003',
  notApproved: '9010',
  chargeExists: '9011',
  amount: '9012',
  window: '9013',
  revokeAttemptStarted: '9014',
  finalState: '9015',
} as const;
export type RefusalCode = (typeof REFUSAL_CODES)[keyof typeof REFUSAL_CODES];

export interface Update {
  readonly status: string;
  readonly data: string;
}

/** What a recurrence is asked for with, on either wire, and keeps as it was asked. */
interface RecTerms {
  readonly name: string;
  readonly object: string | null;
  readonly debtor: { readonly document: string; readonly name: string };
  readonly firstDate: string;
  readonly periodicity: (typeof PERIODICITIES)[number];
  readonly retryPolicy: (typeof RETRY_POLICIES)[number];
  /** Fixed amount, integer centavos. */
  readonly amount: number;
}

export interface EmulatedRec extends RecTerms {
  readonly idRec: string;
  readonly environment: Environment;
  status: RecStatus;
  /** `JORNADA_2` (QR of the recurrence only) or `JORNADA_3` (an immediate charge at authorization). */
  readonly journey: 'JORNADA_2' | 'JORNADA_3';
  /** BCB `vinculo.contrato`; for a v3 creation, which names none, the emulator derives one from the id. */
  readonly contract: string;
  /** Journey 3: the first payment the provider would charge when the QR is scanned (centavos, reference). */
  readonly immediatePayment: {
    readonly amount: number;
    readonly reference: string | null;
    readonly id: string;
  } | null;
  readonly pixCopyPaste: string;
  readonly location: string;
  readonly createdAt: string;
  readonly via: 'v3' | 'bcb';
  readonly updates: Update[];
  rejection: { readonly codigo: string } | null;
  cancellation: { readonly solicitante: string; readonly codigo: string } | null;
}

export interface EmulatedCobR {
  readonly txid: string;
  readonly idRec: string;
  /** The receiver's reference (v3 `Reference`); null for a BCB `/cobr` without one. */
  readonly reference: string | null;
  readonly dueDate: string;
  readonly amount: number;
  readonly info: string | null;
  status: CobRStatus;
  settlementDate: string | null;
  readonly createdAt: string;
  readonly updates: Update[];
  rejection: { readonly codigo: string } | null;
  cancellation: { readonly solicitante: string; readonly codigo: string } | null;
}

export interface RecInput extends RecTerms {
  readonly environment: Environment;
  readonly via: 'v3' | 'bcb';
  readonly contract: string | null;
  readonly immediatePayment: { readonly amount: number; readonly reference: string | null } | null;
}

/** What is wrong with a request body: the property and why. */
export interface Invalid {
  readonly property: string;
  readonly reason: string;
}

export type RecBody = Omit<RecInput, 'environment' | 'via'>;

export interface CobRInput {
  readonly txid?: string | null;
  readonly reference: string | null;
  readonly dueDate: string;
  readonly amount: number;
  readonly info: string | null;
}

/** A driver of the control API: what the payer, the payer's bank or the settlement does. */
export const REC_MOVES = ['approve', 'reject', 'expire', 'cancel'] as const;
export type RecMove = (typeof REC_MOVES)[number];
export const COBR_MOVES = ['activate', 'pay', 'fail', 'reject', 'cancel'] as const;
export type CobRMove = (typeof COBR_MOVES)[number];

/** The two answer casings of the v3 view (wire doc §3.5: both sources read either). */
export type Casing = 'pascal' | 'camel';

const alnum = (length: number) =>
  Array.from(randomBytes(length), (b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

const FINAL_COBR: readonly CobRStatus[] = ['CONCLUIDA', 'EXPIRADA', 'REJEITADA', 'CANCELADA'];

export class PixAutomaticStore {
  #recs = new Map<string, EmulatedRec>();
  #cobrs = new Map<string, EmulatedCobR>();
  /** The charges of each recurrence, in scheduling order (a scale bench holds 100,000: never a scan). */
  #cobrsByRec = new Map<string, EmulatedCobR[]>();
  /** A pinned "today" (`YYYY-MM-DD`); null follows the real clock. */
  pinnedToday: string | null = null;
  casing: Casing = 'pascal';

  /** Today in America/Sao_Paulo, or the pinned day. */
  today(): string {
    return this.pinnedToday ?? new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);
  }

  /** An instant on the emulator's calendar: now's time of day on its today (for `criacao`, `atualizacao`). */
  #stamp(): string {
    const now = new Date().toISOString();
    return this.pinnedToday === null ? now : `${this.pinnedToday}T${now.slice(11)}`;
  }

  createRec(input: RecInput): EmulatedRec {
    // Wire doc §3.3: `R` + `R|N` (retry policy) + ISPB + yyyyMMdd + 11 alphanumerics = 29 characters.
    const idRec = `R${input.retryPolicy === 'NAO_PERMITE' ? 'N' : 'R'}${ISPB}${this.today().replaceAll('-', '')}${alnum(11)}`;
    const qr = dynamicPixPayload();
    const createdAt = this.#stamp();
    const rec: EmulatedRec = {
      idRec,
      environment: input.environment,
      status: 'CRIADA',
      journey: input.immediatePayment ? 'JORNADA_3' : 'JORNADA_2',
      contract: input.contract ?? `CT${idRec.slice(-11)}`,
      name: input.name,
      object: input.object,
      debtor: input.debtor,
      firstDate: input.firstDate,
      periodicity: input.periodicity,
      retryPolicy: input.retryPolicy,
      amount: input.amount,
      immediatePayment: input.immediatePayment
        ? { ...input.immediatePayment, id: `${Date.now()}${Math.floor(Math.random() * 1000)}` }
        : null,
      pixCopyPaste: qr.key,
      location: qr.location,
      createdAt,
      via: input.via,
      updates: [{ status: 'CRIADA', data: createdAt }],
      rejection: null,
      cancellation: null,
    };
    this.#recs.set(idRec, rec);
    return rec;
  }

  /** A recurrence visible to a key of `environment` (one environment never sees the other's). */
  rec(idRec: string, environment: Environment | null): EmulatedRec | undefined {
    const rec = this.#recs.get(idRec);
    return rec && (environment === null || rec.environment === environment) ? rec : undefined;
  }

  recs(): EmulatedRec[] {
    return [...this.#recs.values()];
  }

  cobr(txid: string, environment: Environment | null): EmulatedCobR | undefined {
    const cobr = this.#cobrs.get(txid);
    if (!cobr) return undefined;
    return this.rec(cobr.idRec, environment) ? cobr : undefined;
  }

  cobrsOf(idRec: string): EmulatedCobR[] {
    return [...(this.#cobrsByRec.get(idRec) ?? [])];
  }

  #set(target: EmulatedRec | EmulatedCobR, status: string): void {
    (target as { status: string }).status = status;
    target.updates.push({ status, data: this.#stamp() });
  }

  /**
   * Schedules one recurring charge (wire doc §3.1, §3.4): the recurrence must be `APROVADA`; the amount its
   * fixed one; the due date 2 to 10 days after today; and no other charge of it on that date unless that one
   * ended `REJEITADA` or `CANCELADA` (BCB `CobROperacaoInvalida`).
   */
  schedule(rec: EmulatedRec, input: CobRInput): EmulatedCobR | Refusal {
    if (rec.status !== 'APROVADA') {
      return {
        kind: 'operation',
        code: REFUSAL_CODES.notApproved,
        reason: 'A recorrência não está aprovada.',
      };
    }
    if (input.amount !== rec.amount) {
      return {
        kind: 'operation',
        code: REFUSAL_CODES.amount,
        reason: 'O valor difere do valor fixo da recorrência.',
      };
    }
    const ahead = daysBetween(this.today(), input.dueDate);
    if (ahead < 2 || ahead > 10) {
      return {
        kind: 'operation',
        code: REFUSAL_CODES.window,
        reason: 'A data de vencimento deve estar entre 2 e 10 dias à frente.',
      };
    }
    const taken = this.cobrsOf(rec.idRec).some(
      (c) => c.dueDate === input.dueDate && c.status !== 'REJEITADA' && c.status !== 'CANCELADA',
    );
    if (taken) {
      return {
        kind: 'operation',
        code: REFUSAL_CODES.chargeExists,
        reason: 'Já existe cobrança desta recorrência para a data.',
      };
    }
    if (input.txid && this.#cobrs.has(input.txid)) {
      return { kind: 'operation', code: REFUSAL_CODES.chargeExists, reason: 'txid já utilizado.' };
    }
    const createdAt = this.#stamp();
    const cobr: EmulatedCobR = {
      txid: input.txid ?? alnum(32),
      idRec: rec.idRec,
      reference: input.reference,
      dueDate: input.dueDate,
      amount: input.amount,
      info: input.info,
      status: 'CRIADA',
      settlementDate: null,
      createdAt,
      updates: [{ status: 'CRIADA', data: createdAt }],
      rejection: null,
      cancellation: null,
    };
    this.#cobrs.set(cobr.txid, cobr);
    const ofRec = this.#cobrsByRec.get(cobr.idRec);
    if (ofRec) ofRec.push(cobr);
    else this.#cobrsByRec.set(cobr.idRec, [cobr]);
    return cobr;
  }

  /**
   * The receiver revokes (v3 `DELETE`, BCB `PATCH /rec` `CANCELADA`). Already cancelled: done again. Rejected
   * or expired: refused (nothing to cancel). Refused while a charge of it is `CRIADA`/`ATIVA` with its due
   * date today or earlier (BCB: no cancelling from the first attempt date); otherwise the charges due later
   * are cancelled by the receiver with it.
   */
  revoke(rec: EmulatedRec): EmulatedRec | Refusal {
    if (rec.status === 'CANCELADA') return rec;
    if (rec.status !== 'CRIADA' && rec.status !== 'APROVADA') {
      return {
        kind: 'operation',
        code: REFUSAL_CODES.finalState,
        reason: 'A recorrência já está encerrada.',
      };
    }
    const today = this.today();
    const open = this.cobrsOf(rec.idRec).filter((c) => c.status === 'CRIADA' || c.status === 'ATIVA');
    if (open.some((c) => c.dueDate <= today)) {
      return {
        kind: 'operation',
        code: REFUSAL_CODES.revokeAttemptStarted,
        reason: 'Há cobrança desta recorrência em tentativa de pagamento.',
      };
    }
    for (const c of open) {
      c.cancellation = { solicitante: 'USUARIO_RECEBEDOR', codigo: 'SLCR' };
      this.#set(c, 'CANCELADA');
    }
    rec.cancellation = { solicitante: 'USUARIO_RECEBEDOR', codigo: 'SLCR' };
    this.#set(rec, 'CANCELADA');
    return rec;
  }

  /** The receiver cancels one charge (BCB `PATCH /cobr`): only before its due date and while open. */
  cancelCobR(cobr: EmulatedCobR): EmulatedCobR | Refusal {
    if (cobr.status === 'CANCELADA') return cobr;
    if (FINAL_COBR.includes(cobr.status)) {
      return { kind: 'operation', code: REFUSAL_CODES.finalState, reason: 'A cobrança já está encerrada.' };
    }
    if (cobr.dueDate <= this.today()) {
      return {
        kind: 'operation',
        code: REFUSAL_CODES.revokeAttemptStarted,
        reason: 'A cobrança não pode ser cancelada a partir da data da primeira tentativa.',
      };
    }
    cobr.cancellation = { solicitante: 'USUARIO_RECEBEDOR', codigo: 'SLCR' };
    this.#set(cobr, 'CANCELADA');
    return cobr;
  }

  /** Control API drivers of a recurrence; an error text when the move is not allowed from its state. */
  moveRec(rec: EmulatedRec, to: RecMove): string | null {
    const from = rec.status;
    switch (to) {
      case 'approve':
        if (from !== 'CRIADA') return `approve needs CRIADA, not ${from}`;
        this.#set(rec, 'APROVADA');
        return null;
      case 'reject':
        if (from !== 'CRIADA') return `reject needs CRIADA, not ${from}`;
        rec.rejection = { codigo: 'AP13' };
        this.#set(rec, 'REJEITADA');
        return null;
      case 'expire':
        if (from !== 'CRIADA') return `expire needs CRIADA, not ${from}`;
        this.#set(rec, 'EXPIRADA');
        return null;
      case 'cancel':
        // The payer cancels in the bank app (BCB `solicitante: USUARIO_PAGADOR`); open charges end with it.
        if (from !== 'CRIADA' && from !== 'APROVADA') return `cancel needs CRIADA or APROVADA, not ${from}`;
        for (const c of this.cobrsOf(rec.idRec)) {
          if (c.status === 'CRIADA' || c.status === 'ATIVA') {
            c.cancellation = { solicitante: 'USUARIO_PAGADOR', codigo: 'CCLD' };
            this.#set(c, 'CANCELADA');
          }
        }
        rec.cancellation = { solicitante: 'USUARIO_PAGADOR', codigo: 'ACCL' };
        this.#set(rec, 'CANCELADA');
        return null;
    }
  }

  /** Control API drivers of a charge; `settlementDate` of a payment defaults to the emulator's today. */
  moveCobR(cobr: EmulatedCobR, to: CobRMove, settlementDate?: string | null): string | null {
    const from = cobr.status;
    const open = from === 'CRIADA' || from === 'ATIVA';
    switch (to) {
      case 'activate':
        if (from !== 'CRIADA') return `activate needs CRIADA, not ${from}`;
        this.#set(cobr, 'ATIVA');
        return null;
      case 'pay':
        if (!open) return `pay needs CRIADA or ATIVA, not ${from}`;
        cobr.settlementDate = settlementDate ?? this.today();
        this.#set(cobr, 'CONCLUIDA');
        return null;
      case 'fail':
        // No funds and `NAO_PERMITE`: no retry, the charge expires (wire doc §3.1).
        if (!open) return `fail needs CRIADA or ATIVA, not ${from}`;
        this.#set(cobr, 'EXPIRADA');
        return null;
      case 'reject':
        if (!open) return `reject needs CRIADA or ATIVA, not ${from}`;
        cobr.rejection = { codigo: 'AM09' };
        this.#set(cobr, 'REJEITADA');
        return null;
      case 'cancel':
        if (!open) return `cancel needs CRIADA or ATIVA, not ${from}`;
        cobr.cancellation = { solicitante: 'USUARIO_PAGADOR', codigo: 'CCLD' };
        this.#set(cobr, 'CANCELADA');
        return null;
    }
  }

  clear(): void {
    this.#recs.clear();
    this.#cobrs.clear();
    this.#cobrsByRec.clear();
    this.pinnedToday = null;
    this.casing = 'pascal';
  }
}

/**
 * A new recurrence's calendar (wire doc §3.3), as either wire asks for it: a real date from today on, one of
 * the periodicities, one of the retry policies. Each field comes as the wire's property name (for a
 * refusal) and the value asked.
 */
export function recCalendar(
  today: string,
  asked: Readonly<Record<'firstDate' | 'periodicity' | 'retryPolicy', readonly [string, unknown]>>,
): Invalid | Pick<RecTerms, 'firstDate' | 'periodicity' | 'retryPolicy'> {
  const firstDate = isoDate(asked.firstDate[1]);
  if (!firstDate || firstDate < today)
    return { property: asked.firstDate[0], reason: 'data futura YYYY-MM-DD' };
  const periodicity = PERIODICITIES.find((p) => p === asked.periodicity[1]);
  if (!periodicity) return { property: asked.periodicity[0], reason: PERIODICITIES.join('|') };
  const retryPolicy = RETRY_POLICIES.find((p) => p === asked.retryPolicy[1]);
  if (!retryPolicy) return { property: asked.retryPolicy[0], reason: RETRY_POLICIES.join('|') };
  return { firstDate, periodicity, retryPolicy };
}

/** `YYYY-MM-DD` that is a real date; null otherwise. */
export function isoDate(value: unknown): string | null {
  if (typeof value !== 'string' || !/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(value)) return null;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value ? value : null;
}
