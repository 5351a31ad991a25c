import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { startTestApp, type TestApp } from '../support/http.ts';

/**
 * Issue 23 item 1.10: integrators read /openapi.json and /docs, never SPEC.md, so the public reference
 * must explain itself. Section numbers stay in code, tests and commits; a served string that cites one
 * ("SPEC 4.1", "(SPEC 7)") is a defect.
 */
const CITATION = /\bSPEC\b/;

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

/** Every string of a JSON value, with the path it sits at, so a failure names the operation or schema. */
function strings(value: unknown, at = '$'): { at: string; text: string }[] {
  if (typeof value === 'string') return [{ at, text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${at}[${i}]`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => strings(v, `${at}.${k}`));
  }
  return [];
}

describe('issue 23 item 1.10: the public reference explains itself', () => {
  test('no summary, description or other string of the served /openapi.json cites the SPEC', async () => {
    const res = await app.request('GET', '/openapi.json');
    assert.equal(res.status, 200);
    const cited = strings(res.body)
      .filter((s) => CITATION.test(s.text))
      .map((s) => `${s.at}: ${s.text.slice(0, 120)}`);
    assert.deepEqual(cited, [], 'public strings that cite the SPEC');
    // Belt and braces: keys too (a tag name, a property name), and anything the walk above did not see.
    assert.doesNotMatch(res.text, CITATION);
  });

  test('what the docs page shows comes from that document: it names /openapi.json and cites nothing', async () => {
    const page = await app.request('GET', '/docs/');
    const html =
      page.status === 302 ? (await app.request('GET', page.headers.get('location') ?? '')).text : page.text;
    assert.match(html, /\/openapi\.json/);
    assert.doesNotMatch(html, CITATION);
  });
});
