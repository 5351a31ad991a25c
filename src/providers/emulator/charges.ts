import { wireReais } from './amounts.ts';
import { boletoNumbers, boletoRegistration } from './boleto.ts';
import { BRAND_CODES, type KeptCard } from './cards.ts';
import { dynamicPixPayload } from './pix.ts';

/**
 * The emulator's own charges, in memory, and how they read on the wire (wire doc 2.5, 2.6, 2.10). Amounts are
 * kept in integer centavos and rendered as decimal reais only in the answers, like the real provider.
 */

/** Wire doc 2.15 names, used as `Message` in the answers. */
export const STATUS_NAMES: Readonly<Record<number, string>> = {
  1: 'Pendente',
  2: 'Processamento',
  3: 'Autorizado',
  4: 'Disponível',
  5: 'Em disputa',
  6: 'Devolvido',
  7: 'Baixado',
  8: 'Recusado',
  11: 'Liberado',
  12: 'Em cancelamento',
  13: 'Chargeback',
  14: 'Pré-autorizado',
};

export interface EmulatedCharge {
  readonly id: number;
  reference: string;
  readonly method: 'pix' | 'boleto' | 'credit_card';
  readonly amount: number;
  readonly sandbox: boolean;
  /** Issue 28: the subaccount whose token issued it (subaccounts.ts); null: the key's own account. */
  readonly account: number | null;
  readonly description: string;
  readonly createdOn: string;
  status: number;
  /** How it was paid: the `PaymentMethod` a read shows ("1" boleto, "6" its Pix, "2" a card). */
  paidWith: 'boleto' | 'pix' | 'credit_card' | null;
  /** Both the boleto and its Pix were paid and the Pix is not returned yet (SPEC 2.2: reported as boleto). */
  duplicatePayment: boolean;
  paymentDate: string | null;
  readonly pix: { readonly key: string; readonly qrCode: string } | null;
  boleto: {
    dueDate: string;
    digitableLine: string;
    barcode: string;
    readonly url: string;
    readonly bankSlipNumber: string;
    readonly keyPix: string;
    readonly qrCodePix: string;
    /** Queries left before the attached Pix shows (late Pix fault); 0 = visible. */
    pixHiddenFor: number;
  } | null;
  /** A card charge (cards.ts): its last four digits and brand only, the decline code of a refusal. */
  readonly card: {
    readonly last4: string;
    readonly brand: string;
    readonly installments: number;
    readonly returnCode: string | null;
  } | null;
}

export const BANK = '001';

/** Bank 001's free field for the charge's nosso número (boleto.ts); a new due date changes only the factor. */
function freeField(id: number): string {
  return boletoRegistration(id).freeField;
}

export class ChargeStore {
  #charges = new Map<number, EmulatedCharge>();
  #next = 1_000_001;
  readonly #publicBase: string;

  constructor(publicBase: string) {
    this.#publicBase = publicBase;
  }

  create(input: {
    reference: string;
    method: 'pix' | 'boleto' | 'credit_card';
    amount: number;
    sandbox: boolean;
    description: string;
    dueDate: string | null;
    today: string;
    account?: number | null;
    card?: { readonly kept: KeptCard; readonly installments: number; readonly status: number };
  }): EmulatedCharge {
    const id = this.#next++;
    let boleto: EmulatedCharge['boleto'] = null;
    let pix: EmulatedCharge['pix'] = null;
    if (input.method === 'boleto') {
      const dueDate = input.dueDate ?? input.today;
      const numbers = boletoNumbers(BANK, input.amount, dueDate, freeField(id));
      const attached = dynamicPixPayload();
      boleto = {
        dueDate,
        digitableLine: numbers.digitableLine,
        barcode: numbers.barcode,
        url: `${this.#publicBase}/boleto/${id}.pdf`,
        bankSlipNumber: boletoRegistration(id).ourNumber,
        keyPix: attached.key,
        qrCodePix: `${this.#publicBase}/qr/${id}-boleto.png`,
        pixHiddenFor: 0,
      };
    } else if (input.method === 'pix') {
      pix = { key: dynamicPixPayload().key, qrCode: `${this.#publicBase}/qr/${id}.png` };
    }
    const kept = input.card?.kept;
    const card =
      input.card && kept
        ? {
            last4: kept.last4,
            brand: kept.brand,
            installments: input.card.installments,
            returnCode: kept.outcome.kind === 'refused' ? kept.outcome.returnCode : '00',
          }
        : null;
    const status = input.card?.status ?? 1;
    const authorized = status === 3;
    const charge: EmulatedCharge = {
      id,
      reference: input.reference,
      method: input.method,
      amount: input.amount,
      sandbox: input.sandbox,
      account: input.account ?? null,
      description: input.description,
      createdOn: input.today,
      status,
      paidWith: authorized ? 'credit_card' : null,
      duplicatePayment: false,
      paymentDate: authorized ? input.today : null,
      pix,
      boleto,
      card,
    };
    this.#charges.set(id, charge);
    return charge;
  }

