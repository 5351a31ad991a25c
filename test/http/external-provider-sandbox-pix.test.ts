import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { isValidPixPayload } from '@brazilian-utils/brazilian-utils';
import { describe, test } from 'vitest';
import { addDays, today } from '../support/charges.ts';
import { externalCharges } from '../support/external-charges.ts';
import {
  CHARGE_CASES,
  type ChargeCase,
  keyOf,
  useExternalProviderWorld,
} from '../support/external-provider.ts';
import { readPdf } from '../support/pdf.ts';

/**
 * Issue 22 item 2.2: SPEC 1 (external provider / sandbox: "no Pix payable") and SPEC 2.2
 * (`boleto_pix_copy_paste`, `boleto_pix_expires_at` null for a boleto without a payable Pix). The emulator's
 * sandbox hands out a valid BR Code in `KeyPix`, as the issue found; the gateway must not pass it on: not at
 * creation, not from a later read, not after a due-date change, not in the PDF nor on the charge page.
 */

const world = useExternalProviderWorld();
const h = externalCharges(world);

const [, , BOLETO_SANDBOX] = CHARGE_CASES as [ChargeCase, ChargeCase, ChargeCase];

/** The BR Code the provider's sandbox holds for the charge: there is one, so hiding it is the gateway's work. */
async function sandboxPixOf(id: string): Promise<string> {
  const [remote] = await h.remote(id);
  const keyPix = remote?.boleto?.keyPix ?? '';
  assert.ok(isValidPixPayload(keyPix), keyPix);
  return keyPix;
}

function assertNoPix(data: Record<string, unknown>): void {
  assert.equal(data.environment, 'sandbox');
  assert.equal(data.boleto_pix_copy_paste, null);
  assert.equal(data.boleto_pix_expires_at, null);
  // The boleto itself is issued (SPEC 1: a test boleto at the provider sandbox).
  assert.match(String(data.boleto_digitable_line), /^[0-9]{47,48}$/);
  assert.match(String(data.boleto_barcode), /^[0-9]{44}$/);
}

describe('issue 22 item 2.2: a sandbox boleto hands out no Pix (SPEC 1, 2.2)', () => {
  test('POST /v1/boleto: 201 with both Pix fields null; GET the same; the PDF and the charge page show no Pix', async () => {
    const { res, id } = await h.create(BOLETO_SANDBOX);
    assert.equal(res.status, 201, res.text);
    assertNoPix(res.body.data);
    assertNoPix(await h.read(BOLETO_SANDBOX, id));
    const keyPix = await sandboxPixOf(id);

    const page = await world.app.request('GET', new URL(res.body.data.document_url).pathname);
    assert.equal(page.status, 200);
    assert.ok(!page.text.includes(keyPix));
    assert.ok(!page.text.includes('Pague com Pix'), 'no Pix block on the payer page');

    const pdf = await world.app.request('GET', new URL(res.body.data.boleto_url).pathname);
    assert.equal(pdf.status, 200);
    const read = await readPdf(pdf.bytes);
    // Only the boleto's barcode: no QR code of a Pix.
    assert.deepEqual(read.codes, [`I2/5:${res.body.data.boleto_barcode}`]);
  });

  test('a read that carries the Pix later (slow emission) does not fill it in: refresh and GET keep it null', async () => {
    const { res, id } = await h.create(BOLETO_SANDBOX, { fault: { type: 'late_pix', queries: 1 } });
    assert.equal(res.status, 201, res.text);
    assertNoPix(res.body.data);
    await sandboxPixOf(id);
    const refreshed = await h.refresh(BOLETO_SANDBOX, id);
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.equal(refreshed.body.data.status, 'pending');
    assertNoPix(refreshed.body.data);
    assertNoPix(await h.read(BOLETO_SANDBOX, id));
    assert.equal(await h.calls(id, 'query'), 1);
  });

  test('PATCH /v1/transactions/{id}/boleto: the new line and date, still no Pix', async () => {
    const { res, id } = await h.create(BOLETO_SANDBOX);
    assert.equal(res.status, 201, res.text);
    const due = addDays(today(), 30);
    const changed = await world.app.request('PATCH', `/v1/transactions/${id}/boleto`, {
      headers: { 'x-api-key': keyOf(world, BOLETO_SANDBOX), 'idempotency-key': randomUUID() },
      json: { due_date: due },
    });
    assert.equal(changed.status, 200, changed.text);
    const data = await h.read(BOLETO_SANDBOX, id);
    assert.equal(data.boleto_due_date, due);
    assert.notEqual(data.boleto_digitable_line, res.body.data.boleto_digitable_line);
    assertNoPix(data);
    await sandboxPixOf(id);
  });

  test('paid at the provider: 200 paid, the Pix fields stay null', async () => {
    const { res, id } = await h.create(BOLETO_SANDBOX);
    assert.equal(res.status, 201, res.text);
    await world.control.move(res.body.data.provider_reference, 'paid_boleto');
    const paid = await h.refresh(BOLETO_SANDBOX, id);
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.body.data.status, 'paid');
    assert.equal(paid.body.data.boleto_pix_copy_paste, null);
    assert.equal(paid.body.data.boleto_pix_expires_at, null);
  });
});
