import { type AskedCharge, pixAutomaticRoutes } from './pix-automatic-routes.ts';
import {
  type EmulatedCobR,
  type EmulatedRec,
  type Invalid,
  isoDate,
  type PixAutomaticStore,
  type RecBody,
  type Refusal,
  recCalendar,
} from './pix-automatic-state.ts';
import { isRecord, type Route, type WireAnswer, type WireRequest } from './wire.ts';

/**
 * The Banco Central's view of the same Pix Automatic state (issue 27: "make the emulator speak both"; wire doc
 * wave 2b §3.2-3.4; BCB Pix API `openapi.yaml` v2.9.0): `POST /rec`, `GET|PATCH /rec/{idRec}`,
 * `PUT|GET|PATCH /cobr/{txid}`, with BCB field names, string reais and RFC 7807 errors. A recurrence made
 * through v3 reads here and the other way round: pix-automatic-state.ts keeps BCB names and states.
 *
 * The emulator's simplifications, docs/provider-emulator.md "Pix Automatic": the same `X-API-KEY` as every
 * other route stands for the PSP's OAuth2 token; `POST /cobr` (txid chosen by the PSP), lists, `/solicrec`,
 * `/locrec`, retries and webhooks are not served.
 */

const BCB_ERROR = 'https://pix.bcb.gov.br/api/v2/error/';

/** Centavos as the BCB writes money: a string of reais with two decimals, `"\d{1,10}\.\d{2}"`. */
function bcbReais(centavos: number): string {
  const t = String(centavos).padStart(3, '0');
  return `${t.slice(0, -2)}.${t.slice(-2)}`;
}

/** `"\d{1,10}\.\d{2}"` to centavos; null for anything else (a number included: the BCB sends strings). */
function bcbCentavos(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const m = /^([0-9]{1,10})\.([0-9]{2})$/.exec(value);
  return m ? Number(m[1]) * 100 + Number(m[2]) : null;
}

function problem(type: string, status: number, title: string, detail: string, property?: string): WireAnswer {
  return {
    status,
    json: {
      type: `${BCB_ERROR}${type}`,
      title,
      status,
      detail,
      ...(property ? { violacoes: [{ razao: detail, propriedade: property }] } : {}),
    },
  };
}

function refusal(r: Refusal, object: 'Rec' | 'CobR'): WireAnswer {
  switch (r.kind) {
    case 'not_found':
      return problem(`${object}NaoEncontrada`, 404, `${object} não encontrada`, 'Não encontrada.');
    case 'invalid':
      return problem('SchemaInvalido', 400, 'Requisição inválida', r.reason, r.property);
    case 'operation':
      return problem(`${object}OperacaoInvalida`, 400, `${object} inválida`, r.reason);
  }
}

function debtor(document: string, name: string) {
  return { [document.length === 11 ? 'cpf' : 'cnpj']: document, nome: name };
}

export function recView(rec: EmulatedRec): Record<string, unknown> {
  const closing = rec.rejection
    ? { encerramento: { rejeicao: { codigo: rec.rejection.codigo, descricao: 'Recusada pelo pagador.' } } }
    : rec.cancellation
      ? { encerramento: { cancelamento: { ...rec.cancellation, descricao: 'Cancelada.' } } }
      : {};
  return {
    idRec: rec.idRec,
    status: rec.status,
    valor: { valorRec: bcbReais(rec.amount) },
    vinculo: {
      contrato: rec.contract,
      ...(rec.object ? { objeto: rec.object.slice(0, 35) } : {}),
      devedor: debtor(rec.debtor.document, rec.debtor.name),
    },
    calendario: { dataInicial: rec.firstDate, periodicidade: rec.periodicity },
    politicaRetentativa: rec.retryPolicy,
    recebedor: { cnpj: '12345678000195', nome: 'RECEBEDOR EMULADOR' },
    loc: { id: 1, location: rec.location, idRec: rec.idRec },
    atualizacao: rec.updates,
    ativacao: {
      tipoJornada: rec.journey,
      ...(rec.immediatePayment ? { dadosJornada: { txid: rec.immediatePayment.id } } : {}),
    },
    dadosQR: { jornada: rec.journey, pixCopiaECola: rec.pixCopyPaste },
    ...closing,
  };
}

