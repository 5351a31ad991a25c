import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { formatDigitableLine, formatPayerDocument } from '../../src/boleto-pdf/format.ts';
import { type BoletoPdfInput, NOT_KNOWN, renderBoletoPdf, TEST_MARK } from '../../src/boleto-pdf/render.ts';
import { boletoNumbers } from '../../src/providers/emulator/boleto.ts';
import { dynamicPixPayload } from '../../src/providers/emulator/pix.ts';
import { readPdf } from '../support/pdf.ts';

/**
 * SPEC 2.2 `boleto_url` and SPEC 1 ("PDF marked as test"): the boleto PDF rendered from realistic provider
 * artifacts (the emulator's módulo-11 barcode and módulo-10 line, a BR Code with a valid CRC), rasterized at
 * 300 dpi by poppler and read back by zbar: the bars are the 44 digits, the QR is the Pix copy-and-paste.
 */

const numbers = boletoNumbers('001', 123456, '2026-12-15', '0000001234567890123456789');
const pix = dynamicPixPayload().key;

function input(over: Partial<BoletoPdfInput> = {}): BoletoPdfInput {
  return {
    transactionId: 'txn_01KBOLETOPDF',
    payeeName: 'Loja da Ana Ltda',
    payeeDocument: null,
    payeeAddress: null,
    ourNumber: null,
    agencyCode: null,
    wallet: null,
    documentKind: null,
    accept: null,
    payerName: 'Joao Souza',
    payerDocument: '12345678000190',
    payerAddress: 'Rua Augusta, 500, ap 12 — Consolação — Sao Paulo/SP — CEP 01304-000',
    amount: 123456,
    dueDate: '2026-12-15',
    digitableLine: numbers.digitableLine,
    barcode: numbers.barcode,
    pixCopyPaste: pix,
    reference: 'invoice-7',
    instruction: 'Não receber após o vencimento.',
    environment: 'production',
    simulated: false,
    statusNote: null,
    issuedAt: new Date('2026-11-20T12:00:00.000Z'),
    ...over,
  };
}

