import PDFDocument from 'pdfkit';
import { saoPauloDate } from '../aggregates/business-date.ts';
import { formatBRL, formatDate } from '../charge-page/render.ts';
import { boletoBank, boletoCurrency } from './bank.ts';
import { drawBarcode } from './barcode.ts';
import { formatDigitableLine, formatPayerDocument } from './format.ts';
import { drawPixQr } from './qr.ts';

/**
 * The boleto PDF served at `boleto_url` (SPEC 2.2, `<document_url>/boleto.pdf`), drawn from the provider's
 * artifacts in the FEBRABAN layout (issue 23 item 1.11): the "recibo do pagador" with the Pix QR of the
 * boleto (when it is payable), then the "ficha de compensação" with the bank and its code ("001-9"), the
 * digitable line, the form's fields (beneficiário, agência/código, nosso número, espécie, aceite...) and
 * the Interleaved 2 of 5 barcode a bank scans. A boleto of the
 * provider's sandbox, or a simulated charge, carries TEST_MARK (SPEC 1: "PDF marked as test").
 *
 * Deterministic: the same input gives the same bytes (the PDF's dates and file id come from `issuedAt`), so
 * a test can compare renders and nothing in the file depends on when it was served.
 */

export const TEST_MARK = 'DOCUMENTO DE TESTE — SEM VALOR';

export interface BoletoPdfInput {
  transactionId: string;
  /** The beneficiary: the tenant's name. */
  payeeName: string;
  /** The beneficiary's CNPJ and address; null when the gateway does not know them (printed as NOT_KNOWN). */
  payeeDocument: string | null;
  payeeAddress: string | null;
  /** Nosso número and agência/código do beneficiário as the provider issued them; null when not kept. */
  ourNumber: string | null;
  agencyCode: string | null;
  /** Carteira, espécie doc. and aceite as the provider issued them; null when not kept (NOT_KNOWN). */
  wallet: string | null;
  documentKind: string | null;
  accept: string | null;
  payerName: string | null;
  /** CPF or CNPJ digits, as in the creation request. */
  payerDocument: string | null;
  /** The payer's address on one line (SPEC 2.3 request `customer.address`); null on a legacy record. */
  payerAddress: string | null;
  /** Integer centavos. */
  amount: number;
  /** `YYYY-MM-DD`. */
  dueDate: string;
  /** 47 digits (48 for a convênio boleto). */
  digitableLine: string;
  /** 44 digits. */
  barcode: string;
  /** The boleto's Pix copy-and-paste; null when there is no payable Pix. */
  pixCopyPaste: string | null;
  reference: string;
  instruction: string | null;
  environment: 'sandbox' | 'production';
  simulated: boolean;
  /** Printed when the boleto is no longer payable (paid, expired...), null while pending. */
  statusNote: string | null;
  /** When the charge was created: the PDF's creation date, the "data do documento" and "data do processamento". */
  issuedAt: Date;
}

/** SPEC 1: the provider's sandbox and the simulator issue test documents. */
export function isTestBoleto(input: Pick<BoletoPdfInput, 'environment' | 'simulated'>): boolean {
  return input.environment !== 'production' || input.simulated;
}

const PAGE_WIDTH = 595.28;
// 36 pt is a whole number of 300-dpi pixels (150), so the barcode's 3-pixel modules land on the pixel grid.
const LEFT = 36;
const WIDTH = PAGE_WIDTH - 2 * LEFT;
const RED = '#b91c1c';
const GREY = '#4b5563';
/** The right-hand column of the ficha de compensação (vencimento, agência/código, nosso número, valores). */
const RIGHT_COLUMN = 150;
/** Height of one row of the form. */
const ROW = 24;

/**
 * Printed where the gateway has no value for a field of the layout (docs/decisions.md "Boleto PDF: FEBRABAN
 * fields..."): an explicit gap, never a made-up value; the bank reads the boleto from its barcode.
 */
