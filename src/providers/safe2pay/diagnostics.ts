import type { Diagnostics } from '../../aggregates/transaction.ts';
import type { OutcomeReason } from '../port.ts';

/**
 * SPEC 2.2 rules 2-3 and SPEC 8: the diagnostics of a provider answer are a sanitized code (1 to 10 digits),
 * an HTTP status (100 to 599) and a message chosen from this static table, never the provider's own
 * `Error`/`Message` text (it can carry personal data such as a CPF or an e-mail).
 */

/**
 * Guidance per Safe2Pay error code the wire doc lists (its section 2.3 and SPEC 2.8; Safe2Pay publishes no code
 * table), each naming the setting or field to fix (issue 23 item 1.6). The emulator's own codes (9001-9005,
 * docs/provider-emulator.md) are deliberately absent: a real provider may use those numbers for anything.
 * Refusals the gateway can foresee (the payer's CPF/CNPJ) are refused before reservation instead
 * (src/http/contract/transactions.ts `EXTERNAL_PROVIDER_PAYER_RULES`), so no charge reaches this table for them.
 */
const BY_CODE: Readonly<Record<string, string>> = {
  '301':
    'O provedor recusou a chave sandbox da matriz (credentials.api_key do provedor): subcontas usam a chave de produção da matriz; cobranças, o token sandbox da subconta. / The provider refused the matrix sandbox key (the provider record credentials.api_key): subaccounts use the matrix production key; charges, the subaccount sandbox token.',
  '300':
    'O provedor só aceita esta operação com a chave da conta matriz (credentials.api_key do provedor). / The provider accepts this operation only with the matrix account key (the provider record credentials.api_key).',
  '1343':
    'O CPF do responsável legal da subconta não passou na verificação do provedor. / The subaccount legal responsible CPF failed the provider check.',
  '1346':
    'Falta um campo obrigatório da subconta (por exemplo a data de nascimento do responsável). / A required subaccount field is missing (for example the responsible birth date).',
  '1273':
    'Taxa Pix da subconta (MerchantSplit do método 6) abaixo do mínimo do provedor, R$ 0,35. / Subaccount Pix fee (MerchantSplit of method 6) below the provider minimum of R$ 0.35.',
};

const BY_REASON: Readonly<Record<OutcomeReason, string>> = {
  provider_error:
    'O provedor recusou a operação; consulte o código do provedor. / The provider refused the operation; see the provider code.',
  credentials_refused:
    'O provedor recusou a credencial deste ambiente. / The provider refused the credential of this environment.',
  credentials_missing:
    'Não há credencial do provedor para este ambiente; nada foi enviado. / No provider credential for this environment; nothing was sent.',
  status_refused:
    'O provedor informou a cobrança como recusada. / The provider reported the charge as refused.',
  not_supported:
    'A API do provedor não oferece esta operação; nada foi enviado. / The provider API does not offer this operation; nothing was sent.',
  timeout:
    'Sem resposta do provedor no prazo; resultado não confirmado. / No provider answer in time; outcome unconfirmed.',
  connection:
    'Conexão com o provedor interrompida; resultado não confirmado. / Connection to the provider broken; outcome unconfirmed.',
  server_error:
    'O provedor respondeu com erro interno; resultado não confirmado. / The provider answered with a server error; outcome unconfirmed.',
  unexpected_http_status:
    'Resposta HTTP inesperada do provedor; resultado não confirmado. / Unexpected HTTP answer from the provider; outcome unconfirmed.',
  unparsable:
    'Resposta do provedor ilegível; resultado não confirmado. / Unreadable provider answer; outcome unconfirmed.',
  incomplete:
    'Resposta do provedor incompleta; resultado não confirmado. / Incomplete provider answer; outcome unconfirmed.',
  unknown_status:
    'Situação da cobrança no provedor não reconhecida; resultado não confirmado. / Unrecognized provider charge status; outcome unconfirmed.',
  invalid_artifacts:
    'Dados de pagamento recebidos do provedor inválidos; resultado não confirmado. / Invalid payment data received from the provider; outcome unconfirmed.',
  mismatch:
    'A resposta do provedor diverge da cobrança (id, valor, referência ou vencimento). / The provider answer differs from the charge (id, amount, reference or due date).',
  interrupted:
    'A operação reservada foi interrompida antes de registrar a resposta do provedor. / The reserved operation was interrupted before the provider answer was recorded.',
  matrix_sandbox_key:
    'O provedor recusou a chave sandbox da conta matriz: subcontas são geridas com a chave de produção da matriz. / The provider refused the matrix account sandbox key: subaccounts are managed with the matrix production key.',
  not_marketplace:
    'A chave usada não é de uma conta matriz de marketplace (nem token de subconta). / The key used is not a marketplace matrix account key (nor a subaccount token).',
  not_applied:
    'As consultas ao provedor mostram que a operação não foi realizada; pode ser pedida de novo. / Provider reads show the operation did not happen; it may be requested again.',
};

function sanitizedCode(code: unknown): string | null {
  const text = typeof code === 'number' && Number.isInteger(code) ? String(code) : code;
  return typeof text === 'string' && /^[0-9]{1,10}$/.test(text.trim()) ? text.trim() : null;
}

function sanitizedStatus(status: number | null): number | null {
  return status !== null && Number.isInteger(status) && status >= 100 && status <= 599 ? status : null;
}

export function diagnosticsFor(reason: OutcomeReason, code: unknown, httpStatus: number | null): Diagnostics {
  const providerCode = sanitizedCode(code);
  const byCode = providerCode === null ? undefined : BY_CODE[providerCode];
  return {
    provider_error_code: providerCode,
    provider_error_message: byCode ?? BY_REASON[reason],
    provider_http_status: sanitizedStatus(httpStatus),
  };
}
