import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { type CheckoutPageView, renderCheckoutPage } from '../../src/checkout-page/render.ts';
import { checkoutPageBytes } from '../../src/checkout-page/render-cache.ts';
import { chargeView, simulatedPixView } from '../support/charge-page-views.ts';

/**
 * Issue 25 "Performance": the cached render (src/checkout-page/render-cache.ts) answers byte for byte what
 * renderCheckoutPage renders for the same view, nonces and instant, on a first load and on every later one;
 * only the nonces change between loads; the instant's comparisons with a charge's deadlines are never
 * served from an older load.
 */

const NOW = new Date('2026-11-21T12:00:00Z');
let n = 0;
const nonces = () => {
  n++;
  return {
    pix: `pixNonce${n}AAAAAAAAAAAAA`,
    boleto: `boletoNonce${n}AAAAAAAAAA`,
    credit_card: `cardNonce${n}AAAAAAAAAAAA`,
  };
};

function view(over: Partial<CheckoutPageView> = {}): CheckoutPageView {
  return {
    id: 'chk_0123456789abcdefghij',
    merchantName: 'Loja da Ana',
    status: 'open',
    acceptsPayments: true,
    methods: ['pix', 'boleto', 'credit_card'],
    amount: 15990,
    reference: 'pedido-1',
    description: 'Pedido 1',
    livemode: false,
    expiresAt: '2026-11-22T12:00:00Z',
    asksPayer: true,
    charge: null,
    lastAttemptFailed: false,
    path: '/checkout/chk_0123456789abcdefghij/sig',
    stateToken: 'open.0.-',
    nonces: nonces(),
    ...over,
  };
}

async function same(v: CheckoutPageView, now = NOW) {
  const expected = await renderCheckoutPage(v, { now });
  const bytes = await checkoutPageBytes(v, now);
  assert.equal(bytes.toString('utf8'), expected);
  return expected;
}

describe('checkout page render cache (issue 25 Performance)', () => {
  test('first and later loads are the render of their own view and nonces; nonces differ per load', async () => {
    const first = await same(view());
    const second = await same(view());
    assert.notEqual(first, second, 'each load has its own nonces');
    const a = view();
    const page = await same(a);
    for (const nonce of Object.values(a.nonces)) assert.ok(page.includes(`name="nonce" value="${nonce}"`));
    assert.equal(
      first.replace(/(pix|boleto|card)Nonce\d+A+/g, 'N'),
      second.replace(/(pix|boleto|card)Nonce\d+A+/g, 'N'),
      'the rest is the same page',
    );
  });

  test('any change of the view is another page: name, status, methods, charge, token', async () => {
    await same(view());
    await same(view({ merchantName: 'Loja da Ana Maria' }));
    await same(view({ merchantName: null }));
    await same(view({ methods: ['pix'] }));
    await same(view({ acceptsPayments: false, status: 'expired', stateToken: 'expired.0.-' }));
    await same(view({ asksPayer: false }));
    await same(
      view({
        status: 'processing',
        charge: { ...simulatedPixView(), document_url: 'https://x.example/cobranca/a/b' },
        stateToken: 'processing.1.pending',
      }),
    );
    await same(view({ lastAttemptFailed: true, stateToken: 'open.1.failed' }));
  });

  test('a merchant name or description that looks like a nonce marker is shown as text', async () => {
    await same(view({ merchantName: 'nonce0123456789abcdef01234567:pix: <b>', description: ':pix: nonce' }));
    await same(view({ merchantName: 'nonce0123456789abcdef01234567:pix: <b>', description: ':pix: nonce' }));
  });

  test("a real Pix's deadline: before it the QR, after it the note, at each instant (never an older load's)", async () => {
    const live = view({
      livemode: true,
      status: 'processing',
      charge: {
        ...chargeView({ expires_at: '2026-11-21T13:00:00Z' }),
        document_url: 'https://x.example/c/a/b',
      },
      stateToken: 'processing.1.pending',
    });
    const before = await same(live, NOW);
    assert.ok(before.includes('<svg'));
    const after = await same({ ...live, nonces: nonces() }, new Date('2026-11-21T13:00:01Z'));
    assert.ok(!after.includes('<svg') && after.includes('O prazo deste Pix terminou'));
    assert.ok((await same({ ...live, nonces: nonces() }, NOW)).includes('<svg'));
  });

  test('a refused post (error, values) is rendered as it comes', async () => {
    await same(
      view({
        error: { message: 'Confira o CEP (8 números).', method: 'boleto', field: 'zip_code' },
        values: { zip_code: '123', name: 'Maria <b>' },
      }),
    );
  });
});
