import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Reads `<dir>/<name>`, creating it first (mode 0600) with `generate()` when absent. The value is written to
 * a temporary file then hard-linked into place (link refuses an existing name), so two processes starting at
 * once agree on one complete value. For secrets of the embedded, single-machine setup only.
 */
export async function readOrCreateSecretFile(
  dir: string,
  name: string,
  generate: () => string,
): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, name);
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  await writeFile(temp, generate(), { flag: 'wx', mode: 0o600 });
  try {
    await link(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(temp);
  }
  return (await readFile(file, 'utf8')).trim();
}
