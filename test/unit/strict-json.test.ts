import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { JsonDecimal } from '../../src/contract/json-decimal.ts';
import { MAX_DEPTH, parseStrictJson, type StrictJsonResult } from '../../src/http/strict-json.ts';

// The strict JSON body parser behind `400 invalid_json` (SPEC 4 "Common rules", SPEC 7 "Errors",
// SPEC 8 "Limits"; SPEC 1: amounts are integers, fractions and strings are rejected).

const encoder = new TextEncoder();

function accept(input: string | Uint8Array): Record<string, unknown> {
  const result = parseStrictJson(input);
  if (!result.ok)
    assert.fail(`expected ok for ${JSON.stringify(String(input)).slice(0, 80)}: ${result.reason}`);
  return result.value;
}

function refuse(input: string | Uint8Array, reason?: RegExp): string {
  const result = parseStrictJson(input);
  if (result.ok) assert.fail(`expected a refusal for ${JSON.stringify(String(input)).slice(0, 80)}`);
  if (reason !== undefined) assert.match(result.reason, reason);
  return result.reason;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonDecimal);
}

/** Replaces every JsonDecimal by its `.value`, to compare with `JSON.parse`. */
function toPlain(v: unknown): unknown {
  if (v instanceof JsonDecimal) return v.value;
  if (Array.isArray(v)) return v.map(toPlain);
  if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toPlain(x)]));
  return v;
}

/** Integer lexemes in the safe range are numbers; everything else numeric is a JsonDecimal. */
function assertNumberClasses(v: unknown): void {
  if (typeof v === 'number') assert.ok(Number.isSafeInteger(v), `plain number ${v} must be a safe integer`);
  else if (v instanceof JsonDecimal) {
    assert.ok(
      /[.eE]/.test(v.lexeme) || !Number.isSafeInteger(Number(v.lexeme)),
      `decimal lexeme ${v.lexeme} should have been a plain number`,
    );
    assert.equal(v.value, Number(v.lexeme));
  } else if (Array.isArray(v)) v.forEach(assertNumberClasses);
  else if (isPlainObject(v)) {
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
    Object.values(v).forEach(assertNumberClasses);
  }
}

function assertWellFormedResult(result: StrictJsonResult): void {
  assert.equal(typeof result, 'object');
  if (result.ok) {
    assert.ok(isPlainObject(result.value));
  } else {
    assert.equal(typeof result.reason, 'string');
    assert.ok(
      result.reason.length > 0 && result.reason.length <= 300,
      `reason too long: ${result.reason.length}`,
    );
    const control = Array.from(result.reason).some((ch) => ch.charCodeAt(0) < 0x20);
    assert.ok(!control, 'reason must not carry control characters');
  }
}

// ---------------------------------------------------------------------------------------------------------
// Arbitraries

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

const keyArb = fc
  .oneof(
    fc.string({ unit: 'binary', maxLength: 10 }),
    fc.stringMatching(/^[A-Za-z_]{1,8}$/),
    fc.constantFrom(
      'amount',
      'Amount',
      'customer',
      'name',
      'é',
      'É',
      'ß',
      'SS',
      'K',
      '\u212a',
      'İ',
      'i',
      'ΑΣ',
      'ας',
    ),
  )
  .filter((k) => !FORBIDDEN.has(k.toLowerCase()));

const scalarArb = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: fc.constantFrom('"', '\\', '/', '\n', '\u0000', '\u001f', '\u2028', 'a', 'é', '😀') }),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 100 }).map((x) => Math.round(x * 100) / 100),
);

/** Objects whose keys are unique case-insensitively, without forbidden keys; at most 7 levels deep. */
const { object: objectArb } = fc.letrec<{
  value: unknown;
  array: unknown[];
  object: Record<string, unknown>;
}>((tie) => ({
  value: fc.oneof({ maxDepth: 6, depthIdentifier: 'json' }, scalarArb, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4, depthIdentifier: 'json' }),
  object: fc
    .uniqueArray(fc.tuple(keyArb, tie('value')), {
      maxLength: 5,
      selector: ([k]) => k.toLowerCase(),
      depthIdentifier: 'json',
    })
    .map((entries) => Object.fromEntries(entries)),
}));

