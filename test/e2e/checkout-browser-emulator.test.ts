import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { SIMULATED_BANNER, TEST_BANNER } from '../../src/charge-page/render.ts';
import { checkoutFollowJob } from '../../src/commands/checkouts/follow/job.ts';
import { ARTIFACTS } from '../support/browser.ts';
import { pixBody } from '../support/charges.ts';
import { accessible, checkoutBrowser, submitted, text } from '../support/checkout-browser.ts';
import { useExternalProviderWorld } from '../support/external-provider.ts';
import { type SeededKey, seedTenantAndKey } from '../support/fixtures.ts';
import { jobDeps } from '../support/jobs.ts';

/**
 * The hosted checkout's payer page (issue 25 item 4; SPEC 3.5, 4.9) in headless Chromium, served by the real
 * gateway over live keys against the provider emulator (docs/provider-emulator.md): a production provider
 * record with pix, boleto and credit_card, a rule for each, live payments on (SPEC 5.8). A card approved; a
 * declined card then a real Pix (the emulator's EMV payload as a QR) that the emulator settles; a boleto's
 * line and PDF link; a link expired by the checkout-follow job. Screenshots at 390 px and 1280 px go to
 * test-artifacts/checkout-emu-*.png; axe-core finds no serious or critical violation. Chromium is required.
 */

const MERCHANT = 'Loja do Bruno';
const PAID_NOTE = 'Pagamento confirmado. Nada mais a pagar.';
const world = useExternalProviderWorld({
  DOCUMENT_SIGNING_SECRET: 'checkout-emulator-document-signing-secret-0123',
  RATE_LIMIT_PER_MINUTE: '100000',
});
const { open, sameOriginOnly, close } = checkoutBrowser(() => world.app.baseUrl);
let merchant: SeededKey;

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  merchant = await seedTenantAndKey(world.app.gateway.ctx, { livemode: true, tenantName: MERCHANT });
  const provider = await world.app.request('POST', '/admin/providers', {
    headers: world.admin,
    json: {
      name: 'Safe2Pay checkout',
      kind: 'external',
      environment: 'production',
      enabled_methods: ['pix', 'boleto', 'credit_card'],
      credentials: { api_key: 'emu-production-key' },
      payment_host: world.emulator.paymentUrl,
      api_host: world.emulator.apiUrl,
    },
  });
  assert.equal(provider.status, 201, provider.text);
  for (const method of ['pix', 'boleto', 'credit_card']) {
    const rule = await world.app.request('POST', '/admin/rules', {
      headers: world.admin,
      json: { method, tenant_id: merchant.tenantId, provider_id: provider.body.data.id, priority: 1 },
    });
    assert.equal(rule.status, 201, rule.text);
  }
});

afterAll(async () => {
  await close();
});

async function createCheckout(over: Record<string, unknown> = {}): Promise<{ id: string; url: string }> {
  const res = await world.app.request('POST', '/v1/checkouts', {
    headers: { 'x-api-key': merchant.key, 'idempotency-key': randomUUID() },
    json: {
      methods: ['pix', 'boleto', 'credit_card'],
      amount: 15990,
      reference: `pedido-${randomUUID()}`,
      description: 'Tênis de corrida',
      customer: pixBody().customer,
      ...over,
    },
  });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.data.livemode, true);
  // BASE_URL is not the test server's address; the signed part is the path.
  return { id: res.body.data.id, url: world.app.baseUrl + new URL(res.body.data.url).pathname };
}

