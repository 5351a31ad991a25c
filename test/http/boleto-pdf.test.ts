import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { ReserveTransaction, TransactionArtifacts } from '../../src/aggregates/transaction.ts';
import { transaction } from '../../src/aggregates/transaction.ts';
import { boletoPdfRenders } from '../../src/boleto-pdf/cache.ts';
import { formatDigitableLine } from '../../src/boleto-pdf/format.ts';
import { NOT_KNOWN, TEST_MARK } from '../../src/boleto-pdf/render.ts';
import { renderNotFoundPage } from '../../src/charge-page/render.ts';
import { handleCommand } from '../../src/commands/command-handler.ts';
import { transactionStream } from '../../src/commands/transactions/shared/stream.ts';
import { newId } from '../../src/ids.ts';
import { boletoNumbers } from '../../src/providers/emulator/boleto.ts';
import { dynamicPixPayload } from '../../src/providers/emulator/pix.ts';
import { addDays, boletoBody, today } from '../support/charges.ts';
import {
  CHARGE_CASES,
  type ChargeCase,
  chargeRequest,
  useExternalProviderWorld,
} from '../support/external-provider.ts';
import { commandDeps, type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp, type TestResponse } from '../support/http.ts';
import { readPdf } from '../support/pdf.ts';
import { reserveCommand } from '../support/transactions.ts';

/**
 * SPEC 2.2 `boleto_url` (`<document_url>/boleto.pdf`) and SPEC 1 ("PDF marked as test"): the gateway serves
 * the boleto PDF of a charge issued by the external provider, over a real socket. The charge is appended
 * through the gateway's event store as issuance records it (reserve, then the provider's artifacts: the
 * emulator's módulo-11 barcode and módulo-10 line, a BR Code with a valid CRC); the PDF is rasterized at
 * 300 dpi and its codes decoded with zbar.
 */

const SECRET = 'boleto-pdf-test-document-signing-secret-0123456';
const metadata = { actor: 'system:test', request_id: 'req_boleto_pdf' };
let app: TestApp;
let live: SeededKey;
let testKey: SeededKey;

const due = addDays(today(), 5);

/** A boleto issued by the external provider in `environment`, with its artifacts recorded. */
async function providerBoleto(environment: 'production' | 'sandbox', amount: number) {
  const id = newId('txn');
  const numbers = boletoNumbers(
    '001',
    amount,
    due,
    `${id.replace(/[^0-9]/g, '')}${'0'.repeat(25)}`.slice(0, 25),
  );
  const pix = dynamicPixPayload().key;
  const base = reserveCommand(id, 'boleto_live');
  const reserve: ReserveTransaction = {
    ...base,
    tenantId: live.tenantId,
    amount,
    environment,
    boleto: base.boleto && { ...base.boleto, due_date: due },
    request: { ...base.request, tenant_id: live.tenantId, amount },
  };
  const artifacts: TransactionArtifacts = {
    provider_reference: `ext_${id}`,
    pix_copy_paste: null,
    pix_qr_code: null,
    expires_at: null,
    boleto_url: `https://emulador.safe2pay.test/boleto/${id}.pdf`,
    boleto_digitable_line: numbers.digitableLine,
    boleto_barcode: numbers.barcode,
    boleto_pix_copy_paste: pix,
    // End of the due day in Brasília time (SPEC 2.2), in UTC.
    boleto_pix_expires_at: `${addDays(due, 1)}T02:59:59.000Z`,
  };
  const deps = commandDeps(app.gateway.ctx);
  const stream = transactionStream(id);
  await handleCommand(deps, transaction, stream, reserve, { metadata });
  await handleCommand(deps, transaction, stream, { kind: 'record_issued', artifacts }, { metadata });
  const read = await app.request('GET', `/v1/transactions/${id}`, { headers: { 'x-api-key': live.key } });
  assert.equal(read.status, 200, read.text);
  const t = read.body.data as { boleto_url: string; document_url: string };
  assert.equal(t.boleto_url, `${t.document_url}/boleto.pdf`);
  return {
    id,
    numbers,
    pix,
    path: new URL(t.boleto_url).pathname,
    documentPath: new URL(t.document_url).pathname,
  };
}