const nonEmptyObjectArb = fc
  .tuple(fc.tuple(keyArb, fc.integer()), objectArb)
  .filter(([[k], rest]) => !Object.keys(rest).some((r) => r.toLowerCase() === k.toLowerCase()))
  .map(([[k, v], rest]) => ({ [k]: v, ...rest }));

const indentArb = fc.constantFrom<string | number | undefined>(undefined, 1, 2, '\t', '\r\n');

// Fragments of JSON text that JSON.parse accepts but that often hit the extra refusals.
const wsArb = fc.constantFrom('', '', ' ', '\n', '\t', '\r\n  ');
const keyTextArb = fc.constantFrom(
  '"a"',
  '"A"',
  '"\\u0061"',
  '"\\u0041"',
  '"b"',
  '"amount"',
  '"Amount"',
  '"AMOUNT"',
  '"__proto__"',
  '"constructor"',
  '"Prototype"',
  '"\\ud800"',
  '"\\udc00x"',
  '"\\ud83d\\ude00"',
  '"é"',
  '"\\u00c9"',
  '""',
  '"x y"',
);
const scalarTextArb = fc.constantFrom(
  '0',
  '-0',
  '1250',
  '1250.0',
  '1e3',
  '-12.5E-2',
  '9007199254740991',
  '9007199254740993',
  '-9007199254740992',
  '1e400',
  '"s"',
  '"\\ud800"',
  '"ok\\n\\u00e9"',
  'true',
  'false',
  'null',
);
const { object: objectTextArb } = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof({ maxDepth: 4, depthIdentifier: 'text' }, scalarTextArb, tie('array'), tie('object')),
  array: fc
    .array(fc.tuple(wsArb, tie('value'), wsArb), { maxLength: 3, depthIdentifier: 'text' })
    .map((items) => `[${items.map((p) => p.join('')).join(',')}]`),
  object: fc
    .array(fc.tuple(wsArb, keyTextArb, wsArb, wsArb, tie('value'), wsArb), {
      maxLength: 4,
      depthIdentifier: 'text',
    })
    .map((members) => `{${members.map(([a, k, b, c, v, d]) => `${a}${k}${b}:${c}${v}${d}`).join(',')}}`),
}));

/** Nested objects and arrays around MAX_DEPTH. */
const deepTextArb = fc
  .array(fc.boolean(), { minLength: MAX_DEPTH - 3, maxLength: MAX_DEPTH + 3 })
  .map((levels) => {
    let text = levels[0] ? '[]' : '{}';
    for (const isArray of levels.slice(1)) text = isArray ? `[1,${text}]` : `{"k":${text}}`;
    return `{"root":${text}}`; // the outer object is one more level
  });

const validTextArb = fc.oneof(
  fc.tuple(objectArb, indentArb).map(([v, indent]) => JSON.stringify(v, null, indent)),
  objectTextArb,
  deepTextArb,
);

const jsonishChars = [...'{}[]":,\\ue0123456789.+-Eetrufalsn \n\t\r\'/'];
const charArb = fc.oneof(
  fc.constantFrom(...jsonishChars),
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
);

type Mutation = { kind: 'insert' | 'delete' | 'replace' | 'duplicate' | 'truncate'; at: number; len: number };
const mutationArb = fc.record<Mutation>({
  kind: fc.constantFrom('insert', 'delete', 'replace', 'duplicate', 'truncate'),
  at: fc.nat(),
  len: fc.integer({ min: 1, max: 6 }),
});

function mutate(text: string, mutations: readonly Mutation[], chars: readonly string[]): string {
  let s = text;
  mutations.forEach((m, n) => {
    const at = s.length === 0 ? 0 : m.at % (s.length + 1);
    const c = chars[n % chars.length] ?? '';
    if (m.kind === 'insert') s = s.slice(0, at) + c + s.slice(at);
    else if (m.kind === 'delete') s = s.slice(0, at) + s.slice(at + m.len);
    else if (m.kind === 'replace') s = s.slice(0, at) + c + s.slice(at + 1);
    else if (m.kind === 'duplicate') s = s.slice(0, at + m.len) + s.slice(at);
    else s = s.slice(0, at);
  });
  return s;
}

