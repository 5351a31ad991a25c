import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * A PDF read back the way a payer's printer and a bank's scanner would: poppler rasterizes it at 300 dpi
 * (`pdftoppm`), zbar decodes every barcode and QR code on the pages (`zbarimg`), `pdftotext` extracts the
 * text. Real tools, no PDF parsing of our own (README "Tests" installs poppler-utils and zbar-tools).
 */

const run = promisify(execFile);

export interface ReadPdf {
  /** `SYMBOLOGY:data` for every code zbar found, e.g. `I2/5:0019…`, `QR-Code:000201…`. */
  codes: string[];
  text: string;
  pages: number;
  /** `pdfinfo -isodates` as name → value (`CreationDate`, `Title`...). */
  info: Record<string, string>;
}

export async function readPdf(pdf: Buffer): Promise<ReadPdf> {
  const dir = await mkdtemp(join(tmpdir(), 'calebe-pdf-'));
  const file = join(dir, 'doc.pdf');
  await writeFile(file, pdf);
  await run('pdftoppm', ['-r', '300', '-png', file, join(dir, 'page')]);
  const pages = (await readdir(dir))
    .filter((f) => f.endsWith('.png'))
    .sort()
    .map((f) => join(dir, f));
  const codes: string[] = [];
  for (const page of pages) {
    // Only the symbologies a boleto carries (interleaved 2 of 5, QR), as a bank's scanner reads it: with all
    // of them on, zbar once read a "Codabar" in the page's text. zbarimg exits 4 when a page has no code
    // at all: that is an answer (no codes), not a failure.
    const { stdout } = await run('zbarimg', [
      '-q',
      '-Sdisable',
      '-Si25.enable',
      '-Sqrcode.enable',
      page,
    ]).catch((error: { code?: number; stdout?: string }) => {
      if (error.code === 4) return { stdout: '' };
      throw error;
    });
    codes.push(...stdout.split('\n').filter((l) => l !== ''));
  }
  const { stdout: text } = await run('pdftotext', [file, '-']);
  const { stdout: infoText } = await run('pdfinfo', ['-isodates', file]);
  const info = Object.fromEntries(
    infoText
      .split('\n')
      .map((l) => /^([A-Za-z ]+):\s+(.*)$/.exec(l))
      .filter((m) => m !== null)
      .map((m) => [m[1], m[2]]),
  );
  await rm(dir, { recursive: true, force: true });
  return { codes, text, pages: pages.length, info };
}
