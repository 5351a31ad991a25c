import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DomainError } from '../aggregates/decider.ts';
import { ApiError, isErrorCode } from './errors.ts';

interface ValidationEntry {
  keyword?: string;
  instancePath?: string;
  message?: string;
  params?: { keys?: readonly string[] };
}

function valueAt(root: unknown, pointer: string): unknown {
  let value = root;
  for (const part of pointer.split('/').filter(Boolean)) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return value;
}

/**
 * Body type errors and unknown fields are `400 invalid_json` ("incompatible value", "unknown fields");
 * a missing field or a value outside its rule is `422 validation_error` (SPEC 7). Query and path problems
 * are always `422 validation_error`. `param` names the field at fault.
 */
function fromValidation(error: FastifyError, request: FastifyRequest): ApiError {
  const context = (error as { validationContext?: string }).validationContext ?? 'body';
  const source =
    context === 'body' ? request.body : context === 'querystring' ? request.query : request.params;
  const entries = (error.validation ?? []) as ValidationEntry[];
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
    return new ApiError('invalid_json', `Invalid JSON body: ${what} ${param || 'body'}.`, { param });
  }
  return new ApiError(
    'validation_error',
    `Invalid ${param || context}: ${first.message ?? 'invalid value'}`,
    { param },
  );
}

/** Every failure becomes the SPEC 7 envelope; 5xx never carry internals. */
export function toApiError(error: unknown, request: FastifyRequest): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainError) {
    if (!isErrorCode(error.code)) return undefined;
    // SPEC 7: `param` for a field, `transaction_id` for a refusal about a stored charge; nothing else leaks.
    const { param, transaction_id } = error.details;
    return new ApiError(error.code, error.message, {
      ...(typeof param === 'string' ? { param } : {}),
      ...(typeof transaction_id === 'string' ? { transaction_id } : {}),
    });
  }
  const e = error as FastifyError;
  if (hasZodFastifySchemaValidationErrors(e)) return fromValidation(e, request);
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('request_too_large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('invalid_json', 'The body must be JSON (Content-Type: application/json).');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_json', 'The body is empty or its length is wrong.');
  }
  if (e?.statusCode === 404) return new ApiError('not_found');
  if (e?.statusCode === 413) return new ApiError('request_too_large');
  if (e?.statusCode !== undefined && e.statusCode >= 400 && e.statusCode < 500) {
    return new ApiError('invalid_json', 'The request could not be read.');
  }
  return undefined;
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError) {
  return reply.code(error.status).send({
    error: { code: error.code, message: error.message, request_id: request.id, ...error.extras },
  });
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const api = toApiError(error, request);
    if (api) {
      if (api.status >= 500) request.log.error({ err: error }, api.code);
      return sendError(request, reply, api);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(request, reply, new ApiError('internal_error'));
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new ApiError('not_found', 'No such endpoint.')),
  );
}