  /** Wire doc 2.7 `Command 1`: a new due date gives a new due factor, so new barcode and line. */
  changeDueDate(charge: EmulatedCharge, dueDate: string): void {
    if (!charge.boleto) return;
    const numbers = boletoNumbers(BANK, charge.amount, dueDate, freeField(charge.id));
    charge.boleto.dueDate = dueDate;
    charge.boleto.barcode = numbers.barcode;
    charge.boleto.digitableLine = numbers.digitableLine;
  }

  get(id: number): EmulatedCharge | undefined {
    return this.#charges.get(id);
  }

  byReference(reference: string): EmulatedCharge[] {
    return [...this.#charges.values()].filter((c) => c.reference === reference);
  }

  all(): EmulatedCharge[] {
    return [...this.#charges.values()];
  }

  clear(): void {
    this.#charges.clear();
  }
}

function brDate(date: string): string {
  const [y, m, d] = date.split('-');
  return `${d}/${m}/${y}`;
}

/** The boleto fields of a creation answer and of a read's `PaymentObject` (wire doc 2.6, LEO's newer shape). */
function boletoFields(c: EmulatedCharge, showPix: boolean): Record<string, unknown> {
  const b = c.boleto;
  if (!b) return {};
  return {
    BankSlipNumber: b.bankSlipNumber,
    DueDate: brDate(b.dueDate),
    DigitableLine: b.digitableLine,
    Barcode: b.barcode,
    BankSlipUrl: b.url,
    KeyPix: showPix ? b.keyPix : null,
    QrCodePix: showPix ? b.qrCodePix : null,
  };
}

/** A card answer's `CreditCard` (wire doc wave 2b §1.3, LEO's `CreditCardResponseDetail`): masked, never whole. */
function cardFields(card: NonNullable<EmulatedCharge['card']>): Record<string, unknown> {
  return {
    CardNumber: `************${card.last4}`,
    Brand: BRAND_CODES[card.brand] ?? 0,
    Installments: card.installments,
    ReturnCode: card.returnCode,
    MessageProvider: card.returnCode === '00' ? 'Transação autorizada' : 'Transação não autorizada',
  };
}

/** `ResponseDetail` of `POST /v2/Payment` (creation or boleto change); `token` for a card answer (§1.2). */
export function creationDetail(c: EmulatedCharge, token: string | null = null): Record<string, unknown> {
  const base = {
    IdTransaction: c.id,
    Status: c.status,
    Message: STATUS_NAMES[c.status] ?? '',
    Description: c.description,
  };
  if (c.card) {
    return {
      ...base,
      ...(token ? { Token: token } : {}),
      Tid: `emu${c.id}`,
      AuthorizationCode: c.status === 3 ? String(c.id).slice(-6) : null,
      CreditCard: cardFields(c.card),
    };
  }
  if (c.pix) return { ...base, QrCode: c.pix.qrCode, Key: c.pix.key };
  return {
    ...base,
    ...boletoFields(c, c.boleto?.pixHiddenFor === 0),
    OperationDate: brDate(c.createdOn),
    BankName: 'Banco do Brasil',
    CodeBank: BANK,
    // Wire doc 2.6: the registration's FEBRABAN fields (nosso número, agência/código, carteira...).
    ...(c.boleto ? boletoRegistration(c.id).answer : {}),
  };
}

/** `ResponseDetail` of `GET /v2/Transaction/Get` and an item of `/Transaction/Reference` (wire doc 2.10). */
export function readDetail(c: EmulatedCharge): Record<string, unknown> {
  const paidByPix = c.paidWith === 'pix';
  return {
    IdTransaction: c.id,
    Status: c.status,
    Message: STATUS_NAMES[c.status] ?? '',
    Application: 'Calebe',
    Description: c.description,
    Reference: c.reference,
    IsSandbox: c.sandbox,
    CreatedDate: c.createdOn,
    PaymentDate: c.paymentDate,
    Amount: wireReais(c.amount),
    // Emulator convention (the wire doc names the field, not its meaning): what the payer paid in total, so a
    // boleto paid by both the boleto and its Pix reads twice its amount until its Pix is returned.
    AmountPayment: c.paymentDate === null ? null : wireReais(c.duplicatePayment ? 2 * c.amount : c.amount),
    // Emulator convention (the wire doc shows no field for it): a boleto paid by its Pix reads as method 6.
    PaymentMethod: c.card ? '2' : c.method === 'pix' || paidByPix ? '6' : '1',
    PaymentObject: c.card
      ? cardFields(c.card)
      : c.pix
        ? { QrCode: c.pix.qrCode, Key: c.pix.key }
        : boletoFields(c, c.boleto?.pixHiddenFor === 0),
  };
}
