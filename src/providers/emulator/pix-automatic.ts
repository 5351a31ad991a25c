import { randomUUID } from 'node:crypto';
import { wireCentavos, wireReais } from './amounts.ts';
import type { Fault } from './faults.ts';
import { pixAutomaticRoutes } from './pix-automatic-routes.ts';
import {
  COBR_MOVES,
  type CobRInput,
  type CobRMove,
  type EmulatedCobR,
  type EmulatedRec,
  type Invalid,
  isoDate,
  type PixAutomaticStore,
  REC_MOVES,
  REFUSAL_CODES,
  type RecBody,
  type RecMove,
  type Refusal,
  recCalendar,
} from './pix-automatic-state.ts';
import { isRecord, type Route, type WireAnswer, type WireRequest } from './wire.ts';

/**
 * The provider's Pix Automatic wire, v3 (issue 27 item 5; wire doc wave 2b §3.5, §7.3, §7.7), over the state
 * of pix-automatic-state.ts. Seen only in third-party code, so the emulator follows that evidence and, where
 * it is silent, the assumptions of docs/decisions.md "Pix Automatic (issue 27): the provider's wire":
 *
 * - REST status codes, no `HasError`: `201 {traceId, data}` for a creation, `200 {traceId, data}` for a read
 *   or a revoke, `4xx {traceId, ErrorCode, Error}` (camelCase: `code`, `message`) for a refusal.
 * - Answers in PascalCase (`Id`, `Status`, `QrData.PixCopyAndPaste`) or camelCase (`id`, `status`,
 *   `qrData.pixCopyAndPaste`), as the control API's `casing` says: the sources read both.
 * - A create body with `ImmediatePayment` is journey 3 (a first payment at the QR), without it journey 2.
 * - UNKNOWN in the wire and offered here: `GET …/chargeSchedules/{id}` and `GET …/chargeSchedules?reference=`.
 *   The schedule's `Id` is the BCB `txid`, the authorization's `Id` the BCB `idRec` (pass-through).
 */

const V3 = /^\/v3\/pix\/automatic\/authorizations(?:\/([^/]+)(?:\/(chargeSchedules)(?:\/([^/]+))?)?)?$/i;

/** The v3 answer of `data` in the store's casing. */
function v3(store: PixAutomaticStore, status: number, data: unknown): WireAnswer {
  return {
    status,
    json: { traceId: randomUUID(), data: store.casing === 'camel' ? camel(data) : data },
  };
}

function v3Error(store: PixAutomaticStore, status: number, code: string, message: string): WireAnswer {
  return {
    status,
    json:
      store.casing === 'camel'
        ? { traceId: randomUUID(), code, message }
        : { traceId: randomUUID(), ErrorCode: code, Error: message },
  };
}

function refusalAnswer(store: PixAutomaticStore, refusal: Refusal): WireAnswer {
  switch (refusal.kind) {
    case 'not_found':
      return v3Error(store, 404, REFUSAL_CODES.notFound, 'Recurso não encontrado.');
    case 'invalid':
      return v3Error(store, 400, REFUSAL_CODES.invalid, `${refusal.property}: ${refusal.reason}`);
    case 'operation':
      return v3Error(store, 422, refusal.code, refusal.reason);
  }
}

/** Keys with their first letter lower-cased, all the way down (`QrData.PixCopyAndPaste` → `qrData.pixCopyAndPaste`). */
function camel(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camel);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k.charAt(0).toLowerCase() + k.slice(1), camel(v)]),
  );
}

