import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { SIMULATED_BANNER } from '../../src/charge-page/render.ts';
import { ARTIFACTS } from '../support/browser.ts';
import { pixBody } from '../support/charges.ts';
import { accessible, checkoutBrowser, submitted, text } from '../support/checkout-browser.ts';
import { type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { startTestApp, type TestApp } from '../support/http.ts';

/**
 * The hosted checkout's payer page (issue 25; SPEC 2.7, 3.5, 4.9) in headless Chromium, served by the real
 * gateway on a PostgreSQL test database: a payer completes Pix (typing their data, the checkout has none),
 * boleto (the checkout's customer) and card, a declined card then a Pix, the page following the payment by
 * itself; an expired link. Screenshots at
 * 390 px and 1280 px go to test-artifacts/checkout-*.png; axe-core finds no serious or critical violation.
 * Chromium is required: a missing browser fails here, it does not skip.
 */

const MERCHANT = 'Loja da Ana';
let app: TestApp;
let merchant: SeededKey;
const { open, sameOriginOnly, close } = checkoutBrowser(() => app.baseUrl);

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  app = await startTestApp({
    DOCUMENT_SIGNING_SECRET: 'checkout-browser-document-signing-secret-012345',
    ENABLE_SIMULATOR: 'true',
    CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
  merchant = await seedTenantAndKey(app.gateway.ctx, { livemode: false, tenantName: MERCHANT });
});

afterAll(async () => {
  await close();
  await app?.close();
});

async function createCheckout(over: Record<string, unknown> = {}): Promise<{ id: string; url: string }> {
  const res = await app.request('POST', '/v1/checkouts', {
    headers: { 'x-api-key': merchant.key, 'idempotency-key': randomUUID() },
    json: {
      methods: ['pix', 'boleto'],
      amount: 15990,
      reference: 'pedido-124',
      description: 'Tênis de corrida',
      ...over,
    },
  });
  assert.equal(res.status, 201, res.text);
  // BASE_URL is not the test server's address; the signed part is the path.
  return { id: res.body.data.id, url: app.baseUrl + new URL(res.body.data.url).pathname };
}

async function checkoutOf(id: string) {
  const res = await app.request('GET', `/v1/checkouts/${id}`, { headers: { 'x-api-key': merchant.key } });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function simulatePaid(transactionId: string): Promise<void> {
  const res = await app.request('POST', `/v1/transactions/${transactionId}/simulate`, {
    headers: { 'x-api-key': merchant.key },
    json: { status: 'paid' },
  });
  assert.equal(res.status, 200, res.text);
}

describe('checkout page in headless Chromium (issue 25)', () => {
  test('Pix: the payer types their data, sees the simulated charge, and the page turns to paid by itself', async () => {
    const checkout = await createCheckout();
    const opened = await open(checkout.url, 390);
    const { page } = opened;
    try {
      const first = await text(page);
      assert.ok(first.includes(`Pagamento para ${MERCHANT}`), first);
      assert.ok(first.includes('R$ 159,90'), first);
      assert.ok(first.includes('Aguardando pagamento'), first);
      assert.ok(await page.getByRole('button', { name: 'Pagar com Pix' }).isVisible());
      assert.ok(await page.getByRole('button', { name: 'Gerar boleto' }).isVisible());
      await accessible(page, 'open checkout at 390 px');
      await page.screenshot({ path: `${ARTIFACTS}/checkout-open-390.png`, fullPage: true });

      const form = page.locator('form:has(input[name="method"][value="pix"])');
      await form.getByLabel('Nome completo').fill('Maria Silva');
      await form.getByLabel('CPF ou CNPJ (só números)').fill('12345678901');
      await form.getByLabel('Celular com DDD (só números)').fill('11987654321');
      await form.getByLabel('CEP (8 números)').fill('01310100');
      await form.getByLabel('Rua').fill('Avenida Paulista');
      await form.getByLabel(/^Número/).fill('1000');
      await form.getByLabel('Bairro').fill('Bela Vista');
      await form.getByLabel('Cidade').fill('Sao Paulo');
      await form.getByLabel('Estado').selectOption('SP');
      // Keyboard: the button is reached and pressed like any control.
      await form.getByRole('button', { name: 'Pagar com Pix' }).focus();
      await submitted(page, () => page.keyboard.press('Enter'));
      assert.equal(page.url(), checkout.url, 'back on the page: nothing the payer typed is in the address');

      const charged = await text(page);
      assert.ok(charged.includes(SIMULATED_BANNER), charged);
      assert.ok(charged.includes('Pagamento por Pix'), charged);
      assert.equal(await page.locator('.qr svg').count(), 0, 'nothing scannable for a simulated charge');
      assert.ok(!(await page.content()).includes('12345678901'), 'the payer document is not shown back');
      await accessible(page, 'pending Pix at 390 px');
      await page.screenshot({ path: `${ARTIFACTS}/checkout-pix-pending-390.png`, fullPage: true });

      const { transaction_ids } = await checkoutOf(checkout.id);
      assert.equal(transaction_ids.length, 1);
      await simulatePaid(transaction_ids[0]);
      // The page's poll sees the payment and opens the page again.
      await page.getByText('Pagamento simulado confirmado').waitFor({ timeout: 15_000 });
      assert.ok((await text(page)).includes('Pago'));
      assert.equal(await page.getByRole('button', { name: 'Pagar com Pix' }).count(), 0, 'no choice left');
      await accessible(page, 'paid checkout at 390 px');
      await page.screenshot({ path: `${ARTIFACTS}/checkout-paid-390.png`, fullPage: true });
      sameOriginOnly(opened);
      assert.equal((await checkoutOf(checkout.id)).status, 'completed');
    } finally {
      await page.context().close();
    }
  });

  test('boleto at 1280 px: a checkout with a customer asks nothing; paid by boleto', async () => {
    const checkout = await createCheckout({ customer: pixBody().customer, boleto: { due_in_days: 5 } });
    const opened = await open(checkout.url, 1280);
    const { page } = opened;
    try {
      assert.equal(await page.locator('input[autocomplete="postal-code"]').count(), 0, 'nothing asked');
      await accessible(page, 'open checkout at 1280 px');
      await page.screenshot({ path: `${ARTIFACTS}/checkout-open-1280.png`, fullPage: true });
      await submitted(page, () => page.getByRole('button', { name: 'Gerar boleto' }).click());
      const pending = await text(page);
      assert.ok(pending.includes('Pagamento por Boleto'), pending);
      assert.ok(pending.includes(SIMULATED_BANNER), pending);
      // While the boleto is pending the other method stays one click away.
      assert.ok(await page.getByText('Pagar de outra forma').isVisible());
      await accessible(page, 'pending boleto at 1280 px');
      await page.screenshot({ path: `${ARTIFACTS}/checkout-boleto-pending-1280.png`, fullPage: true });
      const { transaction_ids } = await checkoutOf(checkout.id);
      const charge = await app.request('GET', `/v1/transactions/${transaction_ids[0]}`, {
        headers: { 'x-api-key': merchant.key },
      });
      assert.equal(charge.body.data.method, 'boleto');
      await simulatePaid(transaction_ids[0]);
      await page.getByText('Pagamento simulado confirmado').waitFor({ timeout: 15_000 });
      await accessible(page, 'paid checkout at 1280 px');
      await page.screenshot({ path: `${ARTIFACTS}/checkout-paid-1280.png`, fullPage: true });
      sameOriginOnly(opened);
    } finally {
      await page.context().close();
    }
  });

  test('card: a declined card, then Pix; and a card approved at once (test cards of the simulator)', async () => {
    const checkout = await createCheckout({ methods: ['credit_card', 'pix'], customer: pixBody().customer });
    const opened = await open(checkout.url, 390);
    const { page } = opened;
    const typeCard = async (number: string) => {
      const form = page.locator('form:has(input[name="method"][value="credit_card"])');
      await form.getByLabel('Nome impresso no cartão').fill('MARIA SILVA');
      await form.getByLabel('Número do cartão').fill(number);
      await form.getByLabel('Validade (MM/AAAA)').fill('12/2035');
      await form.getByLabel('Código de segurança').fill('123');
      return form;
    };
    try {
      for (const [name, token] of [
        ['Nome impresso no cartão', 'cc-name'],
        ['Número do cartão', 'cc-number'],
        ['Validade (MM/AAAA)', 'cc-exp'],
        ['Código de segurança', 'cc-csc'],
      ]) {
        assert.equal(await page.getByLabel(name as string).getAttribute('autocomplete'), token);
      }
      await accessible(page, 'card form at 390 px');
      await page.screenshot({ path: `${ARTIFACTS}/checkout-card-390.png`, fullPage: true });
      const form = await typeCard('4000000000000002');
      await submitted(page, () => form.getByRole('button', { name: 'Pagar com cartão' }).click());
      const declined = await text(page);
      assert.ok(declined.includes('O cartão foi recusado'), declined);
      assert.ok(
        !(await page.content()).includes('4000000000000002'),
        'the card is not in the page after the post',
      );
      assert.equal(await page.locator('#cc-number').inputValue(), '', 'nor filled back');
      await accessible(page, 'declined card at 390 px');
      await page.screenshot({ path: `${ARTIFACTS}/checkout-card-declined-390.png`, fullPage: true });
      await submitted(page, () => page.getByRole('button', { name: 'Pagar com Pix' }).click());
      const { transaction_ids } = await checkoutOf(checkout.id);
      assert.equal(transaction_ids.length, 2);
      await simulatePaid(transaction_ids[1]);
      await page.getByText('Pagamento simulado confirmado').waitFor({ timeout: 15_000 });
      const done = await checkoutOf(checkout.id);
      assert.equal(done.status, 'completed');
      assert.equal(done.paid_transaction_id, transaction_ids[1]);
      sameOriginOnly(opened);
    } finally {
      await page.context().close();
    }

    const approvedCheckout = await createCheckout({ methods: ['credit_card'], customer: pixBody().customer });
    const second = await open(approvedCheckout.url, 1280);
    try {
      const form = second.page.locator('form:has(input[name="method"][value="credit_card"])');
      await form.getByLabel('Nome impresso no cartão').fill('MARIA SILVA');
      await form.getByLabel('Número do cartão').fill('4111111111111111');
      await form.getByLabel('Validade (MM/AAAA)').fill('12/2035');
      await form.getByLabel('Código de segurança').fill('123');
      await submitted(second.page, () => form.getByRole('button', { name: 'Pagar com cartão' }).click());
      assert.ok((await text(second.page)).includes('Pagamento simulado confirmado'));
      assert.ok(!(await second.page.content()).includes('4111111111111111'));
      await accessible(second.page, 'card paid at 1280 px');
      await second.page.screenshot({ path: `${ARTIFACTS}/checkout-card-paid-1280.png`, fullPage: true });
      assert.equal((await checkoutOf(approvedCheckout.id)).status, 'completed');
    } finally {
      await second.page.context().close();
    }
  });

  test('an expired link says so and offers nothing to pay', async () => {
    const checkout = await createCheckout({ expires_in: 300 });
    const real = app.gateway.ctx.now;
    // The gateway's clock past the deadline (5 minutes and a second later).
    app.gateway.ctx.now = () => new Date(real().getTime() + 301_000);
    try {
      for (const width of [390, 1280]) {
        const opened = await open(checkout.url, width);
        try {
          const shown = await text(opened.page);
          assert.ok(shown.includes('Link expirado'), shown);
          assert.ok(shown.includes('O prazo deste link de pagamento terminou'), shown);
          assert.equal(await opened.page.locator('form').count(), 0, 'nothing to choose');
          await accessible(opened.page, `expired checkout at ${width} px`);
          await opened.page.screenshot({
            path: `${ARTIFACTS}/checkout-expired-${width}.png`,
            fullPage: true,
          });
          sameOriginOnly(opened);
        } finally {
          await opened.page.context().close();
        }
      }
      assert.equal((await checkoutOf(checkout.id)).status, 'expired');
    } finally {
      app.gateway.ctx.now = real;
    }
  });
});
