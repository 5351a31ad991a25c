import type { Diagnostics } from '../../aggregates/transaction.ts';
import type {
  OutcomeReason,
  PayoutQueryTarget,
  PayoutRequest,
  PayoutState,
  PayoutsCapability,
  Refused,
  Uncertain,
} from '../port.ts';
import { sanitizeDiagnostics } from '../port.ts';
import { bankData, validBankAccount } from './bank-account.ts';
import type { CapabilityWire } from './capability-wire.ts';
import { diagnosticsFor } from './diagnostics.ts';
import { centavosToReais, reaisToCentavos } from './money.ts';
import { idOf, isRecord } from './wire-values.ts';

/**
 * Payouts over Safe2Pay's transfer API (issue 22 item 4.2; wire doc wave 2b §5.2-5.3, §7.5): one register per
 * lot, TED, funded from the account balance (`IsUseCheckingAccount: true`). Creation goes to the payment host
 * (`POST /v2/Transfer`, OFF-NET and OFF-PHP), reads to the API host (`Transfer/Get`, `Transfer/List`), with the
 * adapter's envelope interpretation (`interpret` in adapter.ts). The bank account is sent and never put in an
 * outcome, a diagnostic or an error: diagnostics are the static texts below or diagnostics.ts's.
 */

/** Static guidance for the payout-only refusals (SPEC 2.2 rules 2-3: never the provider's text). */
const FUNDED_BY_BOLETO =
  'O provedor pediu um boleto do lojista para financiar a transferência; ela não foi feita e não será mostrada como feita. Conclua o reembolso pelo painel. / The provider asked for a merchant boleto to fund the transfer; it was not made and is never shown as done. Complete the refund in the panel.';
const INVALID_REQUEST =
  'Dados da transferência inválidos; nada foi enviado. / Invalid transfer data; nothing was sent.';

/** Transfer/List page size, and how many pages a reconciliation reads before it gives up as uncertain. */
const ROWS_PER_PAGE = 100;
const MAX_PAGES = 50;

function refused(
  reason: OutcomeReason,
  httpStatus: number | null,
  diagnostics: Diagnostics = diagnosticsFor(reason, null, httpStatus),
  providerReference: string | null = null,
): Refused {
  return { kind: 'refused', reason, providerReference, diagnostics };
}

function uncertain(
  reason: OutcomeReason,
  httpStatus: number | null,
  providerReference: string | null = null,
): Uncertain {
  return {
    kind: 'uncertain',
    reason,
    providerReference,
    providerStatus: null,
    diagnostics: diagnosticsFor(reason, null, httpStatus),
  };
}

const filled = (value: unknown) => typeof value === 'string' && value.trim() !== '';

/** What the adapter checks before sending: anything else is refused locally, nothing sent. */
function validRequest(input: PayoutRequest): boolean {
  return (
    Number.isSafeInteger(input.amount) &&
    input.amount > 0 &&
    input.identification.length >= 1 &&
    input.identification.length <= 100 &&
    input.receiverName.trim().length >= 1 &&
    input.receiverName.trim().length <= 200 &&
    /^(?:[0-9A-Za-z]{11}|[0-9A-Za-z]{14})$/.test(input.receiverDocument) &&
    /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(input.compensationDate) &&
    validBankAccount(input.bankAccount)
  );
}

/** Wire doc §5.2 `TransferRegisterLot` with one `TransferRegister`. */
export function transferBody(input: PayoutRequest): Record<string, unknown> {
  return {
    IsUseCheckingAccount: true,
    TransferRegisters: [
      {
        ReceiverName: input.receiverName.trim(),
        Identity: input.receiverDocument.toUpperCase(),
        Amount: centavosToReais(input.amount),
        Identification: input.identification,
        CompensationDate: input.compensationDate,
        BankData: bankData(input.bankAccount),
      },
    ],
  };
}

interface RegisterRead {
  readonly id: string;
  readonly identification: string | null;
  readonly amount: number | null;
  readonly state: PayoutState;
  readonly confirmation: string | null;
  readonly returnReason: string | null;
}

/** A confirmation is kept only as printable ASCII without spaces, at most 100 characters. */
function confirmationOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  return /^[\x21-\x7e]{1,100}$/.test(text) ? text : null;
}

/**
 * `BankingTransferOccurrenceReason` has no known shape (wire doc §5.2 UNKNOWN): a code (text or number), an
 * object with `Code`, or a list of those. Only a code of 1 to 10 letters or digits is kept, never a text.
 */
function reasonCodeOf(value: unknown): string | null {
  if (Array.isArray(value)) return value.length > 0 ? reasonCodeOf(value[0]) : null;
  if (isRecord(value)) return reasonCodeOf(value.Code ?? value.code);
  const text = typeof value === 'number' && Number.isInteger(value) ? String(value) : value;
  return typeof text === 'string' && /^[0-9A-Za-z]{1,10}$/.test(text.trim()) ? text.trim() : null;
}