function assertPdfHeaders(res: TestResponse, id: string): void {
  assert.equal(res.status, 200, res.text.slice(0, 300));
  assert.equal(res.headers.get('content-type'), 'application/pdf');
  assert.equal(res.headers.get('content-disposition'), `inline; filename="boleto-${id}.pdf"`);
  // Issue 23 item 2.5: the browser may keep it, never a shared cache, and revalidates it on every use.
  assert.equal(res.headers.get('cache-control'), 'private, max-age=0, must-revalidate');
  assert.match(res.headers.get('etag') ?? '', /^"[0-9a-f]{64}"$/);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  assert.equal(res.headers.get('x-frame-options'), 'DENY');
  assert.equal(res.bytes.subarray(0, 5).toString('latin1'), '%PDF-');
}

function assertNotFoundPage(res: TestResponse): void {
  assert.equal(res.status, 404, res.text.slice(0, 300));
  assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  assert.equal(res.text, renderNotFoundPage());
}

const flat = (text: string) => text.replace(/\s+/g, ' ');

/** Boleto PDFs rendered by this process (the app runs in it): the metric GET /metrics exposes. */
async function renders(): Promise<number> {
  return (await boletoPdfRenders.get()).values[0]?.value ?? 0;
}

beforeAll(async () => {
  app = await startTestApp({ DOCUMENT_SIGNING_SECRET: SECRET, ENABLE_SIMULATOR: 'true' });
  live = await seedTenantAndKey(app.gateway.ctx, { livemode: true, tenantName: 'Loja da Ana Ltda' });
  testKey = await seedTenantAndKey(app.gateway.ctx, { livemode: false });
});
afterAll(() => app.close());

