import { type CardVault, type KeptCard, keptCard, validCard } from './cards.ts';
import { type ChargeStore, creationDetail } from './charges.ts';
import {
  creationRoute,
  EMULATOR_CODES,
  type Endpoint,
  error,
  idParam,
  isPaid,
  isRecord,
  ok,
  type Route,
  routeIn,
  validateCreationBasics,
  visible,
  type WireAnswer,
  type WireRequest,
  wirePath,
} from './wire.ts';

/**
 * The card endpoints the emulator speaks (issue 25; wire doc wave 2b §1.1-1.3, §1.7, §7.7): tokenize, a card
 * charge on `POST /v2/Payment` (`PaymentMethod "2"`, by token or by raw card, which it tokenizes internally),
 * and the integral refund. Reads (`Transaction/Get`, `Transaction/Reference`) and
 * `UpdateSandboxTransaction` (to drive 3 -> 5, 6, 13) are wire.ts's, shared with Pix and boleto. Outcomes
 * follow the test cards of cards.ts.
 */

/** `IsSandbox` must be given and agree with the key (the same rule as every creation). */
function sandboxProblem(body: Record<string, unknown>, req: WireRequest): WireAnswer | null {
  if (typeof body.IsSandbox !== 'boolean') return error(EMULATOR_CODES.invalidBody, 'IsSandbox is required');
  if (body.IsSandbox !== (req.environment === 'sandbox'))
    return error(EMULATOR_CODES.sandboxMismatch, 'IsSandbox não corresponde ao token utilizado.');
  return null;
}

function tokenize(vault: CardVault) {
  return (req: WireRequest): Route => ({
    operation: 'tokenize',
    reference: null,
    chargeId: null,
    run() {
      const body = isRecord(req.body) ? req.body : {};
      const invalid = validCard(body);
      if (invalid) return error(EMULATOR_CODES.invalidBody, invalid);
      const sandbox = sandboxProblem(body, req);
      if (sandbox) return sandbox;
      // Wire doc wave 2b §1.2: two reports say a sandbox key gets no token (`withheld`); the SDKs say it does.
      if (req.environment === 'sandbox' && vault.settings.sandboxTokens === 'withheld')
        return ok({ Token: null });
      return ok({ Token: vault.tokenize(keptCard(body.CardNumber as string), req.environment) });
    },
  });
}

/** The card a charge names: by a token of this environment, or raw (tokenized internally, §1.2). */
function chargedCard(
  po: Record<string, unknown>,
  req: WireRequest,
  vault: CardVault,
): { kept: KeptCard; token: string } | WireAnswer {
  if (po.Token !== undefined && po.Token !== null) {
    const kept = vault.card(po.Token, req.environment);
    if (!kept) return error(EMULATOR_CODES.notFound, 'Token do cartão inválido.');
    return { kept, token: po.Token as string };
  }
  const invalid = validCard(po);
  if (invalid) return error(EMULATOR_CODES.invalidBody, `PaymentObject: ${invalid}`);
  const kept = keptCard(po.CardNumber as string);
  return { kept, token: vault.tokenize(kept, req.environment) };
}

function cardPayment(req: WireRequest, store: ChargeStore, vault: CardVault): Route {
  const body = isRecord(req.body) ? req.body : {};
  return creationRoute(req, body, (reference) => {
    const basics = validateCreationBasics(body);
    if (typeof basics === 'string') return error(EMULATOR_CODES.invalidBody, basics);
    const sandbox = sandboxProblem(body, req);
    if (sandbox) return sandbox;
    const po = body.PaymentObject;
    if (!isRecord(po)) return error(EMULATOR_CODES.invalidBody, 'PaymentObject is required');
    const installments = po.InstallmentQuantity ?? 1;
    if (
      typeof installments !== 'number' ||
      !Number.isInteger(installments) ||
      installments < 1 ||
      installments > 12
    )
      return error(EMULATOR_CODES.invalidBody, 'PaymentObject.InstallmentQuantity must be 1 to 12');
    const card = chargedCard(po, req, vault);
    if ('status' in card) return card;
    const outcome = card.kept.outcome;
    // §1.4: a pre-authorization is status 14 until captured (the emulator has no capture).
    const authorized = po.IsPreAuthorization === true ? 14 : 3;
    const charge = store.create({
      reference: reference ?? '',
      method: 'credit_card',
      amount: basics.amount,
      sandbox: req.environment === 'sandbox',
      description: String((body.Products as Record<string, unknown>[])[0]?.Description ?? ''),
      dueDate: null,
      today: req.today,
      account: req.subaccountId ?? null,
      card: { kept: card.kept, installments, status: outcome.kind === 'refused' ? 8 : authorized },
    });
    const answer = ok(creationDetail(charge, card.token));
    // The timeout card: charged, and the answer never comes (the uncertain case, SPEC 3.1 `unknown`).
    return outcome.kind === 'no_answer' ? { ...answer, hang: true } : answer;
  });
}

/** `DELETE /v2/CreditCard/Cancel/{id}` (wire doc wave 2b §1.7): a paid card charge becomes 6 Devolvido. */
function cancel(vault: CardVault) {
  return (req: WireRequest, store: ChargeStore, match: RegExpExecArray): Route => {
    const id = idParam(match[1]);
    const charge = visible(id === null ? undefined : store.get(id), req.environment);
    return {
      operation: 'refund',
      reference: charge?.reference ?? null,
      chargeId: id,
      run() {
        if (!charge) return error(EMULATOR_CODES.notFound, 'Transação não encontrada.');
        if (!charge.card) return error(EMULATOR_CODES.notAllowed, 'Transação não é de cartão de crédito.');
        const done = isPaid(charge);
        if (done) charge.status = 6;
        return ok(
          vault.settings.cancelAnswer === 'object' ? { IdTransaction: charge.id, isCancelled: done } : done,
        );
      },
    };
  };
}

/** Routes a card request; null leaves it to wire.ts (every other `/v2/Payment` included). */
export function routeCard(req: WireRequest, store: ChargeStore, vault: CardVault): Route | null {
  const body = isRecord(req.body) ? req.body : null;
  const endpoints: Endpoint[] = [
    { method: 'POST', host: 'payment', path: wirePath('/v2/token'), open: tokenize(vault) },
    {
      method: 'DELETE',
      host: 'api',
      path: wirePath('/v2/CreditCard/Cancel/([0-9]{1,15})'),
      open: cancel(vault),
    },
  ];
  // A card creation: method "2" and no real `Id` (an `Id` is a boleto change, wire.ts).
  const isCardCreation =
    body !== null &&
    String(body.PaymentMethod ?? '') === '2' &&
    (body.Id === undefined || body.Id === null || String(body.Id) === '0');
  if (isCardCreation) {
    endpoints.unshift({
      method: 'POST',
      host: 'payment',
      path: wirePath('/v2/Payment'),
      open: (r, s) => cardPayment(r, s, vault),
    });
  }
  return routeIn(endpoints, req, store);
}