function mutateBytes(
  bytes: Uint8Array,
  mutations: readonly Mutation[],
  values: readonly number[],
): Uint8Array {
  let b = Array.from(bytes);
  mutations.forEach((m, n) => {
    const at = b.length === 0 ? 0 : m.at % (b.length + 1);
    const v = values[n % values.length] ?? 0;
    if (m.kind === 'insert') b.splice(at, 0, v);
    else if (m.kind === 'delete') b.splice(at, m.len);
    else if (m.kind === 'replace') b[at] = v;
    else if (m.kind === 'duplicate') b.splice(at, 0, ...b.slice(at, at + m.len));
    else b = b.slice(0, at);
  });
  return Uint8Array.from(b);
}

const mutatedTextArb = fc
  .tuple(
    validTextArb,
    fc.array(mutationArb, { minLength: 1, maxLength: 4 }),
    fc.array(charArb, { minLength: 1, maxLength: 4 }),
  )
  .map(([text, mutations, chars]) => mutate(text, mutations, chars));

// ---------------------------------------------------------------------------------------------------------
// Independent oracle for property (d): JSON.parse, plus the refusals JSON.parse cannot express.

/** Number of `:` outside strings = number of members written in a text JSON.parse accepted. */
function countMembers(text: string): number {
  let count = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === ':') count++;
  }
  return count;
}

function oracle(text: string): { ok: true; value: unknown } | { ok: false } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false };
  }
  if (!isPlainObject(value)) return { ok: false };
  let keys = 0;
  let bad = false;
  const walk = (v: unknown, depth: number): void => {
    if (typeof v === 'string' && /[\ud800-\udfff]/u.test(v)) bad = true;
    if (Array.isArray(v)) {
      if (depth > MAX_DEPTH) bad = true;
      for (const x of v) walk(x, depth + 1);
    } else if (isPlainObject(v)) {
      if (depth > MAX_DEPTH) bad = true;
      const own = Object.keys(v);
      keys += own.length;
      const lower = own.map((k) => k.toLowerCase());
      if (new Set(lower).size !== own.length) bad = true;
      if (lower.some((k) => FORBIDDEN.has(k))) bad = true;
      if (own.some((k) => /[\ud800-\udfff]/u.test(k))) bad = true;
      for (const k of own) walk(v[k], depth + 1);
    }
  };
  walk(value, 1);
  if (keys !== countMembers(text)) bad = true; // exact duplicates collapsed by JSON.parse
  return bad ? { ok: false } : { ok: true, value };
}

// ---------------------------------------------------------------------------------------------------------

