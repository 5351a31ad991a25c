/**
 * F5 (issue 7): a bad-input campaign of `--requests` (default 10,000) generated requests over real sockets
 * against the gateway process: malformed JSON, duplicate and case-variant keys, out-of-range values, wrong
 * types, oversize bodies (> 1 MiB), missing and invalid Idempotency-Keys, missing, unknown and revoked keys,
 * missing scopes, other tenants' (and the other mode's) transaction ids on every read and action, fuzzed
 * paths, queries and content types. Generated with fast-check from a fixed seed (`--seed`), sent 16 at a
 * time. Checks: 0 answers with 5xx; every error answer a SPEC 7 envelope; 0 events appended by refused
 * requests (every event appended during the campaign belongs to a request answered 2xx); 0 cross-tenant
 * reads (no 2xx body ever carries a transaction or tenant id outside the key's tree and mode).
 */
import fc from 'fast-check';
import { idempotencyStream } from '../src/commands/idempotency.ts';
import {
  type Answer,
  type ChaosOptions,
  Counter,
  call,
  createChaosDatabase,
  fmt,
  freePort,
  GatewayProcess,
  gatewayEnv,
  log,
  pixBody,
  printTable,
  printVerdicts,
  SPEC7_CODES,
  scratchDir,
  seed,
  type Verdict,
  withDb,
} from './support.ts';

const CONCURRENCY = 16;

type KeyName = 'a' | 'aRead' | 'aPix' | 'aRevoked' | 'aLive' | 'a1' | 'b' | 'none';

interface Req {
  category: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  path: string;
  key: KeyName;
  /** Extra or overriding headers (`x-api-key` replaced by a literal value when `rawKey` is set). */
  headers?: Record<string, string>;
  rawKey?: string;
  body?: string | Uint8Array;
  /** `auto`: a fresh valid Idempotency-Key is added; `none`: no header. */
  idem?: 'auto' | 'none' | string;
  /** Statuses this category expects (informational: the invariants are the verdict). */
  expect: readonly number[];
  /** Other tenants' ids: the operation, and whether the id exists (in another tree or mode). */
  probe?: { op: string; exists: boolean };
}

/** Ids no tenant has, in the shape of real ones. */
const MISSING_IDS = [
  'txn_01aaaaaaaaaaaaaaaaaaaaaaaa',
  'txn_01zzzzzzzzzzzzzzzzzzzzzzzz',
  'txn_00000000000000000000000000',
];
const MISSING_TENANT = 'ten_01aaaaaaaaaaaaaaaaaaaaaaaa';

interface World {
  tenants: Record<'a' | 'a1' | 'b', string>;
  /** Transactions of each tree, seeded before the campaign. */
  txns: Record<'a' | 'a1' | 'b', string[]>;
  /** One Idempotency-Key of tree A already used (a different body with it is 409). */
  usedIdem: string;
}

const validPix = JSON.stringify(pixBody('f5-valid', 1250));
const FIELDS = [
  'amount',
  'reference',
  'description',
  'expires_in',
  'customer',
  'customer.name',
  'customer.document',
  'customer.email',
  'customer.phone',
  'customer.address',
  'customer.address.zip_code',
  'customer.address.street',
  'customer.address.number',
  'customer.address.district',
  'customer.address.city',
  'customer.address.state',
] as const;

const NOT_TEXT = new Set(['amount', 'expires_in', 'customer', 'customer.address']);

function withField(path: string, value: unknown): Record<string, unknown> {
  const body = JSON.parse(validPix) as Record<string, unknown>;
  const parts = path.split('.');
  let node = body;
  for (const p of parts.slice(0, -1)) node = node[p] as Record<string, unknown>;
  node[parts.at(-1) as string] = value;
  return body;
}

