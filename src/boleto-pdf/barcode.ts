import bwipjs from 'bwip-js/node';

/**
 * The boleto barcode: Interleaved 2 of 5 of the 44 digits, no I25 check digit of its own (the barcode carries
 * its módulo-11 digit at position 5), FEBRABAN dimensions: narrow element 0.254 mm, wide = 3 × narrow, bars
 * 13 mm high, about 103 mm long. bwip-js encodes (its `sbs` is the bar/space sequence, 1 = narrow, 2 = wide);
 * the bars are drawn here as vector rectangles, so they stay sharp at any print or scan resolution.
 */

/** 0.254 mm in PDF points (0.72 pt): exactly 3 pixels at 300 dpi. */
export const NARROW = 0.72;
export const WIDE = 3 * NARROW;
/** 13 mm. */
export const BAR_HEIGHT = 36.85;

export interface Bar {
  readonly x: number;
  readonly width: number;
}

/** The bars of `digits` (an even count) from x = 0, and the symbol's total width. */
export function interleaved2of5Bars(digits: string): { bars: Bar[]; width: number } {
  if (!/^([0-9]{2})+$/.test(digits)) throw new RangeError('Interleaved 2 of 5 needs an even count of digits');
  const [symbol] = bwipjs.raw({ bcid: 'interleaved2of5', text: digits, includecheck: false });
  if (!symbol || !('sbs' in symbol)) throw new Error('bwip-js gave no linear symbol');
  const bars: Bar[] = [];
  let x = 0;
  // sbs alternates bar, space, bar... starting with a bar.
  symbol.sbs.forEach((units, i) => {
    const width = units > 1 ? WIDE : NARROW;
    if (i % 2 === 0) bars.push({ x, width });
    x += width;
  });
  return { bars, width: x };
}

/** Draws the barcode with its top-left corner at (x, y) on a pdfkit document. */
export function drawBarcode(doc: PDFKit.PDFDocument, digits: string, x: number, y: number): number {
  const { bars, width } = interleaved2of5Bars(digits);
  for (const bar of bars) doc.rect(x + bar.x, y, bar.width, BAR_HEIGHT);
  doc.fillColor('black').fill();
  return width;
}
