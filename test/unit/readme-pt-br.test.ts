import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'vitest';

/**
 * Issue 15 item 2: docs/pt-BR/README.md is not executed (test/e2e/readme.test.ts runs README.md only), so
 * its commands must be copies of the English README's tested ones; only trailing comments are translated.
 */
const command = (line: string) => line.replace(/\s+(#|\/\/)\s.*$/, '').trimEnd();
const blocks = (markdown: string, lang: string) =>
  [...markdown.matchAll(new RegExp(`^\`\`\`${lang}\\b[^\\n]*\\n([\\s\\S]*?)^\`\`\``, 'gm'))].flatMap((m) =>
    (m[1] ?? '').split('\n').map(command).filter(Boolean),
  );

describe('docs/pt-BR/README.md', () => {
  const english = readFileSync('README.md', 'utf8');
  const portuguese = readFileSync('docs/pt-BR/README.md', 'utf8');

  test('every sh and js line is a line of README.md, comments aside', () => {
    for (const lang of ['sh', 'js']) {
      const known = new Set(blocks(english, lang));
      const lines = blocks(portuguese, lang);
      assert.ok(lines.length > 0, `${lang} blocks`);
      assert.deepEqual(
        lines.filter((l) => !known.has(l)),
        [],
        `${lang} lines not in README.md`,
      );
    }
  });

  test('README.md links to it at the top', () => {
    assert.ok(english.split('\n').slice(0, 4).join('\n').includes('docs/pt-BR/README.md'));
  });
});
