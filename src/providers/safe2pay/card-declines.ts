import type { Diagnostics } from '../../aggregates/transaction.ts';

/**
 * A refused card charge's diagnostics (issue 25 item 3; wire doc wave 2b §1.8). Safe2Pay publishes no
 * `CreditCard.ReturnCode` table; its acquirer is in the Cielo group (§1.6), so the codes read as Cielo's.
 * SPEC 2.2 wants `provider_error_code` as 1 to 10 digits: a numeric return code goes there as given ("05"
 * keeps its zero); an alphanumeric one (`N7`, `AA`...) never does, and becomes one of the static texts below.
 * The provider's `Message`/`MessageProvider` is never read (SPEC 2.2 rule 3: no provider text).
 */

const DECLINED =
  'O emissor recusou o cartão; peça outro cartão ou outro meio de pagamento. / The issuer declined the card; ask for another card or payment method.';

/** Known return codes, numeric and alphanumeric (Cielo's meanings, wire doc wave 2b §1.8-1.9). */
const GUIDANCE: Readonly<Record<string, string>> = {
  '05': DECLINED,
  '51': 'Saldo ou limite insuficiente no cartão. / Insufficient funds or limit on the card.',
  '54': 'Cartão vencido. / The card has expired.',
  '57': 'O emissor não permite esta transação para o cartão. / The issuer does not allow this transaction on the card.',
  '70': 'Problema com o cartão; o portador deve contatar o emissor. / Problem with the card; the holder should contact the issuer.',
  '77': 'Cartão cancelado. / The card is cancelled.',
  '78': 'Cartão bloqueado. / The card is blocked.',
  '91': 'Emissor indisponível; tente mais tarde. / The issuer is unavailable; try later.',
  '96': 'Falha no processamento do emissor; tente mais tarde. / The issuer failed to process it; try later.',
  '99': 'Tempo esgotado no emissor; tente mais tarde. / The issuer timed out; try later.',
  N7: 'O código de segurança não foi aceito. / The security code was not accepted.',
  AA: 'Tempo esgotado na autorização; tente mais tarde. / The authorization timed out; try later.',
  AC: 'Cartão de débito usado como crédito. / A debit card was used as credit.',
  GA: 'Recusado pela análise de risco do adquirente. / Refused by the acquirer’s risk analysis.',
};

/** `ReturnCode` as text when it has the shape of a code (the Z22 SDK types it as a number). */
function returnCodeText(value: unknown): string | null {
  const text = typeof value === 'number' && Number.isInteger(value) ? String(value) : value;
  if (typeof text !== 'string') return null;
  const trimmed = text.trim().toUpperCase();
  return /^[0-9A-Z]{1,10}$/.test(trimmed) ? trimmed : null;
}

export function declineDiagnostics(returnCode: unknown, httpStatus: number | null): Diagnostics {
  const code = returnCodeText(returnCode);
  const numeric = code !== null && /^[0-9]{1,10}$/.test(code);
  return {
    provider_error_code: numeric ? code : null,
    provider_error_message: (code === null ? undefined : GUIDANCE[code]) ?? DECLINED,
    provider_http_status:
      httpStatus !== null && Number.isInteger(httpStatus) && httpStatus >= 100 && httpStatus <= 599
        ? httpStatus
        : null,
  };
}
