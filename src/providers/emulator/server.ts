import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { wireCentavos, wireReais } from './amounts.ts';
import { routeCard } from './card-wire.ts';
import { CardVault, maskedCardForCallLog } from './cards.ts';
import { ChargeStore, type EmulatedCharge, readDetail } from './charges.ts';
import { type Fault, FaultBook, OPERATIONS, type Operation } from './faults.ts';
import { isV3Answer, pixAutomaticControl, routePixAutomatic, shapeV3 } from './pix-automatic.ts';
import { routeBcb } from './pix-automatic-bcb.ts';
import { PixAutomaticStore } from './pix-automatic-state.ts';
import {
  callbackBody,
  EMULATOR_MATRIX_SECRET,
  maskedSubaccountForCallLog,
  routeSubaccount,
  SubaccountStore,
  subaccountControl,
} from './subaccounts.ts';
import { maskedForCallLog, routeTransfer, TransferStore, transferControl } from './transfers.ts';
import { type Environment, route, type WireAnswer } from './wire.ts';

/**
 * The provider emulator (DESIGN.md "Providers"; issue 13): a real HTTP server speaking the Safe2Pay v2 wire
 * format on both hosts' paths (`/payment/v2/...` and `/api/v2/...`; bare `/v2/...` answers both), with its
 * own in-memory charges, X-API-KEY checks, fault injection and a control API under `/_emulator/`. The
 * control API is documented in docs/provider-emulator.md. Pix Automatic (issue 27) adds the provider's v3
 * routes (pix-automatic.ts) and the Banco Central's `/rec` and `/cobr` (pix-automatic-bcb.ts) over one state.
 */

export interface EmulatorKeys {
  readonly sandbox: readonly string[];
  readonly production: readonly string[];
  /** Sandbox keys of a marketplace matrix: creation answers code 301 (SPEC 2.8). */
  readonly matrixSandbox: readonly string[];
}

export const DEFAULT_KEYS: EmulatorKeys = {
  sandbox: ['emu-sandbox-key'],
  production: ['emu-production-key'],
  matrixSandbox: ['emu-matrix-sandbox-key'],
};

export interface EmulatorOptions {
  readonly port?: number;
  readonly host?: string;
  readonly keys?: Partial<EmulatorKeys>;
  /** https base of the boleto PDFs and QR images it hands out (never served; a URL the adapter checks). */
  readonly publicBaseUrl?: string;
  /** Source in [0, 1) of the faults' `probability` draws (default Math.random). */
  readonly random?: () => number;
  /**
   * Issue 23 item 2.7: set, every `/_emulator/` request needs `Authorization: Bearer <token>` (401
   * otherwise): the control API lists payers' data and marks charges paid. Unset: open, for tests in-process.
   */
  readonly controlToken?: string;
  /** The Pix Automatic state, when the caller holds it (a scale bench seeds it in-process); else a new one. */
  readonly pixAutomatic?: PixAutomaticStore;
}

/** Whether an Authorization header carries this bearer token (digests compared in constant time). */
function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header ?? '');
  if (!m?.[1]) return false;
  const digest = (v: string) => createHash('sha256').update(v, 'utf8').digest();
  return timingSafeEqual(digest(m[1]), digest(token));
}

export interface EmulatorCall {
  readonly seq: number;
  readonly at: string;
  readonly method: string;
  readonly path: string;
  readonly host: 'payment' | 'api' | 'any';
  readonly operation: Operation | null;
  readonly reference: string | null;
  readonly chargeId: number | null;
  readonly environment: Environment | null;
  readonly body: unknown;
  fault: Fault['type'] | null;
  httpStatus: number | null;
}

export interface ProviderEmulator {
  readonly url: string;
  /** Base for the adapter's payment host. */
  readonly paymentUrl: string;
  /** Base for the adapter's API host. */
  readonly apiUrl: string;
  close(): Promise<void>;
}

export const MOVES = [
  'pending',
  'paid_boleto',
  'paid_pix',
  'paid_both',
  'processing',
  'written_off',
  'refunded',
  'refused',
  'status',
] as const;
export type Move = (typeof MOVES)[number];

/** Today in America/Sao_Paulo (UTC-3, no DST since 2019), the provider's calendar. */
function saoPauloToday(): string {
  return new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);
}

const MAX_BODY = 1024 * 1024;