export function authorizationView(rec: EmulatedRec): Record<string, unknown> {
  return {
    Id: rec.idRec,
    Status: rec.status,
    Journey: rec.journey,
    Contract: {
      Name: rec.name,
      Description: rec.object,
      Customer: { Identity: rec.debtor.document, Name: rec.debtor.name },
    },
    Calendar: { StartDate: rec.firstDate, Periodicity: rec.periodicity, RetryPolicy: rec.retryPolicy },
    Amount: { Fixed: wireReais(rec.amount) },
    QrData: { PixCopyAndPaste: rec.pixCopyPaste, QrCode: `https://${rec.location}.png` },
    DeepLink: `https://${rec.location}`,
    ...(rec.immediatePayment
      ? {
          ImmediatePayment: {
            IdTransaction: rec.immediatePayment.id,
            Amount: wireReais(rec.immediatePayment.amount),
            Reference: rec.immediatePayment.reference,
          },
        }
      : {}),
    CreatedAt: rec.createdAt,
  };
}

export function scheduleView(cobr: EmulatedCobR): Record<string, unknown> {
  return {
    Id: cobr.txid,
    AuthorizationId: cobr.idRec,
    Status: cobr.status,
    Reference: cobr.reference,
    Calendar: { DueDate: cobr.dueDate },
    Amount: wireReais(cobr.amount),
    AdditionalInformation: cobr.info,
    SettlementDate: cobr.settlementDate,
    CreatedAt: cobr.createdAt,
  };
}

const text = (v: unknown, max: number) => typeof v === 'string' && v.trim() !== '' && v.length <= max;

/** The v3 create body (wire doc §3.5), or what is wrong with it. */
function createInput(body: Record<string, unknown>, today: string): Invalid | RecBody {
  const contract = body.Contract;
  if (!isRecord(contract) || !text(contract.Name, 140))
    return { property: 'Contract.Name', reason: 'obrigatório (1 a 140)' };
  if (contract.Description !== undefined && contract.Description !== null && !text(contract.Description, 140))
    return { property: 'Contract.Description', reason: 'até 140 caracteres' };
  const customer = contract.Customer;
  if (
    !isRecord(customer) ||
    !text(customer.Name, 140) ||
    !/^(?:[0-9]{11}|[0-9]{14})$/.test(String(customer.Identity))
  )
    return { property: 'Contract.Customer', reason: 'Name e Identity (CPF ou CNPJ) obrigatórios' };
  const calendar = body.Calendar;
  if (!isRecord(calendar)) return { property: 'Calendar', reason: 'obrigatório' };
  const terms = recCalendar(today, {
    firstDate: ['Calendar.StartDate', calendar.StartDate],
    periodicity: ['Calendar.Periodicity', calendar.Periodicity],
    retryPolicy: ['Calendar.RetryPolicy', calendar.RetryPolicy],
  });
  if ('property' in terms) return terms;
  const fixed = isRecord(body.Amount) ? wireCentavos(body.Amount.Fixed) : null;
  if (fixed === null || fixed < 1) return { property: 'Amount.Fixed', reason: 'valor positivo em reais' };
  let immediatePayment: { amount: number; reference: string | null } | null = null;
  if (body.ImmediatePayment !== undefined && body.ImmediatePayment !== null) {
    const ip = body.ImmediatePayment;
    const amount = isRecord(ip) ? wireCentavos(ip.Amount) : null;
    if (!isRecord(ip) || amount === null || amount < 1)
      return { property: 'ImmediatePayment.Amount', reason: 'valor positivo em reais' };
    immediatePayment = { amount, reference: typeof ip.Reference === 'string' ? ip.Reference : null };
  }
  return {
    contract: null,
    name: contract.Name as string,
    object: typeof contract.Description === 'string' ? contract.Description : null,
    debtor: { document: String(customer.Identity), name: customer.Name as string },
    ...terms,
    amount: fixed,
    immediatePayment,
  };
}