export function cobrView(cobr: EmulatedCobR, rec: EmulatedRec): Record<string, unknown> {
  const paid = cobr.status === 'CONCLUIDA';
  const attempt =
    cobr.status === 'CRIADA'
      ? 'SOLICITADA'
      : cobr.status === 'ATIVA'
        ? 'AGENDADA'
        : paid
          ? 'PAGA'
          : cobr.status;
  return {
    idRec: cobr.idRec,
    txid: cobr.txid,
    calendario: { criacao: cobr.createdAt, dataDeVencimento: cobr.dueDate },
    status: cobr.status,
    valor: { original: bcbReais(cobr.amount) },
    politicaRetentativa: rec.retryPolicy,
    ajusteDiaUtil: true,
    ...(cobr.info ? { infoAdicional: cobr.info } : {}),
    atualizacao: cobr.updates,
    tentativas: [
      {
        tipo: 'AGND',
        status: attempt,
        dataLiquidacao: cobr.dueDate,
        ...(paid ? { endToEndId: `E12345678${cobr.txid.slice(0, 23)}` } : {}),
        ...(cobr.rejection ? { rejeicao: { codigo: cobr.rejection.codigo, descricao: 'Recusada.' } } : {}),
      },
    ],
    ...(paid
      ? {
          pix: [
            {
              endToEndId: `E12345678${cobr.txid.slice(0, 23)}`,
              txid: cobr.txid,
              valor: bcbReais(cobr.amount),
              horario: `${cobr.settlementDate}T12:00:00.000-03:00`,
            },
          ],
        }
      : {}),
    ...(cobr.rejection ? { encerramento: { rejeicao: { codigo: cobr.rejection.codigo } } } : {}),
    ...(cobr.cancellation ? { encerramento: { cancelamento: cobr.cancellation } } : {}),
  };
}

/** `RecSolicitada` (wire doc §3.3), or what is wrong with it. */
function recInput(body: Record<string, unknown>, today: string): Invalid | RecBody {
  const v = body.vinculo;
  if (!isRecord(v) || typeof v.contrato !== 'string' || v.contrato === '' || v.contrato.length > 35)
    return { property: 'vinculo.contrato', reason: 'obrigatório, até 35 caracteres' };
  const d = v.devedor;
  const document = isRecord(d) ? (d.cpf ?? d.cnpj) : undefined;
  if (
    !isRecord(d) ||
    typeof d.nome !== 'string' ||
    d.nome === '' ||
    d.nome.length > 140 ||
    !/^(?:[0-9]{11}|[0-9]{14})$/.test(String(document))
  )
    return { property: 'vinculo.devedor', reason: 'cpf ou cnpj e nome obrigatórios' };
  if (v.objeto !== undefined && (typeof v.objeto !== 'string' || v.objeto.length > 35))
    return { property: 'vinculo.objeto', reason: 'até 35 caracteres' };
  const c = isRecord(body.calendario) ? body.calendario : {};
  const calendar = recCalendar(today, {
    firstDate: ['calendario.dataInicial', c.dataInicial],
    periodicity: ['calendario.periodicidade', c.periodicidade],
    retryPolicy: ['politicaRetentativa', body.politicaRetentativa],
  });
  if ('property' in calendar) return calendar;
  const amount = isRecord(body.valor) ? bcbCentavos(body.valor.valorRec) : null;
  if (amount === null || amount < 1)
    return { property: 'valor.valorRec', reason: 'valor fixo "\\d{1,10}\\.\\d{2}"' };
  const a = body.ativacao;
  const txid = isRecord(a) && isRecord(a.dadosJornada) ? a.dadosJornada.txid : undefined;
  return {
    contract: v.contrato,
    name: v.contrato,
    object: typeof v.objeto === 'string' ? v.objeto : null,
    debtor: { document: String(document), name: d.nome },
    ...calendar,
    amount,
    // Journey 3: an immediate charge (`ativacao.dadosJornada.txid`) is paid with the approval.
    immediatePayment: typeof txid === 'string' && txid !== '' ? { amount, reference: txid } : null,
  };
}

