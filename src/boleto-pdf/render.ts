import PDFDocument from 'pdfkit';
import { formatBRL, formatDate } from '../charge-page/render.ts';
import { drawBarcode } from './barcode.ts';
import { formatDigitableLine, formatPayerDocument } from './format.ts';
import { drawPixQr } from './qr.ts';

/**
 * The boleto PDF served at `boleto_url` (SPEC 2.2, `<document_url>/boleto.pdf`), drawn from the provider's
 * artifacts: a payer's receipt with the Pix QR of the boleto (when it is payable), then the "ficha de
 * compensação" with the digitable line and the Interleaved 2 of 5 barcode a bank scans. A boleto of the
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
  payerName: string | null;
  /** CPF or CNPJ digits, as in the creation request. */
  payerDocument: string | null;
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
  /** When the charge was created: the PDF's creation date. */
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

/** A labelled box of the boleto's form: small grey label, value below; returns the box's bottom. */
function field(
  doc: PDFKit.PDFDocument,
  x: number,
  y: number,
  width: number,
  label: string,
  value: string,
  opts: { height?: number; bold?: boolean; align?: 'left' | 'right' } = {},
): number {
  const height = opts.height ?? 28;
  doc.lineWidth(0.5).strokeColor('black').rect(x, y, width, height).stroke();
  doc
    .font('Helvetica')
    .fontSize(6.5)
    .fillColor(GREY)
    .text(label, x + 3, y + 2.5, { width: width - 6 });
  doc
    .font(opts.bold ? 'Helvetica-Bold' : 'Helvetica')
    .fontSize(9)
    .fillColor('black')
    .text(value, x + 3, y + 12, { width: width - 6, align: opts.align ?? 'left', height: height - 13 });
  return y + height;
}

function testBanner(doc: PDFKit.PDFDocument, y: number): number {
  doc.rect(LEFT, y, WIDTH, 34).fillColor(RED).fill();
  doc
    .font('Helvetica-Bold')
    .fontSize(18)
    .fillColor('white')
    .text(TEST_MARK, LEFT, y + 9, { width: WIDTH, align: 'center' });
  return y + 34;
}

function payer(input: BoletoPdfInput): string {
  const name = input.payerName ?? '';
  const doc = input.payerDocument ? formatPayerDocument(input.payerDocument) : '';
  return [name, doc && `CPF/CNPJ ${doc}`].filter(Boolean).join(' — ');
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
  const line = formatDigitableLine(input.digitableLine);
  let y = LEFT;

  if (test) y = testBanner(doc, y) + 10;

  // Payer's receipt.
  doc.font('Helvetica-Bold').fontSize(13).fillColor('black').text('Recibo do Pagador', LEFT, y);
  y += 20;
  if (input.statusNote) {
    doc.font('Helvetica-Bold').fontSize(11).fillColor(RED).text(input.statusNote, LEFT, y, { width: WIDTH });
    y += 18;
  }
  const half = WIDTH / 2;
  y = field(doc, LEFT, y, WIDTH, 'Beneficiário', input.payeeName);
  y = field(doc, LEFT, y, WIDTH, 'Pagador', payer(input));
  field(doc, LEFT, y, half, 'Vencimento', due, { bold: true });
  y = field(doc, LEFT + half, y, half, 'Valor do documento', amount, { bold: true, align: 'right' });
  field(doc, LEFT, y, half, 'Referência', input.reference);
  y = field(doc, LEFT + half, y, half, 'Código da cobrança', input.transactionId);
  y += 14;

  if (input.pixCopyPaste) {
    const qr = 150;
    doc.font('Helvetica-Bold').fontSize(12).fillColor('black').text('Pague com Pix', LEFT, y);
    y += 18;
    drawPixQr(doc, input.pixCopyPaste, LEFT, y, qr);
    const textX = LEFT + qr + 14;
    doc
      .font('Helvetica')
      .fontSize(9)
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
      .text('Pix Copia e Cola', textX, doc.y + 8);
    doc
      .font('Courier')
      .fontSize(7.5)
      .text(input.pixCopyPaste, textX, doc.y + 2, { width: WIDTH - qr - 14, lineBreak: true });
    y = Math.max(y + qr, doc.y) + 12;
  }

  // Cut line between the receipt and the bank's slip.
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
  y += 18;

  // Ficha de compensação: bank, digitable line, the form, the barcode.
  const bank = input.barcode.startsWith('8') ? '' : `Banco ${input.barcode.slice(0, 3)}`;
  doc
    .font('Helvetica-Bold')
    .fontSize(12)
    .fillColor('black')
    .text(bank, LEFT, y + 4);
  doc
    .font('Helvetica-Bold')
    .fontSize(11.5)
    .text(line, LEFT + 90, y + 5, { width: WIDTH - 90, align: 'right' });
  y += 22;
  const right = 150;
  const main = WIDTH - right;
  field(doc, LEFT, y, main, 'Local de pagamento', 'Pagável em qualquer banco até o vencimento');
  y = field(doc, LEFT + main, y, right, 'Vencimento', due, { bold: true, align: 'right' });
  field(doc, LEFT, y, main, 'Beneficiário', input.payeeName);
  y = field(doc, LEFT + main, y, right, 'Valor do documento', amount, { bold: true, align: 'right' });
  const instructions = [
    test ? `${TEST_MARK}: boleto do ambiente de teste do provedor, não pague.` : null,
    input.instruction,
    `Código da cobrança: ${input.transactionId}`,
  ]
    .filter((s): s is string => Boolean(s))
    .join('\n');
  field(doc, LEFT, y, main, 'Instruções', instructions, { height: 56 });
  y = field(doc, LEFT + main, y, right, '(=) Valor cobrado', '', { height: 56 });
  y = field(doc, LEFT, y, WIDTH, 'Pagador', payer(input), { height: 30 });
  y += 12;
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
      .text(TEST_MARK, LEFT, y + 60, { width: WIDTH, align: 'center' });
  }

  doc.end();
  return done;
}