describe('strict JSON body parser (SPEC 4 common rules, SPEC 7 invalid_json, SPEC 8 limits)', () => {
  test('SPEC 4.1 request body: a typical Pix body parses into plain objects', () => {
    const value = accept(
      '{"amount":1250,"method":"pix","expires_in":3600,"reference":"pedido-1",' +
        '"customer":{"name":"Maria Sousa","email":"maria@example.com","address":{"city":"S\\u00e3o Paulo"}},' +
        '"split":[{"recipient_id":"rcp_1","amount":500}],"metadata":null,"notify":true}',
    );
    assert.deepEqual(value, {
      amount: 1250,
      method: 'pix',
      expires_in: 3600,
      reference: 'pedido-1',
      customer: { name: 'Maria Sousa', email: 'maria@example.com', address: { city: 'São Paulo' } },
      split: [{ recipient_id: 'rcp_1', amount: 500 }],
      metadata: null,
      notify: true,
    });
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.deepEqual(accept('{}'), {});
    assert.deepEqual(accept(' \t\r\n{ "a" : [ ] , "b" : { } } \n'), { a: [], b: {} });
  });

  test('SPEC 4 common rules: null JSON gives invalid_json', () => {
    refuse('null', /top-level value must be a JSON object, got null/);
    refuse(' null\n', /got null/);
    refuse(encoder.encode('null'), /got null/);
  });

  test('SPEC 7 invalid_json: a top-level value that is not one object is refused', () => {
    refuse('[]', /got an array/);
    refuse('[{"amount":1250}]', /got an array/);
    refuse('"{}"', /got a string/);
    refuse('1250', /got a number/);
    refuse('-1', /got a number/);
    refuse('true', /got a boolean/);
    refuse('false', /got a boolean/);
    refuse('nul', /unexpected/);
    refuse('}', /unexpected character '}'/);
  });

  test('SPEC 4 common rules: extra objects (more than one value) give invalid_json', () => {
    for (const text of [
      '{}{}',
      '{} {}',
      '{"a":1}\n{"a":1}',
      '{}null',
      '{}1',
      '{}]',
      '{}}',
      '{},{}',
      '{} x',
    ]) {
      refuse(text, /only one JSON value is allowed/);
    }
    assert.deepEqual(accept('{"a":1} \n\t\r'), { a: 1 });
  });

  test('SPEC 4 common rules: duplicate fields give invalid_json, at any depth, with the JSON path', () => {
    assert.equal(refuse('{"amount":1250,"amount":1250}'), 'duplicate key "amount" at $ (offset 15)');
    refuse('{"customer":{"name":"a","email":"b","name":"a"}}', /^duplicate key "name" at \$\.customer \(/);
    refuse('{"split":[{"a":1},{"a":1,"b":2,"a":3}]}', /^duplicate key "a" at \$\.split\[1\] \(/);
    refuse('{"x":[[[{"deep":{"k":1,"k":2}}]]]}', /at \$\.x\[0\]\[0\]\[0\]\.deep /);
    refuse('{"a b":{"k":1,"k":2}}', /at \$\["a b"\] /);
    refuse('{"a":{},"a":{}}', /duplicate key "a"/);
    // Not duplicates: same key in sibling or nested objects.
    assert.deepEqual(accept('{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}'), {
      a: { a: { a: 1 } },
      b: [{ a: 1 }, { a: 2 }],
    });
  });

  test('SPEC 4 common rules: duplicate fields include case variants (amount and Amount)', () => {
    assert.equal(
      refuse('{"amount":1250,"Amount":1250}'),
      'duplicate key "Amount" (case variant of "amount") at $ (offset 15)',
    );
    refuse('{"Amount":1,"amount":2}', /duplicate key "amount" \(case variant of "Amount"\)/);
    refuse('{"method":"pix","b":1,"c":2,"AMOUNT":1,"amount":2}', /case variant of "AMOUNT"/);
    refuse('{"amount":1,"b":1,"AmOuNt":2}', /case variant of "amount"/);
    refuse('{"customer":{"Email":"x","eMail":"y"}}', /at \$\.customer /);
    refuse('{"items":[{"sku":"1","SKU":"2"}]}', /at \$\.items\[0\] /);
    // Compared after escapes are decoded.
    refuse('{"a":1,"\\u0041":2}', /duplicate key "A" \(case variant of "a"\)/);
    refuse('{"a":1,"\\u0061":2}', /^duplicate key "a" at \$ /);
    refuse('{"\\u00e9":1,"É":2}', /duplicate key "\\u00c9" \(case variant of "\\u00e9"\)/);
    // Distinct keys stay distinct.
    assert.deepEqual(accept('{"a":1,"a ":2,"b":3,"B1":4,"é":5,"e":6}'), {
      a: 1,
      'a ': 2,
      b: 3,
      B1: 4,
      é: 5,
      e: 6,
    });
  });

  test('SPEC 1 amounts are integers: fractions and exponents are not plain numbers, strings stay strings', () => {
    const value = accept(
      '{"a":1250,"b":1250.0,"c":12.5,"d":1e3,"e":1E3,"f":-1.5e-3,"g":"1250","h":0,"i":-0,"j":-7,"k":2.50}',
    );
    assert.equal(value.a, 1250);
    for (const [key, lexeme, number] of [
      ['b', '1250.0', 1250],
      ['c', '12.5', 12.5],
      ['d', '1e3', 1000],
      ['e', '1E3', 1000],
      ['f', '-1.5e-3', -0.0015],
      ['k', '2.50', 2.5],
    ] as const) {
      const decimal = value[key];
      assert.ok(decimal instanceof JsonDecimal, `${key} should be a JsonDecimal`);
      assert.equal(decimal.lexeme, lexeme);
      assert.equal(decimal.value, number);
      assert.notEqual(typeof decimal, 'number', 'an integer schema checking typeof refuses it');
    }
    assert.equal(value.g, '1250');
    assert.equal(value.h, 0);
    assert.ok(Object.is(value.i, -0), '-0 stays -0, like JSON.parse');
    assert.equal(value.j, -7);
  });

  test('SPEC 1 amounts are integers: integers outside the safe range are JsonDecimal, never rounded', () => {
    const value = accept(
      '{"max":9007199254740991,"min":-9007199254740991,"over":9007199254740992,"under":-9007199254740992,' +
        '"big":123456789012345678901234567890,"fifteen":999999999999999,"sixteen":1000000000000000}',
    );
    assert.equal(value.max, Number.MAX_SAFE_INTEGER);
    assert.equal(value.min, Number.MIN_SAFE_INTEGER);
    assert.equal(value.fifteen, 999999999999999);
    assert.equal(value.sixteen, 1000000000000000);
    for (const key of ['over', 'under', 'big']) assert.ok(value[key] instanceof JsonDecimal, key);
    const over = value.over;
    assert.ok(over instanceof JsonDecimal);
    assert.equal(over.lexeme, '9007199254740992');
    const huge = accept('{"a":1e400}').a;
    assert.ok(huge instanceof JsonDecimal);
    assert.equal(huge.value, Number.POSITIVE_INFINITY);
  });

  test('SPEC 7 invalid_json: RFC 8259 grammar errors are refused', () => {
    const invalid = [
      '{',
      '{"a"',
      '{"a":',
      '{"a":1',
      '{"a":1,',
      '{"a" 1}',
      '{"a":1 "b":2}',
      '{a:1}',
      "{'a':1}",
      '{"a":\'x\'}',
      '{"a":1,}',
      '{"a":[1,2,]}',
      '{"a":[,1]}',
      '{,}',
      '{"a":[1 2]}',
      '{"a":01}',
      '{"a":-01}',
      '{"a":00}',
      '{"a":+1}',
      '{"a":.5}',
      '{"a":1.}',
      '{"a":1.e3}',
      '{"a":1e}',
      '{"a":1e+}',
      '{"a":-}',
      '{"a":0x10}',
      '{"a":NaN}',
      '{"a":Infinity}',
      '{"a":-Infinity}',
      '{"a":tru}',
      '{"a":nul}',
      '{"a":True}',
      '{"a":undefined}',
      '{"a":"x}',
      '{"a":"\\x"}',
      '{"a":"\\u12"}',
      '{"a":"\\u12G4"}',
      '{"a":"\\\'"}',
      '{"a":"\\',
      '{"a":"line\nbreak"}',
      '{"a":"tab\there"}',
      '{"a":"nul\u0000"}',
      '{"a":"unit\u001f"}',
      '{"a":"\\n\n"}',
      '{"a":"\\u00e9\u0000"}',
      '{"\\t\t":1}',
      '{"k\ney":1}',
      '{"a":1}//',
      '{/*c*/"a":1}',
      '{"a":1}\u00a0',
      '{\u00a0"a":1}',
      '{"a":\u20281}',
      '{"a":\f1}',
      '{"a":\v1}',
      '{"a":[1]]}',
      '{"a":{"b":1}',
    ];
    for (const text of invalid) {
      refuse(text);
      assert.throws(
        () => JSON.parse(text),
        SyntaxError,
        `JSON.parse should also refuse ${JSON.stringify(text)}`,
      );
    }
    refuse('{"a":01}', /leading zero in number at \$\.a \(offset 5\)/);
    refuse('{"a":[1,2,]}', /trailing comma at \$\.a/);
    refuse('{"a":1,}', /trailing comma at \$ /);
    refuse('{"a":"line\nbreak"}', /unescaped control character U\+000A in string at \$\.a/);
    refuse('{"a":1', /unexpected end of input/);
  });

  test('SPEC 7 invalid_json: valid escapes and raw Unicode decode like JSON.parse', () => {
    const text =
      '{"s":"\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\u20AC \\ud83d\\ude00 é 😀 \u007f \u2028","\\n":1}';
    assert.deepEqual(accept(text), JSON.parse(text));
    assert.deepEqual(accept('{"":""}'), { '': '' });
  });

  test('SPEC 7 invalid_json: lone surrogates are refused, escaped or raw (not representable in UTF-8)', () => {
    for (const text of [
      '{"a":"\\ud800"}',
      '{"a":"\\udc00"}',
      '{"a":"\\ud800\\u0041"}',
      '{"a":"\\ud800x"}',
      '{"a":"\\ud800\\ud800"}',
      '{"a":"\\ude00\\ud83d"}',
      '{"\\udfff":1}',
      '{"a":"\ud800"}',
      '{"a":"x\udc00"}',
      '{"\ud83d":1}',
    ]) {
      refuse(text, /lone surrogate/);
    }
    assert.deepEqual(accept('{"a":"\\ud83d\\ude00","b":"\ud83d\ude00"}'), { a: '😀', b: '😀' });
  });

  test('SPEC 2 JSON in UTF-8: bytes are decoded strictly, a BOM is refused', () => {
    assert.deepEqual(accept(encoder.encode('{"city":"São Paulo","emoji":"😀"}')), {
      city: 'São Paulo',
      emoji: '😀',
    });
    assert.deepEqual(accept(Buffer.from('{"a":1}')), { a: 1 });
    const invalidUtf8 = [
      [0x7b, 0xff, 0x7d],
      [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d], // truncated sequence
      [0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x3a, 0x31, 0x7d], // overlong '/'
      [0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d], // encoded surrogate U+D800
      [0x7b, 0x22, 0xf4, 0x90, 0x80, 0x80, 0x22, 0x3a, 0x31, 0x7d], // above U+10FFFF
    ];
    for (const bytes of invalidUtf8) assert.equal(refuse(Uint8Array.from(bytes)), 'body is not valid UTF-8');
    refuse(Uint8Array.from([0xef, 0xbb, 0xbf, ...encoder.encode('{"a":1}')]), /byte order mark/);
    refuse('\ufeff{"a":1}', /byte order mark/);
  });

  test('SPEC 4 common rules: an empty body gives invalid_json', () => {
    refuse('', /empty body/);
    refuse(new Uint8Array(0), /empty body/);
    refuse(' \n\t\r', /empty body/);
  });

  test(`SPEC 7 invalid_json: nesting deeper than ${MAX_DEPTH} levels is refused`, () => {
    const nested = (levels: number, open: string, close: string): string =>
      `{"a":${open.repeat(levels - 2)}{}${close.repeat(levels - 2)}}`;
    assert.ok(accept(nested(MAX_DEPTH, '[', ']')));
    assert.ok(accept(nested(MAX_DEPTH, '{"b":', '}')));
    refuse(nested(MAX_DEPTH + 1, '[', ']'), /nesting deeper than 32 levels at \$\.a(\[0\]){31} /);
    refuse(nested(MAX_DEPTH + 1, '{"b":', '}'), /nesting deeper than 32 levels/);
    assert.ok(accept(`{"a":${'['.repeat(MAX_DEPTH - 1)}${']'.repeat(MAX_DEPTH - 1)}}`));
    refuse(`{"a":${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}}`, /nesting deeper than 32 levels/);
    refuse(`{"a":${'['.repeat(100_000)}`, /nesting deeper than 32 levels/);
  });

  test('SPEC 7 invalid_json: __proto__, constructor and prototype keys are refused (prototype pollution)', () => {
    for (const text of [
      '{"__proto__":{"polluted":true}}',
      '{"a":{"__proto__":{"polluted":true}}}',
      '{"a":[{"constructor":{"prototype":{"polluted":true}}}]}',
      '{"prototype":1}',
      '{"__pro\\u0074o__":{"polluted":true}}',
      '{"Constructor":1}',
      '{"PROTOTYPE":1}',
    ]) {
      refuse(text, /forbidden key/);
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    const value = accept('{"toString":1,"hasOwnProperty":2,"valueOf":{"__defineGetter__":3}}');
    assert.deepEqual(Object.keys(value), ['toString', 'hasOwnProperty', 'valueOf']);
    assert.equal(value.toString, 1);
  });

  test('SPEC 8 limits: large bodies are fine (the 1 MiB limit is enforced before the parser)', () => {
    const long = 'x'.repeat(1024 * 1024);
    assert.equal(accept(`{"s":"${long}"}`).s, long);
    const escaped = '\\u00e9'.repeat(50_000);
    assert.equal(accept(`{"s":"${escaped}"}`).s, 'é'.repeat(50_000));
    // Many keys: duplicate detection stays linear (a quadratic check would time out here).
    const keys = Array.from({ length: 50_000 }, (_, i) => `"k${i}":${i}`);
    assert.equal(Object.keys(accept(`{${keys.join(',')}}`)).length, 50_000);
    refuse(`{${keys.join(',')},"K49999":1}`, /duplicate key "K49999" \(case variant of "k49999"\)/);
    refuse(`{"Z":0,${keys.join(',')},"k0":1}`, /duplicate key "k0"/);
  });

  test('SPEC 7 invalid_json: reasons are short and never echo long or unsafe input', () => {
    const longKey = 'k'.repeat(10_000);
    const reason = refuse(`{"${longKey}":1,"${longKey}":2}`, /^duplicate key "k{40}"… at \$ /);
    assert.ok(reason.length < 200);
    const deepPath = refuse(`{${'"abcdefghijklmnopqrstuvwxyz":{'.repeat(30)}"a":01${'}'.repeat(31)}`);
    assert.ok(deepPath.length <= 300, deepPath);
    assert.equal(
      refuse('{"a\\nb":{"x":1,"x":2}}'),
      'duplicate key "x" at $["a\\u000ab"] (offset 15)',
      'control characters in keys are escaped in the reason',
    );
    refuse(`{"a":"${'x'.repeat(100_000)}`, /^unterminated string at \$\.a \(offset 5\)$/);
  });

  test('SPEC 7 invalid_json: inputs of the wrong type do not throw', () => {
    for (const input of [undefined, null, 42, {}, [123]]) {
      const result = parseStrictJson(input as unknown as string);
      assert.equal(result.ok, false);
    }
  });

  // -------------------------------------------------------------------------------------------------------
  // Properties

  test('SPEC 4 common rules, property (a): any object with unique fields round-trips through JSON.stringify', () => {
    fc.assert(
      fc.property(objectArb, indentArb, fc.boolean(), (value, indent, asBytes) => {
        const text = JSON.stringify(value, null, indent);
        const result = parseStrictJson(asBytes ? encoder.encode(text) : text);
        if (!result.ok) assert.fail(`refused ${text}: ${result.reason}`);
        assert.deepStrictEqual(toPlain(result.value), JSON.parse(text));
        assertNumberClasses(result.value);
      }),
      { numRuns: 1000 },
    );
  });

  test('SPEC 4 common rules, property (b): a duplicate or case-variant field anywhere gives invalid_json', () => {
    type Target = { obj: Record<string, unknown>; keys: string[] };
    const collect = (v: unknown, out: Target[]): Target[] => {
      if (Array.isArray(v)) for (const x of v) collect(x, out);
      else if (isPlainObject(v)) {
        const keys = Object.keys(v);
        if (keys.length > 0) out.push({ obj: v, keys });
        for (const k of keys) collect(v[k], out);
      }
      return out;
    };
    const escapeAll = (k: string): string =>
      `"${Array.from({ length: k.length }, (_, i) => `\\u${k.charCodeAt(i).toString(16).padStart(4, '0')}`).join('')}"`;
    const seen = { exact: 0, caseVariant: 0, escaped: 0 };

    fc.assert(
      fc.property(
        nonEmptyObjectArb,
        fc.nat(),
        fc.nat(),
        fc.nat(),
        fc.constantFrom('exact', 'case', 'escaped'),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        scalarArb,
        (root, targetIndex, keyIndex, position, kind, mask, duplicateValue) => {
          const targets = collect(root, []);
          const target = targets[targetIndex % targets.length];
          assert.ok(target);
          const key = target.keys[keyIndex % target.keys.length] ?? '';
          let keyText = JSON.stringify(key);
          if (kind === 'case') {
            const variant = Array.from(key, (ch, i) =>
              mask[i % mask.length] ? ch.toUpperCase() : ch.toLowerCase(),
            ).join('');
            if (variant !== key && variant.toLowerCase() === key.toLowerCase()) {
              keyText = JSON.stringify(variant);
              seen.caseVariant++;
            } else seen.exact++;
          } else if (kind === 'escaped') {
            keyText = escapeAll(key);
            seen.escaped++;
          } else seen.exact++;
          const extra = `${keyText}:${JSON.stringify(duplicateValue)}`;
          let inserted = false;
          const serialize = (v: unknown): string => {
            if (Array.isArray(v)) return `[${v.map(serialize).join(',')}]`;
            if (isPlainObject(v)) {
              const members = Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${serialize(x)}`);
              if (v === target.obj && !inserted) {
                inserted = true;
                members.splice(position % (members.length + 1), 0, extra);
              }
              return `{${members.join(',')}}`;
            }
            return JSON.stringify(v);
          };
          const text = serialize(root);
          assert.ok(inserted);
          const result = parseStrictJson(text);
          assert.equal(result.ok, false, `accepted ${text}`);
          if (!result.ok) assert.match(result.reason, /^duplicate key /);
        },
      ),
      { numRuns: 1000 },
    );
    assert.ok(seen.exact > 0 && seen.caseVariant > 0 && seen.escaped > 0, JSON.stringify(seen));
  });

  test('SPEC 7 invalid_json, property (c): random bytes and mutated bodies never throw', () => {
    let runs = 0;
    const check = (input: string | Uint8Array): void => {
      runs++;
      let result: StrictJsonResult | undefined;
      assert.doesNotThrow(() => {
        result = parseStrictJson(input);
      });
      assert.ok(result);
      assertWellFormedResult(result);
    };
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => check(bytes)),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(
        validTextArb,
        fc.array(mutationArb, { minLength: 1, maxLength: 4 }),
        fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 4 }),
        (text, mutations, values) => check(mutateBytes(encoder.encode(text), mutations, values)),
      ),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(mutatedTextArb, (text) => check(text)),
      { numRuns: 1000 },
    );
    assert.ok(runs >= 3000);
  });

  test('SPEC 7 invalid_json, property (d): agrees with JSON.parse plus the documented extra refusals', () => {
    const tally = { bothAccept: 0, extraRefusal: 0, bothRefuse: 0 };
    fc.assert(
      fc.property(fc.oneof(validTextArb, mutatedTextArb, fc.json({ maxDepth: 4 }), objectTextArb), (text) => {
        const expected = oracle(text);
        const result = parseStrictJson(text);
        assert.equal(
          result.ok,
          expected.ok,
          `disagreement on ${JSON.stringify(text)}: ${result.ok ? 'accepted' : result.reason}`,
        );
        if (result.ok && expected.ok) {
          tally.bothAccept++;
          assert.deepStrictEqual(toPlain(result.value), expected.value);
          assertNumberClasses(result.value);
        } else {
          let jsonParseAccepts = true;
          try {
            JSON.parse(text);
          } catch {
            jsonParseAccepts = false;
          }
          if (jsonParseAccepts) tally.extraRefusal++;
          else tally.bothRefuse++;
        }
      }),
      { numRuns: 2000 },
    );
    assert.ok(
      tally.bothAccept > 100 && tally.extraRefusal > 100 && tally.bothRefuse > 100,
      JSON.stringify(tally),
    );
  });
});
