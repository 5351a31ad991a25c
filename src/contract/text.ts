import { z } from 'zod';

/** SPEC 8: text limits count UTF-8 bytes, not UTF-16 code units or characters. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * A text field limited to `min`..`max` UTF-8 bytes after trim (SPEC 4.1, 8). The trimmed copy is only
 * measured: the value keeps its original spelling, which the idempotency hash and the snapshot store.
 */
export function utf8Text(min: number, max: number, opts: { trim?: boolean } = {}) {
  const trim = opts.trim ?? true;
  const rule = `${min} to ${max} bytes of UTF-8${trim ? ' after trim' : ''}`;
  return z
    .string()
    .refine(
      (s) => {
        const n = utf8Bytes(trim ? s.trim() : s);
        return n >= min && n <= max;
      },
      { message: `must be ${rule}` },
    )
    .meta({ description: `Text, ${rule}.` });
}
