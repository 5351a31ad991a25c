import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import QRCode from 'qrcode';
import { describe, test } from 'vitest';
import {
  type ChargePageView,
  type ChargeStatus,
  escapeHtml,
  formatBRL,
  formatDate,
  formatInstant,
  renderChargePage,
  SIMULATED_BANNER,
  STATUS_LABEL,
  TEST_BANNER,
} from '../../src/charge-page/render.ts';
import {
  boletoUrl,
  DOCUMENT_SIGNATURE_LENGTH,
  documentSignature,
  documentUrl,
  verifyDocumentSignature,
} from '../../src/charge-page/signature.ts';
import { DOCUMENT_KEY_FILE, documentSigningSecret } from '../../src/charge-page/signing-secret.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { CHARGE_ID, chargeView, PIX, SIM_MARKER, simulatedPixView } from '../support/charge-page-views.ts';

const SECRET = 'a-test-secret-of-at-least-32-characters!';
const ID = CHARGE_ID;
const NOW = new Date('2026-11-21T12:00:00Z');

/** Intl writes `R$` + no-break space; the text a person reads is `R$ 12,50`. */
const plain = (s: string) => s.replace(/\u00a0/g, ' ');

const realBoleto = (over: Partial<ChargePageView> = {}) =>
  chargeView({
    method: 'boleto',
    pix_copy_paste: null,
    expires_at: null,
    boleto_due_date: '2026-11-30',
    boleto_url: `${documentUrl('https://pay.example.com', SECRET, ID)}/boleto.pdf`,
    boleto_digitable_line: '00190000090123456789001234567890112340000001250',
    boleto_pix_copy_paste: PIX,
    boleto_pix_expires_at: '2026-12-01T02:59:59Z',
    ...over,
  });

/**
 * Reads the dark modules back out of the SVG path the `qrcode` renderer draws (`M x y`, `m dx 0`, `h n`),
 * so the test checks the drawing itself, not just that some SVG is present.
 */
function modulesFromSvg(svg: string, margin = 4): boolean[][] {
  const size = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)?.[1]) - 2 * margin;
  const d = /<path stroke="#000000" d="([^"]+)"/.exec(svg)?.[1];
  assert.ok(d && size > 0, 'a dark path and a size');
  const grid = Array.from({ length: size }, () => Array<boolean>(size).fill(false));
  let x = 0;
  let y = 0;
  for (const [, cmd, a, b] of d.matchAll(/([Mmh])(-?[\d.]+)(?: (-?[\d.]+))?/g)) {
    const n = Number(a);
    if (cmd === 'M') [x, y] = [n, Number(b)];
    else if (cmd === 'm') x += n;
    else {
      const row = grid[Math.floor(y) - margin];
      assert.ok(row);
      for (let i = 0; i < n; i++) row[x - margin + i] = true;
      x += n;
    }
  }
  return grid;
}

function expectedModules(text: string): boolean[][] {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  return Array.from({ length: modules.size }, (_, r) =>
    Array.from({ length: modules.size }, (_, c) => Boolean(modules.get(r, c))),
  );
}