/** Text of a valid body with `"<field>":<value>` repeated (exactly or in another case) inside its object. */
function duplicated(path: string, variant: string): string {
  const parts = path.split('.');
  const leaf = parts.at(-1) as string;
  const value = JSON.stringify(leaf === 'amount' || leaf === 'expires_in' ? 1250 : 'dup value');
  const needle = `"${leaf}":`;
  const at = validPix.indexOf(needle);
  return `${validPix.slice(0, at)}"${variant}":${value},${validPix.slice(at)}`;
}

const caseVariant = (s: string) =>
  fc
    .array(fc.boolean(), { minLength: s.length, maxLength: s.length })
    .map((flips) => [...s].map((c, i) => (flips[i] ? c.toUpperCase() : c)).join(''))
    .map((v) => (v === s ? s.toUpperCase() : v));

function requests(world: World): fc.Arbitrary<Req> {
  const json = { 'content-type': 'application/json' };
  const create = (category: string, body: string | Uint8Array, expect: readonly number[]): Req => ({
    category,
    method: 'POST',
    path: '/v1/pix',
    key: 'a',
    headers: json,
    body,
    idem: 'auto',
    expect,
  });

  const malformed = fc
    .oneof(
      fc.string({ maxLength: 300 }),
      fc.uint8Array({ maxLength: 300 }),
      fc
        .tuple(
          fc.nat(validPix.length - 1),
          fc.constantFrom('delete', 'insert', 'replace'),
          fc.string({ minLength: 1, maxLength: 3 }),
        )
        .map(([i, op, s]) =>
          op === 'delete'
            ? validPix.slice(0, i) + validPix.slice(i + 1)
            : validPix.slice(0, i) + s + validPix.slice(op === 'insert' ? i : i + 1),
        ),
      fc.integer({ min: 30, max: 5_000 }).map((n) => `{"amount":${'['.repeat(n)}${']'.repeat(n)}}`),
      fc.constantFrom(
        'null',
        '[]',
        '"text"',
        '42',
        '',
        ' ',
        `${validPix} ${validPix}`,
        `${validPix}x`,
        `\uFEFF${validPix}`,
        validPix.replace('"amount"', '"__proto__":{},"amount"'),
        validPix.replace('"Maria Silva"', '"Maria \\ud800 Silva"'),
      ),
    )
    .map((b) => create('malformed JSON', b, [400, 413, 422, 201]));

  const dupKeys = fc
    .constantFrom(...FIELDS)
    .chain((path) => {
      const leaf = path.split('.').at(-1) as string;
      return fc.oneof(fc.constant(leaf), caseVariant(leaf)).map((variant) => duplicated(path, variant));
    })
    .map((b) => create('duplicate / case-variant keys', b, [400]));

  const outOfRange = fc
    .constantFrom<[string, unknown]>(
      ['amount', 0],
      ['amount', -1],
      ['amount', 100_000_001],
      ['amount', 9_007_199_254_740_991],
      ['expires_in', 59],
      ['expires_in', 86_401],
      ['expires_in', -60],
      ['reference', ''],
      ['reference', '   '],
      ['reference', 'r'.repeat(101)],
      ['description', ''],
      ['description', 'd'.repeat(201)],
      ['description', 'ç'.repeat(101)],
      ['customer.name', 'A'],
      ['customer.name', 'n'.repeat(121)],
      ['customer.document', '123'],
      ['customer.document', '123.456.789-01'],
      ['customer.email', 'no-at-sign'],
      ['customer.email', `${'e'.repeat(250)}@x.io`],
      ['customer.phone', 'phone'],
      ['customer.phone', '1'.repeat(21)],
      ['customer.address.zip_code', '0131010'],
      ['customer.address.zip_code', 'abcdefgh'],
      ['customer.address.state', 'ZZ'],
      ['customer.address.number', ''],
      ['customer.address.street', 'x'],
      ['customer.address.district', 'd'.repeat(81)],
      ['customer.address.city', ''],
      ['tenant_id', 'ten_someone_else'],
      ['provider_id', 'prv_x'],
      ['callback_url', 'http://10.0.0.1/hook'],
      ['callback_url', 'https://169.254.169.254/latest'],
      ['callback_url', 'ftp://example.com/x'],
      ['callback_url', 'not a url'],
      ['cost_center_id', 'cc_does_not_exist'],
    )
    .map(([field, value]) =>
      create('out-of-range values', JSON.stringify(withField(field, value)), [400, 422]),
    );

  const wrongTypes = fc
    .tuple(
      fc.constantFrom(...FIELDS),
      fc.constantFrom<unknown>(null, true, 12.5, 'text', [], {}, [1, 2], { x: 1 }, -0.5),
    )
    // A string is the right type for the text fields: only numbers and objects take one as a wrong type.
    .filter(([field, value]) => typeof value !== 'string' || NOT_TEXT.has(field))
    .map(([field, value]) => create('wrong types', JSON.stringify(withField(field, value)), [400, 422]));

  const numberLexemes = fc
    .constantFrom(
      '1250.0',
      '1e3',
      '1E3',
      '"1250"',
      '0x10',
      '01250',
      '+1250',
      '1250n',
      'Infinity',
      'NaN',
      '1e999',
    )
    .map((lexeme) => create('wrong types', validPix.replace('"amount":1250', `"amount":${lexeme}`), [400]));

  const oversize = fc
    .integer({ min: 1024 * 1024 + 1, max: 1024 * 1024 + 65_536 })
    .map((n) => create('oversize bodies', `{"amount":1250,"reference":"${'x'.repeat(n)}"}`, [413]));

  const idempotency = fc
    .oneof(
      fc.constant('none'),
      fc.constantFrom(
        '',
        ' ',
        'has space',
        'pct%C3%A1',
        'k'.repeat(129),
        'semi;colon',
        'slash/key',
        'quote"key',
      ),
    )
    .map((idem): Req => ({ ...create('idempotency key', validPix, [400]), idem }));

  const reusedIdem = fc.integer({ min: 1, max: 1_000_000 }).map(
    (n): Req => ({
      ...create('idempotency key', JSON.stringify(pixBody('f5-other', n)), [409]),
      idem: world.usedIdem,
    }),
  );

  const allIds = [...world.txns.a, ...world.txns.a1, ...world.txns.b];
  const anyId = fc.constantFrom(...allIds);
  const readPaths = (id: string) => [`/v1/transactions/${id}`, `/v1/transactions/${id}/request`];

  const badKeys = fc
    .tuple(
      fc.constantFrom<[string | undefined, KeyName]>(
        [undefined, 'none'],
        ['', 'none'],
        ['clb_test_', 'none'],
        ['clb_test_0000000000000000000000000000000000000000', 'none'],
        ['clb_live_not-a-key', 'none'],
        ['Bearer cls_x', 'none'],
        [undefined, 'aRevoked'],
      ),
      anyId,
      fc.constantFrom('read', 'list', 'create', 'admin'),
    )
    .map(([[rawKey, key], id, op]): Req => {
      const base = { category: 'missing / wrong / revoked keys', key, expect: [401] } as const;
      const withKey = rawKey === undefined ? {} : { rawKey };
      if (op === 'read') return { ...base, ...withKey, method: 'GET', path: `/v1/transactions/${id}` };
      if (op === 'list') return { ...base, ...withKey, method: 'GET', path: '/v1/transactions' };
      if (op === 'admin') {
        return {
          ...base,
          ...withKey,
          key: 'a',
          method: 'GET',
          path: '/admin/tenants',
          headers: { authorization: `Bearer ${rawKey ?? 'cls_forged'}` },
        };
      }
      return {
        ...base,
        ...withKey,
        method: 'POST',
        path: '/v1/pix',
        headers: json,
        body: validPix,
        idem: 'auto',
      };
    });

  const wrongScopes = fc
    .tuple(
      fc.constantFrom(...world.txns.a),
      fc.constantFrom(
        'read-creates-pix',
        'read-creates-boleto',
        'pix-lists',
        'pix-reads',
        'read-simulates',
        'pix-refunds',
        'live-simulates',
      ),
    )
    .map(([id, op]): Req => {
      // A live key simulating is 409 simulation_not_allowed before any lookup (SPEC 4.7: test keys only).
      const base = { category: 'missing scopes', expect: [403, 404, 409] } as const;
      switch (op) {
        case 'read-creates-pix':
          return {
            ...base,
            key: 'aRead',
            method: 'POST',
            path: '/v1/pix',
            headers: json,
            body: validPix,
            idem: 'auto',
          };
        case 'read-creates-boleto':
          return {
            ...base,
            key: 'aPix',
            method: 'POST',
            path: '/v1/boleto',
            headers: json,
            body: validPix,
            idem: 'auto',
          };
        case 'pix-lists':
          return { ...base, key: 'aPix', method: 'GET', path: '/v1/transactions' };
        case 'pix-reads':
          return { ...base, key: 'aPix', method: 'GET', path: `/v1/transactions/${id}` };
        case 'read-simulates':
          return {
            ...base,
            key: 'aRead',
            method: 'POST',
            path: `/v1/transactions/${id}/simulate`,
            headers: json,
            body: '{"status":"paid"}',
          };
        case 'pix-refunds':
          return {
            ...base,
            key: 'aPix',
            method: 'POST',
            path: `/v1/transactions/${id}/refund`,
            idem: 'auto',
          };
        default:
          return {
            ...base,
            key: 'aLive',
            method: 'POST',
            path: `/v1/transactions/${id}/simulate`,
            headers: json,
            body: '{"status":"paid"}',
          };
      }
    });

  // Other trees' ids (and the other mode's): B reads A's and A1's, A1 reads its parent's, A's live key
  // reads test charges, A reads B's. Every action too, with otherwise valid requests.
  const foreign = fc
    .constantFrom<[KeyName, string[]]>(
      ['b', [...world.txns.a, ...world.txns.a1]],
      ['a1', [...world.txns.a, ...world.txns.b]],
      ['a', world.txns.b],
      ['aLive', [...world.txns.a, ...world.txns.a1]],
    )
    .chain(([key, ids]) =>
      fc.tuple(
        fc.constant(key),
        // A quarter of the ids exist nowhere: every foreign id must be answered like those (no oracle).
        fc.oneof(
          { arbitrary: fc.constantFrom(...ids), weight: 3 },
          { arbitrary: fc.constantFrom(...MISSING_IDS), weight: 1 },
        ),
        fc.constantFrom('get', 'request', 'refresh', 'simulate', 'refund', 'due-date', 'list'),
      ),
    )
    .map(([key, id, op]): Req => {
      const base = {
        category: "other tenants' ids",
        key,
        expect: [404, 403, 409, 422],
        probe: { op, exists: !MISSING_IDS.includes(id) },
      } as const;
      switch (op) {
        case 'get':
          return { ...base, method: 'GET', path: readPaths(id)[0] as string };
        case 'request':
          return { ...base, method: 'GET', path: readPaths(id)[1] as string };
        case 'refresh':
          return { ...base, method: 'POST', path: `/v1/transactions/${id}/refresh` };
        case 'simulate':
          return {
            ...base,
            method: 'POST',
            path: `/v1/transactions/${id}/simulate`,
            headers: json,
            body: '{"status":"paid"}',
          };
        case 'refund':
          return { ...base, method: 'POST', path: `/v1/transactions/${id}/refund`, idem: 'auto' };
        case 'due-date':
          return {
            ...base,
            method: 'PATCH',
            path: `/v1/transactions/${id}/boleto`,
            headers: json,
            body: '{"due_date":"2099-01-01"}',
            idem: 'auto',
          };
        default: {
          // The list probe asks for another tree's tenant, or (with a missing id) a tenant that exists nowhere.
          const foreignTenant = key === 'b' || key === 'a1' ? world.tenants.a : world.tenants.b;
          const other = MISSING_IDS.includes(id) ? MISSING_TENANT : foreignTenant;
          return {
            ...base,
            method: 'GET',
            path: `/v1/transactions?tenant_id=${other}&include_descendants=true&limit=100`,
            expect: [200, 403, 404, 422],
          };
        }
      }
    });

  const paths = fc
    .oneof(
      fc.string({ minLength: 1, maxLength: 80 }),
      fc.constantFrom(
        'txn_',
        'txn_00000000000000000000000000',
        '..',
        '%00',
        'txn_%2F..%2F',
        'x'.repeat(2_000),
      ),
      anyId.map((id) => id.toUpperCase()),
      anyId.map((id) => `${id} `),
    )
    .map(
      (s): Req => ({
        category: 'fuzzed paths and queries',
        method: 'GET',
        path: `/v1/transactions/${encodeURIComponent(s)}`,
        key: 'a',
        expect: [404, 422, 400, 414],
      }),
    );

  // Raw paths: bad percent-encoding, control characters, traversal (not encoded again).
  const rawPaths = fc
    .constantFrom(
      '/v1/transactions/%',
      '/v1/transactions/%zz',
      '/v1/transactions/%E0%A4%A',
      '/v1/transactions/%C0%AF',
      '/v1/transactions/..%2F..%2Fadmin%2Ftenants',
      '/v1/transactions/./../admin/tenants',
      '/v1//transactions',
      '/v1/transactions?limit=%',
      '/v1/transactions?limit=1&limit=2',
      '/v1/transactions?status=paid&status=pending',
    )
    .map(
      (path): Req => ({
        category: 'fuzzed paths and queries',
        method: 'GET',
        path,
        key: 'a',
        expect: [200, 400, 404, 422],
      }),
    );

  const queries = fc
    .tuple(
      fc.constantFrom(
        'limit',
        'offset',
        'status',
        'method',
        'include_descendants',
        'tenant_id',
        'cost_center_id',
        'reference',
        'bogus',
      ),
      fc.oneof(
        fc.constantFrom(
          '-1',
          '0',
          '101',
          '1e3',
          '1.5',
          'abc',
          '',
          'true',
          'maybe',
          'PAID',
          'null',
          '9'.repeat(40),
        ),
        fc.string({ maxLength: 20 }),
      ),
    )
    .map(
      ([name, value]): Req => ({
        category: 'fuzzed paths and queries',
        method: 'GET',
        path: `/v1/transactions?${encodeURIComponent(name)}=${encodeURIComponent(value)}`,
        key: 'a',
        expect: [200, 400, 404, 422],
      }),
    );

  const contentTypes = fc
    .constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=latin1',
      'multipart/form-data',
      '',
    )
    .map(
      (ct): Req => ({
        ...create('malformed JSON', validPix, [400, 415, 201]),
        headers: { 'content-type': ct },
      }),
    );

  return fc.oneof(
    { arbitrary: malformed, weight: 20 },
    { arbitrary: dupKeys, weight: 10 },
    { arbitrary: outOfRange, weight: 10 },
    { arbitrary: wrongTypes, weight: 8 },
    { arbitrary: numberLexemes, weight: 3 },
    { arbitrary: oversize, weight: 1 },
    { arbitrary: idempotency, weight: 4 },
    { arbitrary: reusedIdem, weight: 1 },
    { arbitrary: badKeys, weight: 8 },
    { arbitrary: wrongScopes, weight: 8 },
    { arbitrary: foreign, weight: 16 },
    { arbitrary: paths, weight: 5 },
    { arbitrary: queries, weight: 4 },
    { arbitrary: rawPaths, weight: 1 },
    { arbitrary: contentTypes, weight: 2 },
  );
}

