/**
 * `npm run collection` (issue 15 item 4): a Postman v2.1 collection of the served OpenAPI document, built
 * the way scripts/lint-openapi.ts builds it and converted by Postman's own openapi-to-postmanv2: one folder
 * per tag, one request per operation with its example body. Written to docs/calebe.postman_collection.json;
 * test/unit/postman-collection.test.ts regenerates it and fails on drift.
 *
 *   node --import tsx scripts/collection.ts [--out file.json]
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { type CollectionResult, convert } from 'openapi-to-postmanv2';
import { buildOpenApiDocument } from './openapi.ts';

export const COLLECTION_FILE = 'docs/calebe.postman_collection.json';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The converter's output made stable and ready to send: its random ids dropped (Postman assigns its own on
 * import; random ones would make every regeneration a diff), response examples dropped (the OpenAPI
 * document has them; they are most of the size), the session token named `sessionToken` and every
 * Idempotency-Key a fresh `{{$guid}}`, so a request sent twice from Postman is not taken for a replay.
 */
function tidy(node: Json): Json {
  if (Array.isArray(node)) return node.map(tidy);
  if (node === null || typeof node !== 'object') {
    return typeof node === 'string' ? node.replaceAll('{{bearerToken}}', '{{sessionToken}}') : node;
  }
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'id' && typeof value === 'string' && UUID.test(value)) continue;
    if (key === 'response' && Array.isArray(value)) continue;
    out[key] = tidy(value);
  }
  // Optional query filters start unticked: sent as a placeholder they would narrow or fail the request.
  if (Array.isArray(out.query)) {
    out.query = out.query.map((q) => {
      if (q === null || typeof q !== 'object' || Array.isArray(q)) return q;
      const required = typeof q.description === 'string' && q.description.startsWith('(Required)');
      return { ...q, disabled: !required };
    });
  }
  if (typeof out.key === 'string' && out.key.toLowerCase() === 'idempotency-key' && 'value' in out) {
    out.value = '{{$guid}}';
  }
  return out;
}

interface Parameter {
  in?: string;
  name?: string;
  example?: unknown;
  schema?: { example?: unknown; default?: unknown; enum?: unknown[]; type?: string; minimum?: number };
}

/**
 * The converter fakes a value for a parameter with no example, differently on every run; a value derived
 * from its schema (default, first enum member, minimum) keeps the file the same from one run to the next.
 */
function withParameterExamples(document: { paths?: Record<string, Record<string, unknown>> }): void {
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item)) {
      const parameters = (operation as { parameters?: Parameter[] }).parameters ?? [];
      for (const p of parameters) {
        if (p.example !== undefined || !p.schema) continue;
        const s = p.schema;
        const numeric = s.type === 'integer' || s.type === 'number';
        // An empty example counts as none (it would be faked); a string gets a visible `<name>` to replace.
        p.example = s.example ?? s.default ?? s.enum?.[0] ?? (numeric ? (s.minimum ?? 1) : `<${p.name}>`);
      }
    }
  }
}

export async function buildCollection(): Promise<Json> {
  const document = (await buildOpenApiDocument()) as { paths?: Record<string, Record<string, unknown>> };
  withParameterExamples(document);
  const result = await new Promise<CollectionResult>((resolve, reject) => {
    convert(
      { type: 'json', data: document },
      {
        folderStrategy: 'Tags',
        requestParametersResolution: 'Example',
        exampleParametersResolution: 'Example',
      },
      (err, res) => (err || !res ? reject(new Error(err?.message ?? 'no result')) : resolve(res)),
    );
  });
  if (!result.result || !result.output?.[0]) throw new Error(`conversion failed: ${result.reason}`);
  const converted = tidy(result.output[0].data as Json) as { [key: string]: Json };
  const { _postman_id: _random, ...info } = converted.info as { [key: string]: Json };
  return {
    info,
    item: converted.item ?? [],
    variable: [
      { key: 'baseUrl', value: 'http://localhost:3000', type: 'string' },
      { key: 'apiKey', value: '', type: 'string', description: 'X-API-Key of the public API (clb_test_…)' },
      { key: 'sessionToken', value: '', type: 'string', description: 'data.token of POST /admin/sessions' },
    ],
  };
}

export function serialize(collection: Json): string {
  return `${JSON.stringify(collection, null, 2)}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--out');
  const file = at >= 0 ? (process.argv[at + 1] ?? COLLECTION_FILE) : COLLECTION_FILE;
  writeFileSync(file, serialize(await buildCollection()));
  console.log(`wrote ${file}`);
}
