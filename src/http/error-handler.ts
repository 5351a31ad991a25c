import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DomainError } from '../aggregates/decider.ts';
import { classifyValidation, type ValidationContext, type ValidationEntry } from '../contract/validation.ts';
import { ApiError, isErrorCode, statusOf } from './errors.ts';

/** A schema failure of the body, query or path, classified as the SDK classifies it locally. */
function fromValidation(error: FastifyError, request: FastifyRequest): ApiError {
  const context = ((error as { validationContext?: string }).validationContext ??
    'body') as ValidationContext;
  const source =
    context === 'body' ? request.body : context === 'querystring' ? request.query : request.params;
  const { code, message, param } = classifyValidation(
    context,
    source,
    (error.validation ?? []) as ValidationEntry[],
  );
  return new ApiError(code, message, { param });
}

/** Every failure becomes the SPEC 7 envelope; 5xx never carry internals. */
export function toApiError(error: unknown, request: FastifyRequest): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainError) {
    if (!isErrorCode(error.code)) return undefined;
    // SPEC 7: `param` for a field, `transaction_id` for a refusal about a stored charge, `subscription_id`
    // for a card subscription cancelled by its refused registration; nothing else leaks.
    const { param, transaction_id, subscription_id } = error.details;
    return new ApiError(error.code, error.message, {
      ...(typeof param === 'string' ? { param } : {}),
      ...(typeof transaction_id === 'string' ? { transaction_id } : {}),
      ...(typeof subscription_id === 'string' ? { subscription_id } : {}),
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
  return reply.code(statusOf(error)).send({
    error: { code: error.code, message: error.message, request_id: request.id, ...error.extras },
  });
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const api = toApiError(error, request);
    if (api) {
      if (statusOf(api) >= 500) request.log.error({ err: error }, api.code);
      return sendError(request, reply, api);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(request, reply, new ApiError('internal_error'));
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new ApiError('not_found', 'No such endpoint.')),
  );
}