describe('charge link signature (SPEC 2.2 document_url, docs/decisions.md "Charges")', () => {
  test('a signature is 32 base64url characters and verifies for its own id', () => {
    const sig = documentSignature(SECRET, ID);
    assert.equal(sig.length, DOCUMENT_SIGNATURE_LENGTH);
    assert.match(sig, /^[A-Za-z0-9_-]{32}$/);
    assert.equal(documentSignature(SECRET, ID), sig, 'deterministic');
    assert.ok(verifyDocumentSignature(SECRET, ID, sig));
  });

  test('tampered signatures fail', () => {
    const sig = documentSignature(SECRET, ID);
    for (let i = 0; i < sig.length; i++) {
      const flipped = sig[i] === 'A' ? 'B' : 'A';
      const forged = sig.slice(0, i) + flipped + sig.slice(i + 1);
      assert.equal(verifyDocumentSignature(SECRET, ID, forged), false, `position ${i}`);
    }
    assert.equal(
      verifyDocumentSignature(SECRET, ID, sig.toUpperCase() === sig ? sig.toLowerCase() : sig.toUpperCase()),
      false,
    );
  });

  test("another transaction's signature, or another secret's, fails", () => {
    const other = documentSignature(SECRET, 'txn_01JF0000000000000000000001');
    assert.equal(verifyDocumentSignature(SECRET, ID, other), false);
    assert.equal(
      verifyDocumentSignature(SECRET, 'txn_01JF0000000000000000000001', documentSignature(SECRET, ID)),
      false,
    );
    const otherSecret = documentSignature('another-secret-of-at-least-32-characters', ID);
    assert.equal(verifyDocumentSignature(SECRET, ID, otherSecret), false);
  });

  test('wrong length or alphabet fails without throwing', () => {
    const sig = documentSignature(SECRET, ID);
    for (const bad of [
      '',
      sig.slice(0, -1),
      `${sig}A`,
      `${sig}${sig}`,
      `${sig.slice(0, -1)}=`,
      `${sig.slice(0, -1)}/`,
    ]) {
      assert.equal(verifyDocumentSignature(SECRET, ID, bad), false, JSON.stringify(bad));
    }
    assert.equal(verifyDocumentSignature(SECRET, ID, `${sig.slice(0, -1)}é`), false, 'non-ASCII');
  });

  test('a short secret is refused', () => {
    assert.throws(() => documentSignature('short', ID), /at least 32/);
  });

  test('document_url and boleto_url have the shape of SPEC 2.2', () => {
    const sig = documentSignature(SECRET, ID);
    assert.equal(
      documentUrl('https://pay.example.com', SECRET, ID),
      `https://pay.example.com/cobranca/${ID}/${sig}`,
    );
    assert.equal(
      documentUrl('https://pay.example.com/', SECRET, ID),
      `https://pay.example.com/cobranca/${ID}/${sig}`,
    );
    assert.equal(
      boletoUrl('https://pay.example.com', SECRET, ID),
      `https://pay.example.com/cobranca/${ID}/${sig}/boleto.pdf`,
    );
  });
});