/** The v3 schedule body (wire doc §3.5). */
function scheduleInput(body: Record<string, unknown>): Invalid | CobRInput {
  if (!text(body.Reference, 60)) return { property: 'Reference', reason: 'obrigatório (1 a 60)' };
  const due = isRecord(body.Calendar) ? isoDate(body.Calendar.DueDate) : null;
  if (!due) return { property: 'Calendar.DueDate', reason: 'YYYY-MM-DD' };
  const amount = wireCentavos(body.Amount);
  if (amount === null || amount < 1) return { property: 'Amount', reason: 'valor positivo em reais' };
  const info = body.AdditionalInformation;
  if (info !== undefined && info !== null && (typeof info !== 'string' || info.length > 140))
    return { property: 'AdditionalInformation', reason: 'até 140 caracteres' };
  return {
    reference: body.Reference as string,
    dueDate: due,
    amount,
    info: typeof info === 'string' ? info : null,
  };
}

/** Routes a v3 Pix Automatic request (payment host); null when the path is not one of them. */
export function routePixAutomatic(req: WireRequest, store: PixAutomaticStore): Route | null {
  if (req.host === 'api') return null;
  const m = V3.exec(req.path);
  if (!m) return null;
  const [, id, schedules, scheduleId] = m;
  const method = req.method.toUpperCase();
  const body = isRecord(req.body) ? req.body : {};
  const env = req.environment;
  const routes = pixAutomaticRoutes(store, env, {
    via: 'v3',
    refuse: (refusal) => refusalAnswer(store, refusal),
    rec: (status, rec) => v3(store, status, authorizationView(rec)),
    cobr: (status, cobr) => v3(store, status, scheduleView(cobr)),
  });

  if (id === undefined) {
    if (method !== 'POST') return null;
    return routes.createRec((today) => createInput(body, today));
  }
  const rec = store.rec(id, env);
  if (schedules === undefined) {
    if (method === 'GET') return routes.readRec(id, rec);
    if (method === 'DELETE') return routes.revoke(id, rec);
    return null;
  }
  if (scheduleId === undefined) {
    if (method === 'POST')
      return routes.schedule(typeof body.Reference === 'string' ? body.Reference : id, () => {
        if (!rec) return { kind: 'not_found' };
        const input = scheduleInput(body);
        return 'property' in input ? { kind: 'invalid', ...input } : { rec, input };
      });
    if (method === 'GET') {
      const reference = [...req.query].find(([k]) => k.toLowerCase() === 'reference')?.[1] ?? null;
      return {
        chargeId: null,
        operation: 'pixauto_schedule_list',
        reference: reference ?? id,
        reads: true,
        run() {
          if (!rec) return refusalAnswer(store, { kind: 'not_found' });
          const list = store
            .cobrsOf(rec.idRec)
            .filter((c) => reference === null || c.reference === reference)
            .map(scheduleView);
          return v3(store, 200, list);
        },
      };
    }
    return null;
  }
  if (method !== 'GET') return null;
  const cobr = store.cobr(scheduleId, env);
  const own = rec && cobr && cobr.idRec === rec.idRec ? cobr : undefined;
  return routes.readCobR(cobr?.reference ?? scheduleId, own);
}

/** Whether an answer is a v3 one (`{traceId, data}`), which server.ts's fault shaping leaves to {@link shapeV3}. */
export function isV3Answer(answer: WireAnswer): boolean {
  return answer.json !== null && 'traceId' in answer.json && 'data' in answer.json;
}

/** An answer-shaping fault applied to a v3 answer's `data` (or each listed item), in whichever casing it has. */
export function shapeV3(answer: WireAnswer, fault: Fault): WireAnswer {
  const json = answer.json;
  if (!json) return answer;
  const items = Array.isArray(json.data) ? json.data.map((o) => ({ ...(o as object) })) : null;
  if (!items && !isRecord(json.data)) return answer;
  const targets: Record<string, unknown>[] = items ?? [{ ...(json.data as Record<string, unknown>) }];
  const key = (t: Record<string, unknown>, pascal: string) => {
    const lower = pascal.charAt(0).toLowerCase() + pascal.slice(1);
    return lower in t ? lower : pascal;
  };
  for (const t of targets) {
    if (fault.type === 'status') t[key(t, 'Status')] = fault.status;
    if (fault.type === 'override') t[fault.field] = fault.value;
    if (fault.type === 'omit') {
      delete t[fault.field];
      delete t[fault.field.charAt(0).toLowerCase() + fault.field.slice(1)];
    }
    if (fault.type === 'disagree') {
      if (fault.field === 'amount') {
        const k = key(t, 'Amount');
        const c = wireCentavos(t[k]);
        if (c !== null) t[k] = wireReais(c + 1);
      }
      if (fault.field === 'reference') t[key(t, 'Reference')] = `${String(t[key(t, 'Reference')])}-outra`;
      if (fault.field === 'id') t[key(t, 'Id')] = `${String(t[key(t, 'Id')])}x`;
    }
  }
  return { status: answer.status, json: { ...json, data: items ?? targets[0] } };
}