export const NOT_KNOWN = 'Não informado';
const NOT_KNOWN_NOTE =
  `"${NOT_KNOWN}": dado que o gateway não recebe do provedor nem do cadastro do beneficiário. ` +
  'O banco identifica este boleto pelo código de barras e pela linha digitável.';

interface FieldOptions {
  height?: number;
  bold?: boolean;
  align?: 'left' | 'right';
  size?: number;
}

/** A labelled box of the boleto's form: small grey label, value below; returns the box's bottom. */
function field(
  doc: PDFKit.PDFDocument,
  x: number,
  y: number,
  width: number,
  label: string,
  value: string,
  opts: FieldOptions = {},
): number {
  const height = opts.height ?? ROW;
  doc.lineWidth(0.5).strokeColor('black').rect(x, y, width, height).stroke();
  doc
    .font('Helvetica')
    .fontSize(6)
    .fillColor(GREY)
    .text(label, x + 2.5, y + 2, { width: width - 5, lineBreak: false });
  doc
    .font(opts.bold ? 'Helvetica-Bold' : 'Helvetica')
    .fontSize(opts.size ?? 8.5)
    .fillColor('black')
    .text(value, x + 2.5, y + 10, { width: width - 5, align: opts.align ?? 'left', height: height - 10 });
  return y + height;
}

/** A row of equal boxes across `width`; returns the row's bottom. */
function row(
  doc: PDFKit.PDFDocument,
  x: number,
  y: number,
  width: number,
  boxes: readonly (readonly [label: string, value: string])[],
  opts: FieldOptions = {},
): number {
  const w = width / boxes.length;
  boxes.forEach(([label, value], i) => {
    field(doc, x + i * w, y, w, label, value, { size: 7.5, ...opts });
  });
  return y + (opts.height ?? ROW);
}

/**
 * The header of both parts of the layout: bank name | bank code with its check digit | the digitable line
 * (ficha) or the part's name (recibo), split by vertical rules.
 */
function bankHeader(doc: PDFKit.PDFDocument, y: number, input: BoletoPdfInput, right: string): number {
  const bank = boletoBank(input.digitableLine);
  const nameWidth = 150;
  const codeWidth = 52;
  doc
    .font('Helvetica-Bold')
    .fontSize(bank?.name && bank.name.length > 24 ? 8 : 10)
    .fillColor('black')
    .text(bank?.name ?? '', LEFT, y + 6, { width: nameWidth - 4, height: 16, lineBreak: false });
  doc
    .font('Helvetica-Bold')
    .fontSize(14)
    .text(bank?.codeWithCheckDigit ?? '', LEFT + nameWidth, y + 3, { width: codeWidth, align: 'center' });
  doc
    .font('Helvetica-Bold')
    .fontSize(right.length > 30 ? 10.5 : 11)
    .text(right, LEFT + nameWidth + codeWidth + 4, y + 5, {
      width: WIDTH - nameWidth - codeWidth - 4,
      align: 'right',
    });
  const bottom = y + 20;
  doc
    .lineWidth(1)
    .strokeColor('black')
    .moveTo(LEFT, bottom)
    .lineTo(LEFT + WIDTH, bottom)
    .moveTo(LEFT + nameWidth, y + 2)
    .lineTo(LEFT + nameWidth, bottom)
    .moveTo(LEFT + nameWidth + codeWidth, y + 2)
    .lineTo(LEFT + nameWidth + codeWidth, bottom)
    .stroke();
  return bottom;
}

function testBanner(doc: PDFKit.PDFDocument, y: number): number {
  doc.rect(LEFT, y, WIDTH, 30).fillColor(RED).fill();
  doc
    .font('Helvetica-Bold')
    .fontSize(17)
    .fillColor('white')
    .text(TEST_MARK, LEFT, y + 8, { width: WIDTH, align: 'center' });
  return y + 30;
}

const known = (value: string | null) => value ?? NOT_KNOWN;

function payer(input: BoletoPdfInput): string {
  const name = input.payerName ?? '';
  const doc = input.payerDocument ? formatPayerDocument(input.payerDocument) : '';
  return [name, doc && `CPF/CNPJ ${doc}`].filter(Boolean).join(' — ');
}