describe('DOCUMENT_SIGNING_SECRET (docs/decisions.md "Charges")', () => {
  test('config: at least 32 characters when set', () => {
    assert.throws(() => loadConfig({ DOCUMENT_SIGNING_SECRET: 'too-short' }), /DOCUMENT_SIGNING_SECRET/);
    assert.equal(loadConfig({ DOCUMENT_SIGNING_SECRET: SECRET }).DOCUMENT_SIGNING_SECRET, SECRET);
    assert.equal(loadConfig({}).DOCUMENT_SIGNING_SECRET, undefined);
  });

  test('configured secret is used; with DATABASE_URL and none, a clear ConfigError', async () => {
    assert.equal(
      await documentSigningSecret({
        DOCUMENT_SIGNING_SECRET: SECRET,
        DATABASE_URL: 'postgres://x',
        CALEBE_DATA_DIR: '/nonexistent',
      }),
      SECRET,
    );
    await assert.rejects(
      documentSigningSecret({ DATABASE_URL: 'postgres://x', CALEBE_DATA_DIR: '/nonexistent' }),
      (e: unknown) =>
        e instanceof ConfigError && /DOCUMENT_SIGNING_SECRET: required when DATABASE_URL/.test(e.message),
    );
  });

  test('embedded database: generated once into the data dir (0600), then reused', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'calebe-doc-key-'));
    try {
      const [a, b] = await Promise.all([
        documentSigningSecret({ CALEBE_DATA_DIR: dir }),
        documentSigningSecret({ CALEBE_DATA_DIR: dir }),
      ]);
      assert.equal(a, b, 'two processes starting at once agree');
      assert.ok(a.length >= 32);
      assert.equal(await documentSigningSecret({ CALEBE_DATA_DIR: dir }), a, 'the file is reused');
      assert.equal((await stat(join(dir, DOCUMENT_KEY_FILE))).mode & 0o777, 0o600);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('charge page formatting (SPEC 1: centavos; DESIGN.md: America/Sao_Paulo)', () => {
  test('amounts from integer centavos', () => {
    assert.equal(plain(formatBRL(1)), 'R$ 0,01');
    assert.equal(plain(formatBRL(99)), 'R$ 0,99');
    assert.equal(plain(formatBRL(1250)), 'R$ 12,50');
    assert.equal(plain(formatBRL(100)), 'R$ 1,00');
    assert.equal(plain(formatBRL(100000000)), 'R$ 1.000.000,00');
    assert.equal(plain(formatBRL(Number.MAX_SAFE_INTEGER)), 'R$ 90.071.992.547.409,91', 'exact at any size');
    for (const bad of [12.5, -1, Number.NaN, Number.POSITIVE_INFINITY])
      assert.throws(() => formatBRL(bad), RangeError);
  });

  test('instants in Brasília time, business dates unshifted', () => {
    assert.equal(formatInstant('2026-11-21T13:00:00Z'), '21/11/2026 às 10:00 (horário de Brasília)');
    assert.equal(formatInstant('2026-12-01T02:59:59Z'), '30/11/2026 às 23:59 (horário de Brasília)');
    assert.equal(formatDate('2026-11-30'), '30/11/2026');
  });

  test('escapeHtml covers the five characters', () => {
    assert.equal(
      escapeHtml(`<a href="x" title='y'>&</a>`),
      '&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;',
    );
  });
});

describe('charge page (SPEC 1 simulator table, 2.2, 3.1)', () => {
  test('pending real Pix: amount, status, SVG QR of exactly the copy-paste text, the text itself', async () => {
    const html = await renderChargePage(chargeView(), { now: NOW });
    assert.match(html, /<html lang="pt-BR">/);
    assert.ok(plain(html).includes('R$ 12,50'));
    assert.ok(html.includes('Aguardando pagamento'));
    assert.ok(html.includes('21/11/2026 às 10:00 (horário de Brasília)'), 'expiry in Brasília time');
    assert.ok(!html.includes(SIMULATED_BANNER) && !html.includes(TEST_BANNER));
    const svgs = html.match(/<svg[\s\S]*?<\/svg>/g) ?? [];
    assert.equal(svgs.length, 1);
    assert.deepEqual(
      modulesFromSvg(svgs[0] ?? ''),
      expectedModules(PIX),
      'the QR encodes exactly pix_copy_paste',
    );
    assert.ok(html.includes(`>${escapeHtml(PIX)}</textarea>`), 'copy-and-paste text');
    assert.doesNotMatch(html, /\b(src|href)="(https?:)?\/\//, 'nothing loaded from outside');
    assert.doesNotMatch(html, /<link\b/);
  });

  test('references and descriptions are escaped (no script injection)', async () => {
    const evil = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
    const html = await renderChargePage(chargeView({ reference: evil, description: evil, id: evil }), {
      now: NOW,
    });
    assert.ok(!html.includes('<script>alert'), 'no injected script element');
    assert.ok(!html.includes('<img'), 'no injected element');
    assert.ok(html.includes('&#60;script&#62;alert(1)&#60;/script&#62;'));
    assert.equal(html.match(/<script>/g)?.length, 1, 'only the page’s own copy script');
  });

  test('simulated pending Pix: banner, no QR, no copy-paste, the marker never shown', async () => {
    const html = await renderChargePage(simulatedPixView(), { now: NOW });
    assert.ok(html.includes(SIMULATED_BANNER));
    assert.ok(html.includes('Aguardando pagamento'));
    assert.ok(plain(html).includes('R$ 12,50'));
    assert.ok(!html.includes('<svg'), 'no QR code');
    assert.ok(!html.includes('<textarea'), 'nothing to copy');
    assert.ok(!html.includes(SIM_MARKER), 'the test marker is not printed');
    assert.ok(!html.includes('Pague com Pix'));
  });

  test('simulated boleto: banner and no payable artifact even if some were present', async () => {
    const html = await renderChargePage(
      realBoleto({ simulated: true, environment: 'sandbox', livemode: false }),
      {
        now: NOW,
      },
    );
    assert.ok(html.includes(SIMULATED_BANNER));
    assert.ok(!html.includes('<svg') && !html.includes('<textarea') && !html.includes('boleto.pdf'));
  });

  test('pending real boleto: Pix QR of the boleto, digitable line, link to boleto.pdf, due date', async () => {
    const html = await renderChargePage(realBoleto(), { now: NOW });
    assert.ok(html.includes('Linha digitável'));
    assert.ok(html.includes('00190000090123456789001234567890112340000001250'));
    assert.match(
      html,
      /href="https:\/\/pay\.example\.com\/cobranca\/txn_[^/"]+\/[A-Za-z0-9_-]{32}\/boleto\.pdf"/,
    );
    assert.ok(html.includes('30/11/2026'));
    const svg = html.match(/<svg[\s\S]*?<\/svg>/)?.[0] ?? '';
    assert.deepEqual(modulesFromSvg(svg), expectedModules(PIX));
  });

  test('provider sandbox boleto: test banner, line and PDF, never a Pix', async () => {
    const html = await renderChargePage(realBoleto({ environment: 'sandbox', livemode: false }), {
      now: NOW,
    });
    assert.ok(html.includes(TEST_BANNER));
    assert.ok(html.includes('Linha digitável') && html.includes('boleto.pdf'));
    assert.ok(!html.includes('<svg'));
  });

  test('a Pix past its deadline or a boleto Pix past its own shows no QR', async () => {
    const later = new Date('2026-12-02T00:00:00Z');
    assert.ok(!(await renderChargePage(chargeView(), { now: later })).includes('<svg'));
    const boleto = await renderChargePage(realBoleto(), { now: later });
    assert.ok(
      !boleto.includes('<svg') && boleto.includes('Linha digitável'),
      'the boleto itself stays payable',
    );
  });

  test('a scheduled Pix Automatic debit never shows a QR code (SPEC 3.1 pending)', async () => {
    const html = await renderChargePage(
      chargeView({
        pix_automatic_authorization_id: 'pxa_1',
        scheduled_due_date: '2026-12-05',
        expires_at: null,
      }),
      { now: NOW },
    );
    assert.ok(html.includes('Débito agendado') && html.includes('05/12/2026'));
    assert.ok(!html.includes('<svg') && !html.includes('<textarea'));
  });

  const finals: ChargeStatus[] = ['paid', 'expired', 'failed', 'refunded', 'processing', 'unknown'];
  for (const status of finals) {
    test(`${status}: "${STATUS_LABEL[status]}" and no payment instructions`, async () => {
      for (const v of [
        chargeView({ status }),
        realBoleto({ status, paid_with: status === 'paid' ? 'pix' : null }),
      ]) {
        const html = await renderChargePage(v, { now: NOW });
        assert.ok(html.includes(STATUS_LABEL[status]));
        assert.ok(!html.includes('<svg'), 'no QR');
        assert.ok(!html.includes('<textarea'), 'nothing to copy');
        assert.ok(!html.includes('boleto.pdf'), 'no boleto link');
        assert.ok(!html.includes(PIX) && !html.includes('Linha digitável'));
      }
    });
  }

  test('a simulated paid charge says no money moved, under the banner', async () => {
    const html = await renderChargePage(simulatedPixView({ status: 'paid', paid_with: 'pix' }), { now: NOW });
    assert.ok(html.includes(SIMULATED_BANNER) && html.includes('Pago'));
    assert.ok(html.includes('Pagamento simulado: nenhum dinheiro foi movimentado.'));
    assert.ok(!html.includes('Pagamento confirmado'));
  });

  test('every status has its Portuguese label', () => {
    assert.deepEqual(STATUS_LABEL, {
      processing: 'Em processamento',
      pending: 'Aguardando pagamento',
      paid: 'Pago',
      expired: 'Expirado',
      failed: 'Falhou',
      unknown: 'Situação não confirmada',
      refunded: 'Estornado',
    });
  });
});