/** The Pix Automatic control API under `/_emulator/pix-automatic/` (docs/provider-emulator.md); null: not one. */
export function pixAutomaticControl(
  store: PixAutomaticStore,
  method: string,
  path: string,
  query: URLSearchParams,
  body: Record<string, unknown>,
): { status: number; json: unknown } | null {
  if (!path.startsWith('/pix-automatic/')) return null;
  const sub = path.slice('/pix-automatic'.length);
  const recView = (r: EmulatedRec) => ({ ...r, debits: store.cobrsOf(r.idRec) });
  if (method === 'POST' && sub === '/settings') {
    if (body.casing !== 'pascal' && body.casing !== 'camel')
      return { status: 400, json: { error: 'casing must be pascal or camel' } };
    store.casing = body.casing;
    return { status: 200, json: { casing: store.casing } };
  }
  if (method === 'POST' && sub === '/clock') {
    const today = body.today === null ? null : isoDate(body.today);
    if (today === null && body.today !== null)
      return { status: 400, json: { error: 'today must be YYYY-MM-DD or null' } };
    store.pinnedToday = today;
    return { status: 200, json: { today: store.today(), pinned: today !== null } };
  }
  if (method === 'GET' && sub === '/authorizations') {
    return { status: 200, json: { authorizations: store.recs().map(recView) } };
  }
  const auth = /^\/authorizations\/([^/]+)(\/move)?$/.exec(sub);
  if (auth?.[1]) {
    const rec = store.rec(auth[1], null);
    if (!rec) return { status: 404, json: { error: 'no such authorization' } };
    if (method === 'GET' && !auth[2]) return { status: 200, json: { authorization: recView(rec) } };
    if (method === 'POST' && auth[2]) {
      if (!REC_MOVES.includes(body.to as RecMove))
        return { status: 400, json: { error: `to must be one of ${REC_MOVES.join(', ')}` } };
      const problem = store.moveRec(rec, body.to as RecMove);
      if (problem) return { status: 409, json: { error: problem } };
      return { status: 200, json: { authorization: recView(rec) } };
    }
    return null;
  }
  if (method === 'GET' && sub === '/debits') {
    const reference = query.get('reference');
    const list = store
      .recs()
      .flatMap((r) => store.cobrsOf(r.idRec))
      .filter((c) => reference === null || c.reference === reference);
    return { status: 200, json: { debits: list } };
  }
  const debit = /^\/debits\/([^/]+)\/move$/.exec(sub);
  if (debit?.[1] && method === 'POST') {
    const cobr = store.cobr(debit[1], null);
    if (!cobr) return { status: 404, json: { error: 'no such debit' } };
    if (!COBR_MOVES.includes(body.to as CobRMove))
      return { status: 400, json: { error: `to must be one of ${COBR_MOVES.join(', ')}` } };
    const settlement = body.settlementDate === undefined ? null : isoDate(body.settlementDate);
    if (body.settlementDate !== undefined && settlement === null)
      return { status: 400, json: { error: 'settlementDate must be YYYY-MM-DD' } };
    const problem = store.moveCobR(cobr, body.to as CobRMove, settlement);
    if (problem) return { status: 409, json: { error: problem } };
    return { status: 200, json: { debit: cobr } };
  }
  return null;
}