async function checkoutOf(id: string) {
  const res = await world.app.request('GET', `/v1/checkouts/${id}`, {
    headers: { 'x-api-key': merchant.key },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function transaction(id: string) {
  const res = await world.app.request('GET', `/v1/transactions/${id}`, {
    headers: { 'x-api-key': merchant.key },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

/** The emulator's own record of the charge (docs/provider-emulator.md "Control API"). */
async function atEmulator(transactionId: string) {
  const res = await fetch(
    `${world.emulator.url}/_emulator/charges?reference=${encodeURIComponent(transactionId)}`,
  );
  const json = (await res.json()) as {
    charges: Array<{
      id: number;
      status: number;
      pix: { key: string; qrCode: string } | null;
      boleto: { keyPix: string } | null;
    }>;
  };
  assert.equal(json.charges.length, 1, `one charge at the emulator for ${transactionId}`);
  return json.charges[0] as (typeof json.charges)[number];
}

async function typeCard(page: Page, number: string) {
  const form = page.locator('form:has(input[name="method"][value="credit_card"])');
  await form.getByLabel('Nome impresso no cartão').fill('MARIA SILVA');
  await form.getByLabel('Número do cartão').fill(number);
  await form.getByLabel('Validade (MM/AAAA)').fill('12/2035');
  await form.getByLabel('Código de segurança').fill('123');
  return form;
}

/** A real page: neither the simulator's banner nor the test one. */
function real(shown: string): void {
  assert.ok(!shown.includes(SIMULATED_BANNER), shown);
  assert.ok(!shown.includes(TEST_BANNER), shown);
}

describe('checkout page in headless Chromium against the provider emulator (issue 25 item 4)', () => {
  test('card approved by the emulator (4012888888881881): the page shows paid, the checkout completed', async () => {
    const checkout = await createCheckout({ methods: ['credit_card'] });
    const opened = await open(checkout.url, 1280);
    const { page } = opened;
    try {
      assert.ok((await text(page)).includes(`Pagamento para ${MERCHANT}`));
      await accessible(page, 'card form at 1280 px (emulator)');
      await page.screenshot({ path: `${ARTIFACTS}/checkout-emu-card-1280.png`, fullPage: true });
      const form = await typeCard(page, '4012888888881881');
      await submitted(page, () => form.getByRole('button', { name: 'Pagar com cartão' }).click());
      const shown = await text(page);
      real(shown);
      assert.ok(shown.includes(PAID_NOTE), shown);
      assert.ok(shown.includes('Pago'), shown);
      assert.ok(!(await page.content()).includes('4012888888881881'), 'the card is not in the page');
      await accessible(page, 'card paid at 1280 px (emulator)');
      await page.screenshot({ path: `${ARTIFACTS}/checkout-emu-card-paid-1280.png`, fullPage: true });
      sameOriginOnly(opened);

      const done = await checkoutOf(checkout.id);
      assert.equal(done.status, 'completed');
      const charge = await transaction(done.paid_transaction_id);
      assert.equal(charge.method, 'credit_card');
      assert.equal(charge.simulated, false);
      assert.equal(charge.environment, 'production');
      assert.equal(charge.credit_card.last_four, '1881');
      // Status 3 (Autorizado) at the emulator, the card kept as its last four only.
      assert.equal((await atEmulator(charge.id)).status, 3);
    } finally {
      await page.context().close();
    }
  });

  test('a declined card (4000000000000002), then Pix: the emulator EMV as a QR; the emulator settles it, the page follows to paid', async () => {
    const checkout = await createCheckout({ methods: ['credit_card', 'pix'] });
    const opened = await open(checkout.url, 390);
    const { page } = opened;
    try {
      const form = await typeCard(page, '4000000000000002');
      await submitted(page, () => form.getByRole('button', { name: 'Pagar com cartão' }).click());
      const declined = await text(page);
      assert.ok(declined.includes('O cartão foi recusado'), declined);
      assert.ok(!(await page.content()).includes('4000000000000002'), 'the card is not in the page');
      assert.equal(await page.locator('#cc-number').inputValue(), '', 'nor filled back');
      await accessible(page, 'declined card at 390 px (emulator)');
      await page.screenshot({ path: `${ARTIFACTS}/checkout-emu-card-declined-390.png`, fullPage: true });
      const [declinedId] = (await checkoutOf(checkout.id)).transaction_ids;
      const failed = await transaction(declinedId);
      assert.equal(failed.status, 'failed');
      assert.equal(failed.provider_error_code, '05');

      await submitted(page, () => page.getByRole('button', { name: 'Pagar com Pix' }).click());
      const { transaction_ids } = await checkoutOf(checkout.id);
      assert.equal(transaction_ids.length, 2);
      const pixId = transaction_ids[1];
      const remote = await atEmulator(pixId);
      assert.ok(remote.pix, 'a Pix at the emulator');
      const pending = await text(page);
      real(pending);
      assert.ok(pending.includes('Pagamento por Pix'), pending);
      assert.equal(await page.locator('.qr svg').count(), 1, 'a QR code to scan');
      const copyPaste = await page.locator('#pix').inputValue();
      assert.equal(copyPaste, remote.pix.key, "the emulator's Pix, as it answered it");
      // A dynamic BR Code (EMV MPM): payload format 01, ends with its CRC16 field.
      assert.match(copyPaste, /^000201/);
      assert.match(copyPaste, /6304[0-9A-F]{4}$/);
      await accessible(page, 'pending real Pix at 390 px (emulator)');
      await page.screenshot({ path: `${ARTIFACTS}/checkout-emu-pix-pending-390.png`, fullPage: true });

      // The payer pays at the bank; the gateway reads it from the provider (a merchant's refresh, SPEC 3.1).
      await world.control.move(String(remote.id), 'paid_pix');
      const refreshed = await world.app.request('POST', `/v1/transactions/${pixId}/refresh`, {
        headers: { 'x-api-key': merchant.key },
      });
      assert.equal(refreshed.status, 200, refreshed.text);
      assert.equal(refreshed.body.data.status, 'paid');
      // The page's poll sees the payment and opens the page again.
      await page.getByText(PAID_NOTE).waitFor({ timeout: 15_000 });
      assert.equal(await page.locator('.qr svg').count(), 0, 'nothing left to scan');
      assert.equal(await page.getByRole('button', { name: 'Pagar com Pix' }).count(), 0, 'no choice left');
      await accessible(page, 'paid by Pix at 390 px (emulator)');
      await page.screenshot({ path: `${ARTIFACTS}/checkout-emu-pix-paid-390.png`, fullPage: true });
      sameOriginOnly(opened);
      const done = await checkoutOf(checkout.id);
      assert.equal(done.status, 'completed');
      assert.equal(done.paid_transaction_id, pixId);
    } finally {
      await page.context().close();
    }
  });

  test('boleto at 390 and 1280 px: the line and the PDF link the emulator issued', async () => {
    const checkout = await createCheckout({ methods: ['boleto', 'pix'], boleto: { due_in_days: 5 } });
    for (const width of [390, 1280]) {
      const opened = await open(checkout.url, width);
      const { page } = opened;
      try {
        if (width === 390) {
          await accessible(page, 'open checkout at 390 px (emulator)');
          await page.screenshot({ path: `${ARTIFACTS}/checkout-emu-open-390.png`, fullPage: true });
          await submitted(page, () => page.getByRole('button', { name: 'Gerar boleto' }).click());
        }
        const [boletoId] = (await checkoutOf(checkout.id)).transaction_ids;
        const charge = await transaction(boletoId);
        assert.equal(charge.method, 'boleto');
        assert.equal(charge.status, 'pending');
        assert.equal(charge.simulated, false);
        assert.match(charge.boleto_digitable_line, /^\d{47}$/);
        const shown = await text(page);
        real(shown);
        assert.ok(shown.includes('Pagamento por Boleto'), shown);
        assert.equal(await page.locator('#linha').inputValue(), charge.boleto_digitable_line);
        const pdf = page.getByRole('link', { name: 'Baixar boleto (PDF)' });
        assert.equal(await pdf.getAttribute('href'), charge.boleto_url);
        assert.ok(await pdf.isVisible());
        // The boleto's own Pix, from the emulator, for a production charge.
        assert.equal(await page.locator('#pix').inputValue(), (await atEmulator(boletoId)).boleto?.keyPix);
        assert.ok(await page.getByText('Pagar de outra forma').isVisible());
        await accessible(page, `pending boleto at ${width} px (emulator)`);
        await page.screenshot({
          path: `${ARTIFACTS}/checkout-emu-boleto-pending-${width}.png`,
          fullPage: true,
        });
        sameOriginOnly(opened);
      } finally {
        await page.context().close();
      }
    }
  });

  test('an expired link: the checkout-follow job passes the deadline; the page says so and offers nothing', async () => {
    const checkout = await createCheckout({ expires_in: 300 });
    await world.app.settle();
    const job = checkoutFollowJob({ batchSize: 1000 });
    const deps = jobDeps(world.app.gateway.ctx.db, world.app.gateway.ctx.store);
    // The job's run five minutes and a second later (SPEC 3.5 `expired`).
    await job.run(deps, { now: new Date(Date.now() + 301_000) });
    assert.equal((await checkoutOf(checkout.id)).status, 'expired');
    for (const width of [390, 1280]) {
      const opened = await open(checkout.url, width);
      try {
        const shown = await text(opened.page);
        assert.ok(shown.includes('Link expirado'), shown);
        assert.ok(shown.includes('O prazo deste link de pagamento terminou'), shown);
        assert.equal(await opened.page.locator('form').count(), 0, 'nothing to choose');
        await accessible(opened.page, `expired checkout at ${width} px (emulator)`);
        await opened.page.screenshot({
          path: `${ARTIFACTS}/checkout-emu-expired-${width}.png`,
          fullPage: true,
        });
        sameOriginOnly(opened);
      } finally {
        await opened.page.context().close();
      }
    }
    assert.deepEqual((await checkoutOf(checkout.id)).transaction_ids, [], 'nothing sent to the provider');
  });
});