/** Every transaction id or tenant id a 2xx body may NOT contain, per key. */
function forbiddenFor(world: World, key: KeyName): string[] {
  const { txns, tenants } = world;
  switch (key) {
    case 'a':
    case 'aRead':
    case 'aPix':
      return [...txns.b, tenants.b];
    case 'a1':
      return [...txns.a, ...txns.b, tenants.a, tenants.b];
    case 'b':
      return [...txns.a, ...txns.a1, tenants.a, tenants.a1];
    case 'aLive':
      // Live key: test charges are the other mode (SPEC 7 404), whatever the tree.
      return [...txns.a, ...txns.a1, ...txns.b, tenants.b];
    default:
      return [...txns.a, ...txns.a1, ...txns.b, tenants.a, tenants.a1, tenants.b];
  }
}

export async function runF5(opts: ChaosOptions): Promise<boolean> {
  const dir = scratchDir('f5');
  const databaseUrl = await createChaosDatabase();
  const all = ['pix:write', 'boleto:write', 'transactions:read', 'cost_centers:write'] as const;
  const seeded = await seed(databaseUrl, [
    {
      name: 'a',
      keys: [
        { name: 'a', scopes: all },
        { name: 'aRead', scopes: ['transactions:read'] },
        { name: 'aPix', scopes: ['pix:write'] },
        { name: 'aRevoked', scopes: all, revoked: true },
        { name: 'aLive', scopes: ['pix:write', 'transactions:read'], livemode: true },
      ],
    },
    { name: 'a1', parent: 'a', keys: [{ name: 'a1', scopes: all }] },
    { name: 'b', keys: [{ name: 'b', scopes: all }] },
  ]);
  const t = seeded.tenants;
  const keyOf: Record<KeyName, string | undefined> = {
    a: t.a?.keys.a?.key,
    aRead: t.a?.keys.aRead?.key,
    aPix: t.a?.keys.aPix?.key,
    aRevoked: t.a?.keys.aRevoked?.key,
    aLive: t.a?.keys.aLive?.key,
    a1: t.a1?.keys.a1?.key,
    b: t.b?.keys.b?.key,
    none: undefined,
  };
  const gateway = new GatewayProcess(gatewayEnv(databaseUrl, await freePort()), dir);
  await gateway.start();
  log(`F5: gateway on ${gateway.baseUrl}`);

  // Charges of each tree (pending, paid, and a boleto), created before the campaign's event baseline.
  const world: World = {
    tenants: { a: t.a?.tenantId as string, a1: t.a1?.tenantId as string, b: t.b?.tenantId as string },
    txns: { a: [], a1: [], b: [] },
    usedIdem: 'f5-seed-a-0',
  };
  for (const tree of ['a', 'a1', 'b'] as const) {
    for (let i = 0; i < 3; i++) {
      const boleto = i === 2;
      const due = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
      const body = boleto
        ? {
            ...pixBody(`f5-seed-${tree}-${i}`, 990 + i, { boleto: { due_date: due } }),
            expires_in: undefined,
          }
        : pixBody(`f5-seed-${tree}-${i}`, 990 + i);
      const r = await call(gateway.baseUrl, 'POST', boleto ? '/v1/boleto' : '/v1/pix', {
        headers: { 'x-api-key': keyOf[tree] as string, 'idempotency-key': `f5-seed-${tree}-${i}` },
        json: body,
      });
      if (r.status !== 201) throw new Error(`seed charge: ${r.status} ${JSON.stringify(r.body)}`);
      const id = (r.body as { data: { id: string } }).data.id;
      world.txns[tree].push(id);
      if (i === 1) {
        const s = await call(gateway.baseUrl, 'POST', `/v1/transactions/${id}/simulate`, {
          headers: { 'x-api-key': keyOf[tree] as string },
          json: { status: 'paid' },
        });
        if (s.status !== 200) throw new Error(`seed simulate: ${s.status} ${JSON.stringify(s.body)}`);
      }
    }
  }
  const baseline = await withDb(databaseUrl, async (c) => {
    const { rows } = await c.query<{ pos: string | null; n: string }>(
      `select max(global_position) as pos, count(*) as n from events`,
    );
    return { pos: Number(rows[0]?.pos ?? 0), n: Number(rows[0]?.n) };
  });

  const generated = fc.sample(requests(world), { numRuns: opts.requests, seed: opts.seed });
  log(`F5: ${generated.length} requests generated (seed ${opts.seed}); sending ${CONCURRENCY} at a time`);
  const statuses = new Counter();
  const byCategory = new Map<string, Counter>();
  const pairs = new Counter();
  const fiveXx: string[] = [];
  const crossReads: string[] = [];
  const notEnvelope: string[] = [];
  const unexpected = new Counter();
  const unexpectedSamples: string[] = [];
  /** Other tenants' ids: answers per (key, operation) for existing foreign ids and for missing ids. */
  const foreignAnswers = new Map<string, Set<string>>();
  const missingAnswers = new Map<string, Set<string>>();
  const allowedStreams = new Set<string>();
  let accepted = 0;
  let next = 0;
  const started = Date.now();
  const send = async () => {
    while (next < generated.length) {
      const i = next++;
      const r = generated[i] as Req;
      const headers: Record<string, string> = { ...r.headers };
      const key = r.rawKey ?? keyOf[r.key];
      if (key !== undefined && !headers.authorization) headers['x-api-key'] = key;
      const idemKey = r.idem === 'auto' ? `f5-${opts.seed}-${i}` : r.idem === 'none' ? undefined : r.idem;
      if (idemKey !== undefined) headers['idempotency-key'] = idemKey;
      if (headers['content-type'] === '') delete headers['content-type'];
      let a: Answer;
      try {
        a = await call(gateway.baseUrl, r.method, r.path, { headers, body: r.body });
      } catch (error) {
        // An invalid header value (e.g. a tab) is refused by the client itself: nothing was sent.
        statuses.add('client refused');
        void error;
        continue;
      }
      statuses.add(String(a.status));
      const cat = byCategory.get(r.category) ?? new Counter();
      cat.add(String(a.status));
      byCategory.set(r.category, cat);
      const summary = `${r.category}: ${r.method} ${r.path.slice(0, 80)} -> ${a.status} ${a.code}`;
      if (a.status === 0 || a.status >= 500) fiveXx.push(summary);
      if (!r.expect.includes(a.status)) {
        const label = `${r.category} -> ${a.status} ${a.code}`;
        if (unexpected.get(label) === 0) {
          unexpectedSamples.push(
            `${label}: ${r.key} ${r.method} ${r.path.slice(0, 80)} ${String(r.body ?? '').slice(0, 600)}`,
          );
        }
        unexpected.add(label);
      }
      if (a.status >= 400) {
        pairs.add(`${a.status} ${a.code}`);
        if (a.code === '-' || !SPEC7_CODES.has(`${a.status} ${a.code}`)) notEnvelope.push(summary);
      }
      if (r.probe) {
        const k = `${r.key} ${r.probe.op}`;
        const seen = (r.probe.exists ? foreignAnswers : missingAnswers).get(k) ?? new Set<string>();
        seen.add(`${a.status} ${a.code}`);
        (r.probe.exists ? foreignAnswers : missingAnswers).set(k, seen);
      }
      if (a.status >= 200 && a.status < 300) {
        const text = JSON.stringify(a.body);
        const leaked = forbiddenFor(world, r.key).filter((id) => text.includes(id));
        if (leaked.length > 0) crossReads.push(`${summary} carries ${leaked.join(', ')}`);
        if (r.method !== 'GET') {
          accepted++;
          const id = (a.body as { data?: { id?: string } } | null)?.data?.id;
          const tenant =
            r.key === 'a1' ? world.tenants.a1 : r.key === 'b' ? world.tenants.b : world.tenants.a;
          if (id) allowedStreams.add(`transaction-${id}`);
          // Claims are kept per mode (issue 12): `aLive` is the one live key of the world.
          if (idemKey) allowedStreams.add(idempotencyStream(tenant, idemKey, r.key === 'aLive'));
        }
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, send));
  const seconds = (Date.now() - started) / 1000;
  const exits = [...gateway.unexpectedExits];
  await gateway.stop();

  const appended = await withDb(databaseUrl, async (c) => {
    const { rows } = await c.query<{ stream_id: string; type: string }>(
      `select stream_id, type from events where global_position > $1`,
      [baseline.pos],
    );
    return rows;
  });
  const stray = appended.filter((e) => !allowedStreams.has(e.stream_id));
  // An answer given for an existing foreign id and never for a missing one reveals that the id exists.
  const oracle: string[] = [];
  for (const [k, answers] of foreignAnswers) {
    const missing = missingAnswers.get(k);
    if (!missing) continue;
    for (const answer of answers) if (!missing.has(answer)) oracle.push(`${k}: ${answer}`);
  }
  const foreignTable = [...foreignAnswers].sort(([a], [b]) => (a < b ? -1 : 1));
  const strayTypes = new Counter();
  for (const e of stray) strayTypes.add(e.type);

  console.log('\nF5: campaign');
  printTable(
    ['category', 'requests', 'answers by status'],
    [...byCategory]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([c, counter]) => [c, fmt(counter.total()), counter.toString()]),
  );
  console.log('');
  printTable(
    ['figure', 'value'],
    [
      ['requests sent', `${fmt(statuses.total())} in ${fmt(seconds)} s (seed ${opts.seed})`],
      ['answers by status', statuses.toString()],
      ['error answers (status code)', pairs.toString()],
      ['accepted writes (2xx on POST/PATCH)', fmt(accepted)],
      ['events appended during the campaign', fmt(appended.length)],
      ['answers outside their category expectation (informational)', unexpected.toString() || 'none'],
    ],
  );
  console.log("\nother tenants' ids: answers per key and operation (existing foreign id | missing id)");
  printTable(
    ['key operation', 'foreign ids', 'missing ids'],
    foreignTable.map(([k, v]) => [
      k,
      [...v].sort().join(', '),
      [...(missingAnswers.get(k) ?? [])].sort().join(', '),
    ]),
  );
  if (oracle.length) console.log('existence oracle:', oracle);
  if (unexpectedSamples.length) console.log('one sample per unexpected answer:', unexpectedSamples);
  if (fiveXx.length) console.log('5xx / dropped:', fiveXx.slice(0, 10));
  if (crossReads.length) console.log('cross-tenant reads:', crossReads.slice(0, 10));
  if (notEnvelope.length) console.log('not a SPEC 7 envelope:', notEnvelope.slice(0, 10));
  if (stray.length) console.log('stray events:', strayTypes.toString());

  const sent = statuses.total() - statuses.get('client refused');
  const verdicts: Verdict[] = [
    { check: 'requests over real sockets', target: '>= 10,000', measured: fmt(sent), ok: sent >= 10_000 },
    {
      check: 'answers with 5xx (or no answer)',
      target: '0',
      measured: fmt(fiveXx.length),
      ok: fiveXx.length === 0,
    },
    {
      check: 'events appended by refused requests',
      target: '0',
      measured: `${stray.length} (${appended.length} appended, all by ${accepted} accepted writes)`,
      ok: stray.length === 0,
    },
    {
      check: 'cross-tenant (or cross-mode) reads',
      target: '0',
      measured: fmt(crossReads.length),
      ok: crossReads.length === 0,
    },
    {
      check: 'existence oracle: a foreign id answered unlike a missing one',
      target: '0',
      measured: fmt(oracle.length),
      ok: oracle.length === 0,
    },
    {
      check: 'error answers that are SPEC 7 envelopes',
      target: 'all',
      measured: `${fmt(pairs.total() - notEnvelope.length)} / ${fmt(pairs.total())}`,
      ok: notEnvelope.length === 0,
      informational: true,
    },
    { check: 'gateway process exits', target: '0', measured: fmt(exits.length), ok: exits.length === 0 },
  ];
  return printVerdicts('F5 bad-input campaign', verdicts);
}