/** A register as `Transfer/Get` or an item of `Transfer/List` shows it (OFF-NET `TransferResponse`). */
function registerRead(value: unknown, http: number): RegisterRead | Uncertain {
  if (!isRecord(value)) return uncertain('incomplete', http);
  const id = idOf(value.Id);
  if (!id) return uncertain('incomplete', http);
  const transferred = value.IsTransferred;
  const returned = value.IsReturned ?? false;
  if (typeof transferred !== 'boolean' || typeof returned !== 'boolean')
    return uncertain('unparsable', http, id);
  const base = {
    id,
    identification: typeof value.Identification === 'string' ? value.Identification : null,
    amount: reaisToCentavos(value.Amount),
  };
  // A TED can be confirmed and later returned by the receiving bank: returned wins, the money came back.
  if (returned) {
    return {
      ...base,
      state: 'returned',
      confirmation: null,
      returnReason: reasonCodeOf(value.BankingTransferOccurrenceReason),
    };
  }
  if (transferred) {
    // Wire doc §5.3: transferred is proven by `HashConfirmation`; without it nothing is taken as done.
    const confirmation = confirmationOf(value.HashConfirmation);
    if (!confirmation) return uncertain('incomplete', http, id);
    return { ...base, state: 'transferred', confirmation, returnReason: null };
  }
  return { ...base, state: 'processing', confirmation: null, returnReason: null };
}

export function createSafe2PayPayouts({ paymentHost, apiHost, call }: CapabilityWire): PayoutsCapability {
  return {
    async payout(input, ctx) {
      if (!validRequest(input)) {
        return refused('not_supported', null, sanitizeDiagnostics({ guidance: INVALID_REQUEST }));
      }
      const result = await call(ctx, 'POST', `${paymentHost}/v2/Transfer`, transferBody(input));
      if (!('ok' in result)) return result;
      const http = result.httpStatus;
      if (!isRecord(result.detail)) return uncertain('incomplete', http);
      const lot = result.detail;
      const lotId = idOf(lot.Id);
      // A lot the merchant must fund by boleto (not balance-funded): never a refund in progress (wire doc §5.3).
      if (filled(lot.BankSlipUrl) || filled(lot.DigitableLine) || lot.IsUseCheckingAccount === false) {
        return refused(
          'not_supported',
          http,
          sanitizeDiagnostics({ httpStatus: http, guidance: FUNDED_BY_BOLETO }),
          lotId,
        );
      }
      // The register's own id when the answer lists it; else the lot's `Id` (a one-register lot; INFERRED).
      if (Array.isArray(lot.TransferRegisters)) {
        const ours = lot.TransferRegisters.filter(
          (r) => isRecord(r) && r.Identification === input.identification,
        );
        const register = ours.length === 1 ? ours[0] : undefined;
        const id = isRecord(register) ? idOf(register.Id) : null;
        if (!isRecord(register) || !id) return uncertain('incomplete', http, lotId);
        // Only what identifies it is read here; its state is what queryPayout reads. An amount, when given,
        // must be ours: a register for another amount is not the payout asked for.
        if (register.Amount !== undefined && reaisToCentavos(register.Amount) !== input.amount) {
          return uncertain('mismatch', http, id);
        }
        return { kind: 'issued', transferId: id };
      }
      if (!lotId) return uncertain('incomplete', http);
      return { kind: 'issued', transferId: lotId };
    },

    async queryPayout(target: PayoutQueryTarget, ctx) {
      const url = `${apiHost}/v2/Transfer/Get?Id=${encodeURIComponent(target.transferId)}`;
      const result = await call(ctx, 'GET', url);
      if (!('ok' in result)) return result;
      const read = registerRead(result.detail, result.httpStatus);
      if ('kind' in read) return read;
      // Issue 22 section 2: an answer about another transfer, reference or amount proves nothing.
      if (
        read.id !== target.transferId ||
        read.identification !== target.identification ||
        read.amount !== target.amount
      ) {
        return uncertain('mismatch', result.httpStatus, target.transferId);
      }
      return {
        kind: 'issued',
        state: read.state,
        confirmation: read.confirmation,
        returnReason: read.returnReason,
      };
    },

    async findPayout(identification, ctx) {
      const found = new Set<string>();
      let seen = 0;
      for (let page = 1; page <= MAX_PAGES; page++) {
        const url = `${apiHost}/v2/Transfer/List?PageNumber=${page}&RowsPerPage=${ROWS_PER_PAGE}`;
        const result = await call(ctx, 'GET', url);
        if (!('ok' in result)) return result;
        const detail = result.detail;
        if (!isRecord(detail) || !Array.isArray(detail.Objects))
          return uncertain('incomplete', result.httpStatus);
        for (const item of detail.Objects) {
          if (!isRecord(item)) return uncertain('incomplete', result.httpStatus);
          if (item.Identification !== identification) continue;
          const id = idOf(item.Id);
          if (!id) return uncertain('incomplete', result.httpStatus);
          found.add(id);
        }
        seen += detail.Objects.length;
        const total = typeof detail.TotalItems === 'number' ? detail.TotalItems : null;
        const last = detail.Objects.length < ROWS_PER_PAGE || (total !== null && seen >= total);
        if (last) {
          const transferIds = [...found].sort((a, b) =>
            BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0,
          );
          return { kind: 'issued', transferIds };
        }
      }
      // More registers than a reconciliation reads: not "none", so never a reason to send again.
      return uncertain('incomplete', null);
    },
  };
}