/** Name, CNPJ and address of the beneficiary, as the ficha's Beneficiário box prints them. */
function beneficiary(input: BoletoPdfInput): string {
  const document = input.payeeDocument ? formatPayerDocument(input.payeeDocument) : NOT_KNOWN;
  return `${input.payeeName} — CNPJ ${document}\nEndereço: ${known(input.payeeAddress)}`;
}

export function renderBoletoPdf(input: BoletoPdfInput): Promise<Buffer> {
  const test = isTestBoleto(input);
  const doc = new PDFDocument({
    size: 'A4',
    margin: LEFT,
    info: {
      Title: `Boleto ${input.transactionId}`,
      Subject: test ? TEST_MARK : 'Boleto bancário',
      Producer: 'Calebe',
      Creator: 'Calebe',
      CreationDate: input.issuedAt,
      ModDate: input.issuedAt,
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const amount = formatBRL(input.amount).replace(/\u00a0/g, ' ');
  const due = formatDate(input.dueDate);
  const issued = formatDate(saoPauloDate(input.issuedAt));
  const line = formatDigitableLine(input.digitableLine);
  const currency = boletoCurrency(input.digitableLine) ?? NOT_KNOWN;
  const main = WIDTH - RIGHT_COLUMN;
  const rightX = LEFT + main;
  let y = LEFT;

  if (test) y = testBanner(doc, y) + 8;

  // Recibo do pagador: what the payer keeps.
  y = bankHeader(doc, y, input, 'Recibo do Pagador');
  if (input.statusNote) {
    doc
      .font('Helvetica-Bold')
      .fontSize(11)
      .fillColor(RED)
      .text(input.statusNote, LEFT, y + 4, { width: WIDTH });
    y += 20;
  }
  field(doc, LEFT, y, main, 'Beneficiário', beneficiary(input), { height: 30, size: 8 });
  y = field(doc, rightX, y, RIGHT_COLUMN, 'Agência/Código do Beneficiário', known(input.agencyCode), {
    height: 30,
    align: 'right',
  });
  row(doc, LEFT, y, main, [
    ['Nº do documento', input.reference],
    ['Espécie', currency],
    ['Nosso número', known(input.ourNumber)],
  ]);
  y = field(doc, rightX, y, RIGHT_COLUMN, 'Vencimento', due, { bold: true, align: 'right' });
  field(doc, LEFT, y, main, 'Código da cobrança', input.transactionId);
  y = field(doc, rightX, y, RIGHT_COLUMN, '(=) Valor do documento', amount, { bold: true, align: 'right' });
  y = field(doc, LEFT, y, WIDTH, 'Pagador', [payer(input), input.payerAddress].filter(Boolean).join('\n'), {
    height: 30,
    size: 8,
  });
  doc
    .font('Helvetica')
    .fontSize(6.5)
    .fillColor(GREY)
    .text(NOT_KNOWN_NOTE, LEFT, y + 3, { width: WIDTH });
  y = doc.y + 6;

  if (input.pixCopyPaste) {
    const qr = 120;
    doc.font('Helvetica-Bold').fontSize(11).fillColor('black').text('Pague com Pix', LEFT, y);
    y += 15;
    drawPixQr(doc, input.pixCopyPaste, LEFT, y, qr);
    const textX = LEFT + qr + 14;
    doc
      .font('Helvetica')
      .fontSize(8.5)
      .fillColor('black')
      .text(
        'Abra o app do seu banco, escolha Pix e leia o QR code, ou use o Pix Copia e Cola abaixo. ' +
          'Pague por Pix ou pelo boleto, nunca pelos dois.',
        textX,
        y + 4,
        { width: WIDTH - qr - 14 },
      );
    doc
      .font('Helvetica-Bold')
      .fontSize(8)
      .text('Pix Copia e Cola', textX, doc.y + 6);
    doc
      .font('Courier')
      .fontSize(7)
      .text(input.pixCopyPaste, textX, doc.y + 2, { width: WIDTH - qr - 14, lineBreak: true });
    y = Math.max(y + qr, doc.y) + 8;
  }

  // Cut line between the receipt and the bank's slip.
  doc
    .font('Helvetica')
    .fontSize(6.5)
    .fillColor(GREY)
    .text('Autenticação mecânica — Recibo do Pagador', LEFT, y, { width: WIDTH, align: 'right' });
  y += 14;
  doc
    .lineWidth(0.5)
    .strokeColor(GREY)
    .dash(3, { space: 3 })
    .moveTo(LEFT, y)
    .lineTo(LEFT + WIDTH, y)
    .stroke()
    .undash();
  doc
    .font('Helvetica')
    .fontSize(6.5)
    .fillColor(GREY)
    .text('Corte na linha pontilhada', LEFT, y + 2, { width: WIDTH, align: 'right' });
  y += 14;

  // Ficha de compensação (FEBRABAN layout): what the bank keeps.
  y = bankHeader(doc, y, input, line);
  field(doc, LEFT, y, main, 'Local de pagamento', 'Pagável em qualquer banco até o vencimento');
  y = field(doc, rightX, y, RIGHT_COLUMN, 'Vencimento', due, { bold: true, align: 'right' });
  field(doc, LEFT, y, main, 'Beneficiário', beneficiary(input), { height: 30, size: 8 });
  y = field(doc, rightX, y, RIGHT_COLUMN, 'Agência/Código do Beneficiário', known(input.agencyCode), {
    height: 30,
    align: 'right',
  });
  row(doc, LEFT, y, main, [
    ['Data do documento', issued],
    ['Nº do documento', input.reference],
    ['Espécie doc.', known(input.documentKind)],
    ['Aceite', known(input.accept)],
    ['Data do processamento', issued],
  ]);
  y = field(doc, rightX, y, RIGHT_COLUMN, 'Nosso número', known(input.ourNumber), { align: 'right' });
  row(doc, LEFT, y, main, [
    ['Uso do banco', ''],
    ['Carteira', known(input.wallet)],
    ['Espécie', currency],
    ['Quantidade', ''],
    ['Valor', ''],
  ]);
  y = field(doc, rightX, y, RIGHT_COLUMN, '(=) Valor do documento', amount, { bold: true, align: 'right' });
  const instructions = [
    test ? `${TEST_MARK}: boleto do ambiente de teste do provedor, não pague.` : null,
    input.instruction,
    `Código da cobrança: ${input.transactionId}`,
  ]
    .filter((s): s is string => Boolean(s))
    .join('\n');
  const instructionsHeight = 4 * ROW;
  field(doc, LEFT, y, main, 'Instruções (texto de responsabilidade do beneficiário)', instructions, {
    height: instructionsHeight,
  });
  for (const label of ['(-) Desconto/Abatimento', '(-) Outras deduções', '(+) Mora/Multa']) {
    y = field(doc, rightX, y, RIGHT_COLUMN, label, '');
  }
  y = field(doc, rightX, y, RIGHT_COLUMN, '(=) Valor cobrado', '');
  y = field(doc, LEFT, y, WIDTH, 'Pagador', [payer(input), input.payerAddress].filter(Boolean).join('\n'), {
    height: 32,
    size: 8,
  });
  y = field(doc, LEFT, y, WIDTH, 'Sacador/Avalista', '', { height: 18 });
  y += 10;
  const barsWidth = drawBarcode(doc, input.barcode, LEFT, y);
  doc
    .font('Helvetica')
    .fontSize(6.5)
    .fillColor(GREY)
    .text('Autenticação mecânica — Ficha de Compensação', LEFT + barsWidth + 24, y, {
      width: WIDTH - barsWidth - 24,
      align: 'right',
    });
  if (test) {
    doc
      .font('Helvetica-Bold')
      .fontSize(14)
      .fillColor(RED)
      .text(TEST_MARK, LEFT, y + 46, { width: WIDTH, align: 'center' });
  }

  doc.end();
  return done;
}