/** A `PUT /cobr/{txid}` body (wire doc §3.4): its recurrence and the charge's terms, or what is wrong with it. */
function cobrInput(
  txid: string,
  body: Record<string, unknown>,
  store: PixAutomaticStore,
  env: WireRequest['environment'],
): Invalid | AskedCharge {
  if (!/^[0-9A-Za-z]{26,35}$/.test(txid)) return { property: 'txid', reason: '26 a 35 alfanuméricos' };
  const rec = typeof body.idRec === 'string' ? store.rec(body.idRec, env) : undefined;
  if (!rec) return { property: 'idRec', reason: 'recorrência inexistente' };
  const due = isRecord(body.calendario) ? isoDate(body.calendario.dataDeVencimento) : null;
  if (!due) return { property: 'calendario.dataDeVencimento', reason: 'YYYY-MM-DD' };
  const amount = isRecord(body.valor) ? bcbCentavos(body.valor.original) : null;
  if (amount === null) return { property: 'valor.original', reason: '"\\d{1,10}\\.\\d{2}"' };
  const info = typeof body.infoAdicional === 'string' ? body.infoAdicional.slice(0, 140) : null;
  return { rec, input: { txid, reference: null, dueDate: due, amount, info } };
}

/** BCB `PATCH` bodies may only cancel. */
const CANCEL_ONLY: Refusal = { kind: 'invalid', property: 'status', reason: 'somente CANCELADA' };

/** Routes a BCB `/rec` or `/cobr` request; null when the path is not one of them. */
export function routeBcb(req: WireRequest, store: PixAutomaticStore): Route | null {
  const m = /^\/(rec|cobr)(?:\/([^/]+))?$/i.exec(req.path);
  if (!m) return null;
  const kind = (m[1] ?? '').toLowerCase();
  const id = m[2];
  const method = req.method.toUpperCase();
  const body = isRecord(req.body) ? req.body : {};
  const env = req.environment;
  const recOf = (c: EmulatedCobR) => store.rec(c.idRec, env) as EmulatedRec;
  const routes = pixAutomaticRoutes(store, env, {
    via: 'bcb',
    refuse: refusal,
    rec: (status, rec) => ({ status, json: recView(rec) }),
    cobr: (status, cobr) => ({ status, json: cobrView(cobr, recOf(cobr)) }),
  });
  const cancelling = body.status === 'CANCELADA' ? null : CANCEL_ONLY;

  if (kind === 'rec') {
    if (id === undefined) {
      if (method !== 'POST') return null;
      return routes.createRec((today) => recInput(body, today));
    }
    const rec = store.rec(id, env);
    if (method === 'GET') return routes.readRec(id, rec);
    if (method === 'PATCH') return routes.revoke(id, rec, cancelling);
    return null;
  }

  if (id === undefined) return null;
  const cobr = store.cobr(id, env);
  if (method === 'PUT')
    return routes.schedule(id, () => {
      const asked = cobrInput(id, body, store, env);
      return 'property' in asked ? { kind: 'invalid', ...asked } : asked;
    });
  if (method === 'GET') return routes.readCobR(cobr?.reference ?? id, cobr);
  if (method === 'PATCH')
    return {
      chargeId: null,
      operation: 'pixauto_schedule_cancel',
      reference: cobr?.reference ?? id,
      run() {
        if (!cobr) return refusal({ kind: 'not_found' }, 'CobR');
        if (cancelling) return refusal(cancelling, 'CobR');
        const done = store.cancelCobR(cobr);
        return 'kind' in done ? refusal(done, 'CobR') : { status: 200, json: cobrView(done, recOf(done)) };
      },
    };
  return null;
}
