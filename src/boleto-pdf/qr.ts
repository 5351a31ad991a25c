import QRCode from 'qrcode';

/**
 * The Pix QR code of the boleto (its copy-and-paste text, an EMV BR Code) drawn as vector squares: error
 * correction M, as the charge page (src/charge-page/render.ts), and the 4-module quiet zone a scanner needs.
 * Dark modules of a row are merged into runs, so the PDF holds a few hundred rectangles, not thousands.
 */
export function drawPixQr(doc: PDFKit.PDFDocument, text: string, x: number, y: number, size: number): void {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const quiet = 4;
  const cell = size / (modules.size + 2 * quiet);
  doc.rect(x, y, size, size).fillColor('white').fill();
  for (let row = 0; row < modules.size; row++) {
    let col = 0;
    while (col < modules.size) {
      if (!modules.get(row, col)) {
        col++;
        continue;
      }
      const start = col;
      while (col < modules.size && modules.get(row, col)) col++;
      doc.rect(x + (quiet + start) * cell, y + (quiet + row) * cell, (col - start) * cell, cell);
    }
  }
  doc.fillColor('black').fill();
}