/**
 * The real host a request without a `/payment` or `/api` prefix was addressed to, by its `Host` header: a
 * client whose base URL is hard-coded (the official Node SDK) reaches the emulator with the provider's host
 * names, and an endpoint asked on the wrong one still gets the router's 404.
 */
function hostOf(header: string | undefined): EmulatorCall['host'] {
  const name = (header ?? '').toLowerCase();
  if (name === 'payment.safe2pay.com.br' || name.startsWith('payment.safe2pay.com.br:')) return 'payment';
  if (name === 'api.safe2pay.com.br' || name.startsWith('api.safe2pay.com.br:')) return 'api';
  return 'any';
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) reject(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, json: unknown): void {
  const text = JSON.stringify(json);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Applies an answer-shaping fault to the envelope's detail (or to each item of a list answer). */
function shape(answer: WireAnswer, fault: Fault): WireAnswer {
  if (isV3Answer(answer)) return shapeV3(answer, fault);
  const json = answer.json;
  if (!json || !isRecord(json.ResponseDetail)) return answer;
  const detail = { ...json.ResponseDetail };
  const items = Array.isArray(detail.Objects)
    ? (detail.Objects as Record<string, unknown>[]).map((o) => ({ ...o }))
    : null;
  const targets = items ?? [detail];
  for (const t of targets) {
    if (fault.type === 'status') t.Status = fault.status;
    if (fault.type === 'override') t[fault.field] = fault.value;
    if (fault.type === 'disagree') {
      if (fault.field === 'amount') {
        const centavos = wireCentavos(t.Amount);
        if (centavos !== null) t.Amount = wireReais(centavos + 1);
      }
      if (fault.field === 'reference') t.Reference = `${String(t.Reference)}-outra`;
      if (fault.field === 'id' && typeof t.IdTransaction === 'number') t.IdTransaction += 1;
    }
    if (fault.type === 'artifacts') {
      const a = isRecord(t.PaymentObject) ? { ...t.PaymentObject } : t;
      if (fault.field === 'url' && typeof a.BankSlipUrl === 'string')
        a.BankSlipUrl = a.BankSlipUrl.replace('https:', 'http:');
      if (fault.field === 'line' && typeof a.DigitableLine === 'string') {
        const d = a.DigitableLine;
        a.DigitableLine = d.slice(0, 20) + String((Number(d[20]) + 1) % 10) + d.slice(21);
      }
      if (fault.field === 'barcode' && typeof a.Barcode === 'string') a.Barcode = a.Barcode.slice(1);
      if (fault.field === 'due_date' && typeof a.DueDate === 'string') a.DueDate = '01/01/2099';
      for (const k of ['Key', 'KeyPix'] as const) {
        if (fault.field === 'pix' && typeof a[k] === 'string') a[k] = `${String(a[k]).slice(0, -4)}0000`;
      }
      if (a !== t) t.PaymentObject = a;
    }
  }
  if (items) detail.Objects = items;
  return { status: answer.status, json: { ...json, ResponseDetail: detail } };
}

export async function startProviderEmulator(options: EmulatorOptions = {}): Promise<ProviderEmulator> {
  const keys: { -readonly [K in keyof EmulatorKeys]: string[] } = {
    sandbox: [...(options.keys?.sandbox ?? DEFAULT_KEYS.sandbox)],
    production: [...(options.keys?.production ?? DEFAULT_KEYS.production)],
    matrixSandbox: [...(options.keys?.matrixSandbox ?? DEFAULT_KEYS.matrixSandbox)],
  };
  const store = new ChargeStore(options.publicBaseUrl ?? 'https://emulador.safe2pay.test');
  const transfers = new TransferStore(options.publicBaseUrl ?? 'https://emulador.safe2pay.test');
  const faults = new FaultBook(options.random);
  const vault = new CardVault();
  const pixAutomatic = options.pixAutomatic ?? new PixAutomaticStore();
  const subaccounts = new SubaccountStore();
  let calls: EmulatorCall[] = [];
  let seq = 0;
  const sockets = new Set<Socket>();

  function environmentOf(
    key: string | undefined,
  ): { env: Environment; matrix: boolean; subaccount: number | null } | null {
    if (!key) return null;
    if (keys.matrixSandbox.includes(key)) return { env: 'sandbox', matrix: true, subaccount: null };
    if (keys.sandbox.includes(key)) return { env: 'sandbox', matrix: false, subaccount: null };
    if (keys.production.includes(key)) return { env: 'production', matrix: false, subaccount: null };
    // Issue 28: a subaccount's own token (SPEC 2.8: sandbox payments use its sandbox token).
    const owner = subaccounts.owner(key);
    return owner ? { env: owner.env, matrix: false, subaccount: owner.id } : null;
  }

  function move(charge: EmulatedCharge, to: Move, status: unknown): string | null {
    const today = saoPauloToday();
    const paid = (withWhat: 'boleto' | 'pix', duplicate: boolean) => {
      charge.status = 3;
      charge.paidWith = withWhat;
      charge.duplicatePayment = duplicate;
      charge.paymentDate = today;
    };
    switch (to) {
      case 'pending':
        charge.status = 1;
        return null;
      case 'paid_boleto':
        if (charge.method !== 'boleto') return 'paid_boleto applies to boleto charges';
        paid('boleto', false);
        return null;
      case 'paid_pix':
        if (charge.method === 'credit_card') return 'paid_pix applies to Pix and boleto charges';
        paid('pix', false);
        return null;
      case 'paid_both':
        // SPEC 2.2: a double payment reads as paid by boleto, `AmountPayment` twice the amount until the
        // gateway returns the Pix (`DELETE /v2/Pix/Cancel/{id}`).
        if (charge.method !== 'boleto') return 'paid_both applies to boleto charges';
        paid('boleto', true);
        return null;
      case 'processing':
        charge.status = 2;
        return null;
      case 'written_off':
        charge.status = 7;
        return null;
      case 'refunded':
        charge.status = 6;
        return null;
      case 'refused':
        charge.status = 8;
        return null;
      case 'status':
        if (typeof status !== 'number' || !Number.isInteger(status)) return 'status must be an integer';
        charge.status = status;
        return null;
    }
  }

  function controlCharge(c: EmulatedCharge): Record<string, unknown> {
    return { ...c, wire: readDetail(c) };
  }

  async function control(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname.slice('/_emulator'.length);
    const text = req.method === 'POST' ? await readBody(req) : '';
    let body: unknown = {};
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        return sendJson(res, 400, { error: 'invalid JSON' });
      }
    }
    const b = isRecord(body) ? body : {};
    if (req.method === 'GET' && path === '/calls') {
      const reference = url.searchParams.get('reference');
      const operation = url.searchParams.get('operation');
      const list = calls.filter(
        (c) =>
          (reference === null || c.reference === reference) &&
          (operation === null || c.operation === operation),
      );
      return sendJson(res, 200, { calls: list });
    }
    if (req.method === 'DELETE' && path === '/calls') {
      calls = [];
      return sendJson(res, 200, { ok: true });
    }
    if (req.method === 'GET' && path === '/faults') return sendJson(res, 200, { faults: faults.list() });
    if (req.method === 'DELETE' && path === '/faults') {
      faults.clear();
      return sendJson(res, 200, { ok: true });
    }
    if (req.method === 'POST' && path === '/faults') {
      const operation = b.operation ?? null;
      if (operation !== null && !OPERATIONS.includes(operation as Operation))
        return sendJson(res, 400, { error: 'unknown operation' });
      if (!isRecord(b.fault) || typeof b.fault.type !== 'string')
        return sendJson(res, 400, { error: 'fault.type required' });
      const times = b.times === undefined ? 1 : b.times;
      if (times !== null && (typeof times !== 'number' || !Number.isInteger(times) || times < 1)) {
        return sendJson(res, 400, { error: 'times must be a positive integer or null' });
      }
      const probability = b.probability === undefined ? 1 : b.probability;
      if (typeof probability !== 'number' || !(probability > 0 && probability <= 1)) {
        return sendJson(res, 400, { error: 'probability must be a number above 0 and at most 1' });
      }
      const rule = faults.add({
        operation: operation as Operation | null,
        reference: typeof b.reference === 'string' ? b.reference : null,
        times,
        fault: b.fault as Fault,
        probability,
        ...(typeof b.commit === 'boolean' ? { commit: b.commit } : {}),
      });
      return sendJson(res, 201, { fault: rule });
    }
    if (req.method === 'GET' && path === '/charges') {
      const reference = url.searchParams.get('reference');
      const list = reference === null ? store.all() : store.byReference(reference);
      return sendJson(res, 200, { charges: list.map(controlCharge) });
    }
    const one = /^\/charges\/([0-9]+)(\/move|\/callback)?$/.exec(path);
    if (one) {
      const charge = store.get(Number(one[1]));
      if (!charge) return sendJson(res, 404, { error: 'no such charge' });
      if (req.method === 'GET' && one[2] === '/callback') {
        // Issue 28 item 6: the body the provider would POST, signed with the charging account's own secret.
        const sub = charge.account === null ? undefined : subaccounts.get(charge.account);
        const secret = sub ? (charge.sandbox ? sub.secretKeySandbox : sub.secretKey) : EMULATOR_MATRIX_SECRET;
        return sendJson(res, 200, { callback: callbackBody(charge, secret) });
      }
      if (req.method === 'GET' && !one[2]) return sendJson(res, 200, { charge: controlCharge(charge) });
      if (req.method === 'POST' && one[2]) {
        const to = b.to;
        if (typeof to !== 'string' || !MOVES.includes(to as Move))
          return sendJson(res, 400, { error: `to must be one of ${MOVES.join(', ')}` });
        const problem = move(charge, to as Move, b.status);
        if (problem) return sendJson(res, 409, { error: problem });
        return sendJson(res, 200, { charge: controlCharge(charge) });
      }
    }
    if (req.method === 'POST' && path === '/keys') {
      for (const k of ['sandbox', 'production', 'matrixSandbox'] as const) {
        const v = b[k];
        if (Array.isArray(v) && v.every((x) => typeof x === 'string')) keys[k] = [...v];
      }
      return sendJson(res, 200, { keys });
    }
    // Issue 25: where the wire doc leaves two behaviours open, which one the card endpoints show.
    if (path === '/cards' && (req.method === 'GET' || req.method === 'POST')) {
      const settings = req.method === 'POST' ? vault.configure(b) : { ...vault.settings };
      if (!settings)
        return sendJson(res, 400, {
          error: 'sandboxTokens must be returned or withheld; cancelAnswer must be boolean or object',
        });
      return sendJson(res, 200, { cards: settings });
    }
    const pix = pixAutomaticControl(pixAutomatic, req.method ?? 'GET', path, url.searchParams, b);
    if (pix) return sendJson(res, pix.status, pix.json);
    const subaccount = subaccountControl(subaccounts, req.method ?? 'GET', path, b);
    if (subaccount) return sendJson(res, subaccount.status, subaccount.json);
    const transfer = transferControl(transfers, req.method ?? 'GET', path, url.searchParams, b);
    if (transfer) return sendJson(res, transfer.status, transfer.json);
    if (req.method === 'POST' && path === '/reset') {
      store.clear();
      transfers.clear();
      vault.clear();
      pixAutomatic.clear();
      subaccounts.clear();
      faults.clear();
      calls = [];
      return sendJson(res, 200, { ok: true });
    }
    return sendJson(res, 404, { error: 'unknown control endpoint' });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://emulator');
    if (url.pathname === '/_emulator' || url.pathname.startsWith('/_emulator/')) {
      if (
        options.controlToken !== undefined &&
        !bearerMatches(req.headers.authorization, options.controlToken)
      ) {
        res.setHeader('www-authenticate', 'Bearer realm="provider emulator control API"');
        return sendJson(res, 401, { error: 'the control API needs Authorization: Bearer <control token>' });
      }
      return control(req, res, url);
    }
    const text = await readBody(req);
    let path = url.pathname;
    let host = hostOf(req.headers.host);
    if (path.startsWith('/payment/')) {
      host = 'payment';
      path = path.slice('/payment'.length);
    } else if (path.startsWith('/api/')) {
      host = 'api';
      path = path.slice('/api'.length);
    }
    let body: unknown = null;
    let bodyOk = true;
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        bodyOk = false;
      }
    }
    const key = req.headers['x-api-key'];
    const who = environmentOf(Array.isArray(key) ? key[0] : key);
    const wire = who
      ? {
          method: req.method ?? 'GET',
          host,
          path,
          query: url.searchParams,
          body,
          environment: who.env,
          matrixSandboxKey: who.matrix,
          subaccountId: who.subaccount,
          today: saoPauloToday(),
        }
      : null;
    const matched = wire
      ? (routePixAutomatic(wire, pixAutomatic) ??
        routeBcb(wire, pixAutomatic) ??
        routeCard(wire, store, vault) ??
        route(wire, store) ??
        routeTransfer(wire, transfers) ??
        routeSubaccount(wire, subaccounts))
      : null;
    const call: EmulatorCall = {
      seq: ++seq,
      at: new Date().toISOString(),
      method: req.method ?? 'GET',
      path: url.pathname + url.search,
      host,
      operation: matched?.operation ?? null,
      reference: matched?.reference ?? null,
      chargeId: matched?.chargeId ?? null,
      environment: who?.env ?? null,
      // Issue 22 item 4.2, issue 25: neither a bank account nor a card (or its token) enters the call log whole.
      body: maskedSubaccountForCallLog(maskedForCallLog(maskedCardForCallLog(body))),
      fault: null,
      httpStatus: null,
    };
    calls.push(call);
    const answer = (a: WireAnswer) => {
      if (a.hang) return; // the socket stays open; close() destroys it
      call.httpStatus = a.status;
      if (a.json === null) {
        res.writeHead(a.status, { 'content-length': 0 });
        res.end();
      } else {
        sendJson(res, a.status, a.json);
      }
    };
    // Wire doc 2.2: an invalid token gives HTTP 401.
    if (!who)
      return answer({
        status: 401,
        json: { HasError: true, ErrorCode: '401', Error: 'Token inválido.', ResponseDetail: null },
      });
    if (!bodyOk)
      return answer({
        status: 400,
        json: { HasError: true, ErrorCode: '9002', Error: 'JSON inválido.', ResponseDetail: null },
      });
    if (!matched) return answer({ status: 404, json: null });

    const rule = faults.take(matched.operation, matched.reference);
    const fault = rule?.fault ?? null;
    call.fault = fault?.type ?? null;
    if (!fault) return answer(matched.run());
    if (fault.type === 'latency') {
      // A write checks and changes the charge now, in the same synchronous step as its routing, so two calls
      // in flight on one charge cannot both pass the check (issue 22 item 3.2); only its answer waits. A read
      // is answered when the delay ends, unless `answerFirst`.
      const early = matched.reads !== true || fault.answerFirst === true ? matched.run() : null;
      await new Promise((r) => setTimeout(r, Math.max(0, Math.min(fault.ms, 60_000))));
      return answer(early ?? matched.run());
    }
    const result = rule?.commit ? matched.run() : null;
    switch (fault.type) {
      case 'no_answer':
        return; // the socket stays open; close() destroys it
      case 'reset':
        req.socket.destroy();
        return;
      case 'truncate': {
        const text = JSON.stringify(
          result?.json ?? { HasError: false, ResponseDetail: { IdTransaction: 1 } },
        );
        call.httpStatus = 200;
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.write(text.slice(0, Math.floor(text.length / 2)));
        setImmediate(() => req.socket.destroy());
        return;
      }
      case 'garbage':
        call.httpStatus = 200;
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><body>502 Bad Gateway</body></html>');
        return;
      case 'http_error':
        call.httpStatus = fault.status;
        res.writeHead(
          fault.status,
          fault.body ? { 'content-type': 'application/json' } : { 'content-length': 0 },
        );
        res.end(fault.body ?? '');
        return;
      case 'has_error':
        return answer({
          status: fault.httpStatus ?? 200,
          json: { HasError: true, ErrorCode: fault.code, Error: fault.message, ResponseDetail: null },
        });
      case 'late_pix': {
        const a = result ?? matched.run();
        const id = isRecord(a.json?.ResponseDetail) ? a.json.ResponseDetail.IdTransaction : null;
        const charge = typeof id === 'number' ? store.get(id) : undefined;
        if (charge?.boleto && isRecord(a.json?.ResponseDetail)) {
          charge.boleto.pixHiddenFor = Math.max(1, fault.queries ?? 1);
          return answer({
            status: a.status,
            json: { ...a.json, ResponseDetail: { ...a.json.ResponseDetail, KeyPix: null, QrCodePix: null } },
          });
        }
        return answer(a);
      }
      default:
        return answer(shape(result ?? matched.run(), fault));
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent)
        sendJson(res, 500, { HasError: true, ErrorCode: '500', Error: 'Erro interno do emulador.' });
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostText = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${hostText}:${address.port}`;
  return {
    url,
    paymentUrl: `${url}/payment`,
    apiUrl: `${url}/api`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