/** pdftotext puts each text box on its own line; one space between words is enough to compare. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

describe('boleto PDF (SPEC 2.2 boleto_url, SPEC 1)', () => {
  test('production boleto: the barcode decodes to the 44 digits, the QR to the Pix; no test mark', async () => {
    const read = await readPdf(await renderBoletoPdf(input()));
    assert.equal(read.pages, 1);
    assert.deepEqual(read.codes.sort(), [`I2/5:${numbers.barcode}`, `QR-Code:${pix}`].sort());
    const text = flat(read.text);
    assert.ok(!text.includes(TEST_MARK), text);
    assert.ok(!text.includes('TESTE'), text);
    for (const shown of [
      'Loja da Ana Ltda',
      'Joao Souza',
      '12.345.678/0001-90',
      'R$ 1.234,56',
      '15/12/2026',
      '00190.00009 01234.567897 01234.567897 1 16610000123456',
      'invoice-7',
      'txn_01KBOLETOPDF',
      'Não receber após o vencimento.',
      'Pix Copia e Cola',
    ]) {
      assert.ok(text.includes(shown), `${shown} in:\n${text}`);
    }
    // The copy-and-paste text is printed whole (wrapped across lines).
    assert.ok(read.text.replace(/\s+/g, '').includes(pix.replace(/\s+/g, '')));
  });

  test('FEBRABAN layout (issue 23 item 1.11): bank name and code with its digit, the form fields, both parts', async () => {
    const text = flat((await readPdf(await renderBoletoPdf(input()))).text);
    const count = (s: string) => text.split(s).length - 1;
    // The code alone, not inside a document number such as the payer's CNPJ (…/0001-90).
    const bankCode = text.match(/(?<![0-9])001-9(?![0-9])/g) ?? [];
    // The bank of the line (001: Banco do Brasil, check digit 9) heads both the receipt and the slip.
    assert.equal(count('Banco do Brasil S.A.'), 2, text);
    assert.equal(bankCode.length, 2, text);
    assert.ok(text.includes('Recibo do Pagador'), text);
    assert.ok(text.includes('Ficha de Compensação'), text);
    for (const label of [
      'Local de pagamento',
      'Agência/Código do Beneficiário',
      'Nosso número',
      'Data do documento',
      'Nº do documento',
      'Espécie doc.',
      'Aceite',
      'Data do processamento',
      'Carteira',
      'Espécie',
      '(=) Valor do documento',
      '(=) Valor cobrado',
      'Sacador/Avalista',
    ]) {
      assert.ok(text.includes(label), `${label} in:\n${text}`);
    }
    // Espécie: the line's currency code 9, reais. Document date: the charge's creation (20/11/2026).
    assert.ok(text.includes('R$'), text);
    assert.ok(text.includes('20/11/2026'), text);
    // The payer's address from the creation request, on both parts.
    assert.equal(count('Rua Augusta, 500, ap 12 — Consolação — Sao Paulo/SP — CEP 01304-000'), 2, text);
    // What the gateway does not know is said, not invented: the beneficiary's CNPJ and address.
    assert.ok(text.includes(`Loja da Ana Ltda — CNPJ ${NOT_KNOWN}`), text);
    assert.ok(text.includes(`Endereço: ${NOT_KNOWN}`), text);
    assert.ok(text.includes(`"${NOT_KNOWN}": dado que o gateway não recebe`), text);
  });

  test('FEBRABAN fields the caller knows are printed as given; another bank heads its own boleto', async () => {
    const bradesco = boletoNumbers('237', 5000, '2026-12-15', '0000001234567890123456789');
    const text = flat(
      (
        await readPdf(
          await renderBoletoPdf(
            input({
              payeeDocument: '11222333000181',
              payeeAddress: 'Rua do Beneficiário, 1 — Centro — Curitiba/PR — CEP 80010-000',
              ourNumber: '31285570001000001',
              agencyCode: '1234-5 / 0012345-6',
              digitableLine: bradesco.digitableLine,
              barcode: bradesco.barcode,
              amount: 5000,
            }),
          ),
        )
      ).text,
    );
    for (const shown of [
      'Banco Bradesco S.A.',
      '237-2',
      'CNPJ 11.222.333/0001-81',
      'Rua do Beneficiário, 1 — Centro — Curitiba/PR — CEP 80010-000',
      '31285570001000001',
      '1234-5 / 0012345-6',
    ]) {
      assert.ok(text.includes(shown), `${shown} in:\n${text}`);
    }
    assert.ok(!text.includes('Banco do Brasil'), text);
  });

  test("the provider's carteira, espécie doc. and aceite are printed in their boxes; absent ones say so", async () => {
    const given = flat(
      (await readPdf(await renderBoletoPdf(input({ wallet: '17', documentKind: 'DM', accept: 'N' })))).text,
    );
    // pdftotext reads a row of the ficha as its labels, then its values in the same order.
    const dates = 'Data do documento Nº do documento Espécie doc. Aceite Data do processamento';
    const wallet = 'Uso do banco Carteira Espécie Quantidade Valor';
    assert.ok(given.includes(`${dates} 20/11/2026 invoice-7 DM N 20/11/2026`), given);
    assert.ok(given.includes(`${wallet} 17 R$`), given);
    const absent = flat((await readPdf(await renderBoletoPdf(input()))).text);
    assert.ok(absent.includes(`${dates} 20/11/2026 invoice-7 ${NOT_KNOWN} ${NOT_KNOWN} 20/11/2026`), absent);
    assert.ok(absent.includes(`${wallet} ${NOT_KNOWN} R$`), absent);
  });

  test('sandbox boleto: the test mark is printed; the barcode still decodes', async () => {
    const read = await readPdf(await renderBoletoPdf(input({ environment: 'sandbox', pixCopyPaste: null })));
    assert.ok(flat(read.text).includes(TEST_MARK), read.text);
    assert.deepEqual(read.codes, [`I2/5:${numbers.barcode}`]);
    assert.ok(!read.text.includes('Pix Copia e Cola'), 'no Pix without a copy-and-paste');
  });

  test('a simulated charge is marked as test even in production', async () => {
    const read = await readPdf(await renderBoletoPdf(input({ simulated: true, pixCopyPaste: null })));
    assert.ok(flat(read.text).includes(TEST_MARK), read.text);
  });

  test('a boleto no longer payable carries its status note', async () => {
    const note = 'Boleto pago. Não pague novamente.';
    const read = await readPdf(await renderBoletoPdf(input({ statusNote: note, pixCopyPaste: null })));
    assert.ok(flat(read.text).includes(note), read.text);
  });

  test('deterministic: the same input gives the same bytes; the creation date comes from the input', async () => {
    const a = await renderBoletoPdf(input());
    const b = await renderBoletoPdf(input());
    assert.ok(a.equals(b));
    assert.ok(a.subarray(0, 5).toString('latin1') === '%PDF-');
    assert.equal((await readPdf(a)).info.CreationDate, '2026-11-20T12:00:00Z');
    const other = await renderBoletoPdf(input({ issuedAt: new Date('2026-11-21T12:00:00.000Z') }));
    assert.ok(!a.equals(other));
  });
});

describe('boleto texts', () => {
  test('digitable line groups (FEBRABAN 47 digits; convênio 48) and CPF/CNPJ', () => {
    assert.equal(
      formatDigitableLine('00190000090123456789701234567897116610000123456'),
      '00190.00009 01234.567897 01234.567897 1 16610000123456',
    );
    assert.equal(
      formatDigitableLine('836200000005667800481000180975657313001589636081'),
      '83620000000-5 66780048100-0 18097565731-3 00158963608-1',
    );
    assert.equal(formatPayerDocument('12345678901'), '123.456.789-01');
    assert.equal(formatPayerDocument('12345678000190'), '12.345.678/0001-90');
  });
});
