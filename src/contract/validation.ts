/**
 * How a schema failure becomes a SPEC 7 code: body type errors and unknown fields are `400 invalid_json`
 * ("incompatible value", "unknown fields"); a missing field or a value outside its rule is
 * `422 validation_error`. Query and path problems are always `422 validation_error`. `param` names the field
 * at fault. Shared by the server's error handler and the SDK's local validation (issue 15 item 3), so a body
 * the SDK refuses before the network gets the code the server would answer.
 *
 * Issue 23 item 1.7: the message is a sentence for the person reading it, naming the field and the rule
 * ("amount must be in centavos (integer), e.g. 1250 for R$ 12,50"), never zod's own text ("Too small:
 * expected number to be >=1"). Values are described by kind, never echoed (they may be personal data).
 */

/** One schema issue, as fastify-type-provider-zod hands it to the error handler. */
export interface ValidationEntry {
  keyword?: string;
  instancePath?: string;
  message?: string;
  /** The zod issue's other fields (`keys`, `expected`, `minimum`, `origin`, `format`, `values`...). */
  params?: { keys?: readonly string[] } & Record<string, unknown>;
}

export type ValidationContext = 'body' | 'querystring' | 'params' | 'headers';

export interface ValidationFailure {
  code: 'invalid_json' | 'validation_error';
  message: string;
  param: string;
}

/** The zod issues of a failed parse in the shape above (what fastify-type-provider-zod builds). */
export function entriesOf(
  issues: readonly { code: string; path: readonly PropertyKey[]; message: string }[],
): ValidationEntry[] {
  return issues.map(({ code, path, message, ...rest }) => ({
    keyword: code,
    instancePath: `/${path.map(String).join('/')}`,
    message,
    params: rest as ValidationEntry['params'],
  }));
}

function valueAt(root: unknown, pointer: string): unknown {
  let value = root;
  for (const part of pointer.split('/').filter(Boolean)) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return value;
}

/** SPEC 1: every amount is integer centavos. */
const CENTAVOS = 'in centavos (integer), e.g. 1250 for R$ 12,50';

/** `amount`, `max_amount`, `fee_amount`...: the fields whose numbers are centavos. */
function isAmountField(field: string): boolean {
  const last = field.split('.').at(-1) ?? '';
  return last === 'amount' || last.endsWith('_amount');
}

/** 100000000 -> "R$ 1.000.000,00" (pt-BR grouping), for amount limits. */
function reais(centavos: number): string {
  const text = String(Math.trunc(Math.abs(centavos))).padStart(3, '0');
  const whole = text.slice(0, -2).replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `R$ ${centavos < 0 ? '-' : ''}${whole},${text.slice(-2)}`;
}

/** What a value is, in words, without its content. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number with a fraction';
  // The strict JSON parser keeps fractions, exponents and unsafe integers as JsonDecimal (strict-json.ts).
  if (typeof value === 'object' && typeof (value as { lexeme?: unknown }).lexeme === 'string') {
    return 'a number with a fraction, an exponent or too many digits';
  }
  if (typeof value === 'object') return 'an object';
  return 'a value of another type';
}

const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer (no fraction, exponent or quotes)',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  date: 'a date',
};

function typeWords(expected: unknown): string {
  return (typeof expected === 'string' && TYPE_WORDS[expected]) || 'a value of another type';
}

const FORMAT_WORDS: Readonly<Record<string, string>> = {
  date: 'a calendar date written YYYY-MM-DD, e.g. 2026-12-31',
  datetime: 'a date and time in ISO 8601 UTC, e.g. 2026-12-31T23:59:59Z',
  email: 'an e-mail address',
  url: 'a URL',
  uuid: 'a UUID',
};

function listOf(values: unknown): string {
  return Array.isArray(values) ? values.map((v) => (typeof v === 'string' ? v : String(v))).join(', ') : '';
}

/** zod's own wording (its default messages); anything else was written in our schemas for people. */
const ZOD_DEFAULT = /^(?:Invalid|Too (?:small|big)|Expected|Unrecognized|Required)\b/;

/** Our own refine messages read as "<field> must ..." or "<field>: <rule>". */
function withOwnMessage(subject: string, message: string): string {
  const text = message.trim().replace(/\.$/, '');
  return /^(?:must|is|has|send)\b/.test(text) ? `${subject} ${text}.` : `${subject}: ${text}.`;
}

