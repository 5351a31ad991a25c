/**
 * How a schema failure becomes a SPEC 7 code: body type errors and unknown fields are `400 invalid_json`
 * ("incompatible value", "unknown fields"); a missing field or a value outside its rule is
 * `422 validation_error`. Query and path problems are always `422 validation_error`. `param` names the field
 * at fault. Shared by the server's error handler and the SDK's local validation (issue 15 item 3), so a body
 * the SDK refuses before the network gets the code the server would answer.
 */

/** One schema issue, as fastify-type-provider-zod hands it to the error handler. */
export interface ValidationEntry {
  keyword?: string;
  instancePath?: string;
  message?: string;
  params?: { keys?: readonly string[] };
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
  if (context === 'body' && (unknown || wrongType)) {
    const what = unknown ? 'unknown field' : 'incompatible value for';
    return { code: 'invalid_json', message: `Invalid JSON body: ${what} ${param || 'body'}.`, param };
  }
  return {
    code: 'validation_error',
    message: `Invalid ${param || context}: ${first.message ?? 'invalid value'}`,
    param,
  };
}