describe('GET /cobranca/{id}/{signature}/boleto.pdf (SPEC 2.2 boleto_url)', () => {
  test('a production boleto: the PDF scans back to its barcode and its Pix; payee, payer, amount; no test mark', async () => {
    const b = await providerBoleto('production', 123456);
    const res = await app.request('GET', b.path);
    assertPdfHeaders(res, b.id);
    const read = await readPdf(res.bytes);
    assert.deepEqual(read.codes.sort(), [`I2/5:${b.numbers.barcode}`, `QR-Code:${b.pix}`].sort());
    const text = flat(read.text);
    for (const shown of [
      'Loja da Ana Ltda',
      'Maria Silva',
      '123.456.789-01',
      'R$ 1.234,56',
      b.id,
      // Issue 23 item 1.11: the bank of the line with its code's check digit, the payer's address (SPEC 2.3).
      'Banco do Brasil S.A.',
      '001-9',
      'Av. Paulista, 1000 — Bela Vista — Sao Paulo/SP — CEP 01310-100',
    ]) {
      assert.ok(text.includes(shown), `${shown} in:\n${text}`);
    }
    assert.ok(!text.includes(TEST_MARK));
    // Issued without the provider's FEBRABAN fields (as every charge before they were kept): each of the
    // agência/código and nosso número (both parts), espécie doc., aceite and carteira says so, besides the
    // beneficiary's CNPJ and address (both parts) and the note that explains the words.
    assert.equal(text.split(NOT_KNOWN).length - 1, 12, text);
    // The same charge gives the same document (its dates come from the charge, not the clock).
    assert.ok((await app.request('GET', b.path)).bytes.equals(res.bytes));
  });

  test('a provider sandbox boleto: marked as test, its barcode scans, no Pix (SPEC 1: no Pix sandbox)', async () => {
    const b = await providerBoleto('sandbox', 9990);
    const res = await app.request('GET', b.path);
    assertPdfHeaders(res, b.id);
    const read = await readPdf(res.bytes);
    assert.deepEqual(read.codes, [`I2/5:${b.numbers.barcode}`]);
    assert.ok(flat(read.text).includes(TEST_MARK), read.text);
    assert.ok(flat(read.text).includes('R$ 99,90'));
  });

  test('a paid boleto: still served, with the paid note and without its Pix', async () => {
    const b = await providerBoleto('production', 2500);
    await handleCommand(
      commandDeps(app.gateway.ctx),
      transaction,
      transactionStream(b.id),
      {
        kind: 'refresh_paid',
        // The local status the refresh read before asking the provider (the staleness rule).
        observedStatus: 'pending',
        providerReference: `ext_${b.id}`,
        paidWith: 'boleto',
        duplicatePayment: false,
      },
      { metadata },
    );
    const paid = await app.request('GET', `/v1/transactions/${b.id}`, { headers: { 'x-api-key': live.key } });
    assert.equal(paid.body.data.status, 'paid', paid.text);
    assert.equal(paid.body.data.boleto_pix_copy_paste, null);
    const res = await app.request('GET', b.path);
    assertPdfHeaders(res, b.id);
    const read = await readPdf(res.bytes);
    assert.deepEqual(read.codes, [`I2/5:${b.numbers.barcode}`]);
    assert.ok(flat(read.text).includes('Boleto pago. Não pague novamente.'), read.text);
  });

  test('a wrong signature, a charge page path and an unknown id: the 404 page, no PDF', async () => {
    const b = await providerBoleto('production', 5000);
    const i = b.path.length - '/boleto.pdf'.length - 3;
    const tampered = b.path.slice(0, i) + (b.path[i] === 'A' ? 'B' : 'A') + b.path.slice(i + 1);
    assertNotFoundPage(await app.request('GET', tampered));
    assertNotFoundPage(await app.request('GET', b.path.replace(b.id, newId('txn'))));
    // The charge page itself is unchanged.
    assert.equal((await app.request('GET', b.documentPath)).status, 200);
  });

  test('a simulated boleto has no boleto numbers: the 404 page (boleto_url null)', async () => {
    const res = await app.request('POST', '/v1/boleto', {
      headers: { 'x-api-key': testKey.key, 'idempotency-key': 'pdf-simulated-1' },
      json: boletoBody(),
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.boleto_url, null);
    assertNotFoundPage(
      await app.request('GET', `${new URL(res.body.data.document_url).pathname}/boleto.pdf`),
    );
  });
});

describe('one render per document version (issue 23 item 2.5)', () => {
  test('the second GET serves the stored PDF without rendering; If-None-Match gets 304 with the same ETag', async () => {
    const b = await providerBoleto('production', 4321);
    const before = await renders();
    const first = await app.request('GET', b.path);
    assertPdfHeaders(first, b.id);
    assert.equal(await renders(), before + 1);
    const etag = first.headers.get('etag') ?? '';

    const second = await app.request('GET', b.path);
    assertPdfHeaders(second, b.id);
    assert.ok(second.bytes.equals(first.bytes));
    assert.equal(second.headers.get('etag'), etag);
    assert.equal(await renders(), before + 1, 'a stored version is not rendered again');

    // RFC 9110 13.1.2: the tag as sent back, in a list, or weak-compared; `*` matches any current version.
    for (const header of [etag, `"other", ${etag}`, `W/${etag}`, '*']) {
      const cached = await app.request('GET', b.path, { headers: { 'if-none-match': header } });
      assert.equal(cached.status, 304, header);
      assert.equal(cached.bytes.length, 0);
      assert.equal(cached.headers.get('etag'), etag);
      assert.equal(cached.headers.get('cache-control'), 'private, max-age=0, must-revalidate');
    }
    const stale = await app.request('GET', b.path, { headers: { 'if-none-match': '"0000"' } });
    assertPdfHeaders(stale, b.id);
    assert.equal(await renders(), before + 1);
  });

  test('under load: 40 concurrent first requests for one link make one render and the same bytes', async () => {
    const b = await providerBoleto('production', 6543);
    const before = await renders();
    const answers = await Promise.all(Array.from({ length: 40 }, () => app.request('GET', b.path)));
    for (const res of answers) {
      assertPdfHeaders(res, b.id);
      assert.ok(res.bytes.equals(answers[0]?.bytes ?? Buffer.alloc(0)));
    }
    assert.equal(await renders(), before + 1);
  });

  test('another API process on the same database serves the stored PDF without rendering it', async () => {
    const b = await providerBoleto('production', 3210);
    const first = await app.request('GET', b.path);
    assertPdfHeaders(first, b.id);
    const before = await renders();
    const other = await startTestApp(
      { DOCUMENT_SIGNING_SECRET: SECRET, ENABLE_SIMULATOR: 'true' },
      undefined,
      app.db,
    );
    try {
      const served = await other.request('GET', b.path);
      assertPdfHeaders(served, b.id);
      assert.ok(served.bytes.equals(first.bytes));
      assert.equal(served.headers.get('etag'), first.headers.get('etag'));
      assert.equal(await renders(), before, 'the other process read the stored render');
    } finally {
      await other.close();
    }
  });

  test('a due-date change is a new version: new ETag, the new line in the PDF, the old ETag gets the new PDF', async () => {
    const b = await providerBoleto('production', 7700);
    const old = await app.request('GET', b.path);
    assertPdfHeaders(old, b.id);
    const oldEtag = old.headers.get('etag') ?? '';
    const before = await renders();

    // SPEC 4.8: the provider re-dates the boleto and answers new numbers (a new due factor: new line and barcode).
    const newDue = addDays(due, 7);
    const renumbered = boletoNumbers(
      '001',
      7700,
      newDue,
      `${b.id.replace(/[^0-9]/g, '')}${'0'.repeat(25)}`.slice(0, 25),
    );
    const deps = commandDeps(app.gateway.ctx);
    const stream = transactionStream(b.id);
    await handleCommand(
      deps,
      transaction,
      stream,
      { kind: 'request_due_date_change', dueDate: newDue },
      { metadata },
    );
    await handleCommand(
      deps,
      transaction,
      stream,
      {
        kind: 'change_due_date',
        dueDate: newDue,
        expiresAt: null,
        artifacts: {
          boleto_digitable_line: renumbered.digitableLine,
          boleto_barcode: renumbered.barcode,
          boleto_pix_copy_paste: null,
          boleto_pix_expires_at: null,
        },
      },
      { metadata },
    );

    const revalidated = await app.request('GET', b.path, { headers: { 'if-none-match': oldEtag } });
    assertPdfHeaders(revalidated, b.id);
    const newEtag = revalidated.headers.get('etag') ?? '';
    assert.notEqual(newEtag, oldEtag);
    assert.equal(await renders(), before + 1);
    const read = await readPdf(revalidated.bytes);
    const text = flat(read.text);
    assert.ok(text.includes(formatDigitableLine(renumbered.digitableLine)), text);
    assert.ok(!text.includes(formatDigitableLine(b.numbers.digitableLine)), text);
    assert.deepEqual(read.codes, [`I2/5:${renumbered.barcode}`]);
    assert.equal((await app.request('GET', b.path, { headers: { 'if-none-match': newEtag } })).status, 304);
    // One stored document per charge: the superseded version is gone.
    const rows = await app.gateway.ctx.db
      .selectFrom('boleto_pdf_cache')
      .select('version')
      .where('transaction_id', '=', b.id)
      .execute();
    assert.deepEqual(
      rows.map((r) => `"${r.version}"`),
      [newEtag],
    );
  });
});

describe("a boleto issued at the provider emulator over HTTP prints the provider's FEBRABAN fields (issue 23 item 1.11)", () => {
  const world = useExternalProviderWorld();
  const [, production, sandbox] = CHARGE_CASES as [ChargeCase, ChargeCase, ChargeCase];

  async function issue(c: ChargeCase) {
    const res = await chargeRequest(world, c).send();
    assert.equal(res.status, 201, res.text);
    return res.body.data as {
      id: string;
      provider_reference: string;
      reference: string;
      boleto_url: string;
      boleto_barcode: string;
    } & Record<string, unknown>;
  }

  /** What the emulator's bank registered, sanitized (nosso número: the barcode's free field). */
  const EXPECTED = (t: { boleto_barcode: string }) => ({
    our_number: printedByTheBank(t.boleto_barcode).ourNumber,
    agency: '1234',
    agency_dv: '3',
    beneficiary_code: '56789-2',
    wallet: '17',
    document_kind: 'DM',
    accept: 'N',
  });

  async function eventData(id: string, type: string): Promise<Record<string, unknown> | undefined> {
    const { rows } = await sql<{ data: Record<string, unknown> }>`
      select data from events where stream_id = ${`transaction-${id}`} and type = ${type}`.execute(
      world.app.gateway.ctx.db,
    );
    return rows[0]?.data;
  }

  async function pdfText(boletoUrl: string): Promise<{ text: string; etag: string }> {
    const res = await world.app.request('GET', new URL(boletoUrl).pathname);
    assert.equal(res.status, 200, res.text.slice(0, 300));
    return { text: flat((await readPdf(res.bytes)).text), etag: res.headers.get('etag') ?? '' };
  }

  /**
   * Banco do Brasil, convênio of 7 digits, carteira 17 (the emulator's account): the barcode's free field
   * (positions 20-44) is six zeros, the 17-digit nosso número (convênio + sequence), the carteira.
   */
  function printedByTheBank(barcode: string) {
    assert.equal(barcode.slice(19, 25), '000000', barcode);
    return { ourNumber: barcode.slice(25, 42), wallet: barcode.slice(42, 44) };
  }

  function assertProviderFields(text: string, t: { boleto_barcode: string }) {
    const { ourNumber, wallet } = printedByTheBank(t.boleto_barcode);
    assert.equal(wallet, '17');
    const count = (s: string) => text.split(s).length - 1;
    // Nosso número on the receipt and in the ficha's right column.
    assert.equal(count(ourNumber), 2, text);
    // Agência 1234, its BB check digit 3 (5·1+4·2+3·3+2·4 = 30, 11 - 30 mod 11); account 56789-2 likewise.
    assert.equal(count('1234-3 / 56789-2'), 2, text);
    // The ficha's rows (pdftotext reads labels, then values): espécie doc. DM, aceite N, carteira 17.
    assert.match(text, / DM /);
    assert.match(text, / N [0-9]{2}\/[0-9]{2}\/[0-9]{4} /);
    assert.ok(text.includes('Uso do banco Carteira Espécie Quantidade Valor 17 R$'), text);
    // Only what no one gave the gateway is still said to be unknown: the beneficiary's CNPJ and address
    // (both parts) and the note explaining the words.
    assert.equal(count(NOT_KNOWN), 5, text);
  }

  test('production: nosso número (the free field’s), agência/código, carteira, espécie doc., aceite; the view gains no field', async () => {
    const t = await issue(production);
    // SPEC 2.2: the Transaction has no such fields; they stay out of the API.
    for (const key of Object.keys(t)) assert.doesNotMatch(key, /detail|agency|wallet|our_number|accept/);
    assert.ok(printedByTheBank(t.boleto_barcode).ourNumber.endsWith(t.provider_reference.padStart(10, '0')));
    const { text } = await pdfText(t.boleto_url);
    assertProviderFields(text, t);
    assert.ok(!text.includes(TEST_MARK), text);
    // Kept in the issuance event, sanitized, never free text (the emulator's WalletDescription is dropped).
    assert.deepEqual((await eventData(t.id, 'Transaction.Issued'))?.boleto_details, EXPECTED(t));
  });

  test('sandbox: the same fields beside the test mark', async () => {
    const t = await issue(sandbox);
    const { text } = await pdfText(t.boleto_url);
    assertProviderFields(text, t);
    assert.ok(text.includes(TEST_MARK), text);
  });

  test('a due-date change (SPEC 4.8): a new version, the fields of the change answer recorded and printed', async () => {
    const t = await issue(production);
    const before = await pdfText(t.boleto_url);
    const due = addDays(today(), 40);
    const moved = await world.app.request('PATCH', `/v1/transactions/${t.id}/boleto`, {
      headers: { 'x-api-key': world.production.key, 'idempotency-key': randomUUID() },
      json: { due_date: due },
    });
    assert.equal(moved.status, 200, moved.text);
    const after = await pdfText(t.boleto_url);
    assert.notEqual(after.etag, before.etag);
    assertProviderFields(after.text, { boleto_barcode: moved.body.data.boleto_barcode });
    // The change's answer is a boleto response (wire doc 2.7): its fields are recorded with the new numbers.
    assert.deepEqual((await eventData(t.id, 'Transaction.DueDateChanged'))?.boleto_details, EXPECTED(t));
  });
});