/** A bound for a number, string, list or amount, as a sentence. */
function bound(subject: string, field: string, params: Record<string, unknown>, big: boolean): string {
  const limit = Number(big ? params.maximum : params.minimum);
  const inclusive = params.inclusive !== false;
  const origin = params.origin;
  if (origin === 'number' || origin === 'int' || origin === 'bigint') {
    if (isAmountField(field)) {
      const word = big ? 'at most' : 'at least';
      return `${subject} must be ${word} ${limit} centavo${limit === 1 ? '' : 's'} (${reais(limit)}), ${CENTAVOS}.`;
    }
    const word = big ? (inclusive ? 'at most' : 'less than') : inclusive ? 'at least' : 'greater than';
    return `${subject} must be ${word} ${limit}.`;
  }
  const unit = origin === 'string' ? 'character' : origin === 'array' || origin === 'set' ? 'entry' : 'item';
  const units = limit === 1 ? unit : unit === 'entry' ? 'entries' : `${unit}s`;
  if (params.exact === true) return `${subject} must have exactly ${limit} ${units}.`;
  return `${subject} must have ${big ? 'at most' : 'at least'} ${limit} ${units}.`;
}

/** One issue as a sentence naming the field and the rule it breaks. */
export function describeIssue(
  subject: string,
  field: string,
  entry: ValidationEntry,
  value: unknown,
): string {
  const params = entry.params ?? {};
  const own = entry.message !== undefined && entry.message !== '' && !ZOD_DEFAULT.test(entry.message);
  switch (entry.keyword) {
    case 'invalid_type': {
      if (value === undefined) return `${subject} is required (${typeWords(params.expected)}).`;
      if (isAmountField(field)) return `${subject} must be ${CENTAVOS}; got ${kindOf(value)}.`;
      return `${subject} must be ${typeWords(params.expected)}; got ${kindOf(value)}.`;
    }
    case 'too_small':
      return bound(subject, field, params, false);
    case 'too_big':
      return bound(subject, field, params, true);
    case 'invalid_value': {
      const values = Array.isArray(params.values) ? params.values : [];
      return values.length === 1
        ? `${subject} must be ${listOf(values)}.`
        : `${subject} must be one of: ${listOf(values)}.`;
    }
    case 'invalid_format': {
      if (own) return withOwnMessage(subject, entry.message ?? '');
      const words = typeof params.format === 'string' ? FORMAT_WORDS[params.format] : undefined;
      return words
        ? `${subject} must be ${words}.`
        : `${subject} is not in the accepted format (see the API reference).`;
    }
    case 'not_multiple_of':
      return `${subject} must be a multiple of ${String(params.divisor)}.`;
    case 'unrecognized_keys':
      return `${subject} has a field that is not documented: ${listOf(params.keys)}.`;
    case 'invalid_union':
      return `${subject} is none of the accepted forms (see the API reference).`;
    case 'invalid_key':
    case 'invalid_element':
      return `${subject} has an entry that is not accepted.`;
    default:
      return own ? withOwnMessage(subject, entry.message ?? '') : `${subject} is not valid.`;
  }
}

export function classifyValidation(
  context: ValidationContext,
  source: unknown,
  entries: readonly ValidationEntry[],
): ValidationFailure {
  const unknown = entries.find((e) => e.keyword === 'unrecognized_keys');
  const wrongType = entries.find(
    (e) => e.keyword === 'invalid_type' && valueAt(source, e.instancePath ?? '') !== undefined,
  );
  const first = unknown ?? wrongType ?? entries[0] ?? {};
  const segments = (first.instancePath ?? '').split('/').filter(Boolean);
  if (first === unknown) segments.push(unknown.params?.keys?.[0] ?? '');
  const field = segments.join('.');
  const param =
    context === 'body'
      ? field
      : [context === 'querystring' ? 'query' : context, field].filter(Boolean).join('.');
  const where = context === 'body' ? '' : context === 'querystring' ? 'query parameter ' : `${context} `;
  if (context === 'body' && unknown) {
    return {
      code: 'invalid_json',
      message: `Unknown field ${param || 'in the body'}: the body accepts only the documented fields.`,
      param,
    };
  }
  if (unknown) {
    return {
      code: 'validation_error',
      message: `Unknown ${where}${field}: only the documented ones are accepted.`,
      param,
    };
  }
  const subject = field ? `${where}${field}` : context === 'body' ? 'The body' : `The ${where.trim()}`;
  const value = valueAt(source, first.instancePath ?? '');
  const message = describeIssue(subject, field, first, value);
  return { code: context === 'body' && wrongType ? 'invalid_json' : 'validation_error', message, param };
}
