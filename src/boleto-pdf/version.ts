import { createHash } from 'node:crypto';
import type { BoletoPdfInput } from './render.ts';

/**
 * The version of a boleto document (issue 23 item 2.5): the sha256 of everything the PDF prints (the
 * provider's FEBRABAN fields included: a due-date change that brings new ones is a new version), so the same
 * charge gives the same version until one of its artifacts changes (a new due date brings a new line and
 * barcode, a payment a status note, the Pix's deadline removes the Pix...). It is the PDF's strong ETag and
 * half of its cache key (src/boleto-pdf/cache.ts).
 *
 * LAYOUT names the drawing in render.ts: change it whenever render.ts draws differently from the same
 * input, so no process serves a PDF cached under the old layout.
 */
export const LAYOUT = 'febraban-2026-11-provider-fields';

export function boletoPdfVersion(input: BoletoPdfInput): string {
  // Key order is the input's, fixed by boletoPdfInput; the Date serializes as its ISO instant.
  return createHash('sha256')
    .update(JSON.stringify({ layout: LAYOUT, input }))
    .digest('hex');
}
