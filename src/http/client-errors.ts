import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { newId } from '../ids.ts';
import { ApiError, statusOf } from './errors.ts';

/**
 * Issue 12 item 4: what Node's HTTP parser refuses (a NUL or other control character in a header, a request
 * line it cannot read, headers over the size limit) never becomes a request, so fastify answered it with
 * its own `{"error":"Bad Request"}` and no X-Request-ID. This answers the SPEC 7 envelope with a fresh
 * request id in the body and the header (SPEC 2.1): oversized headers are `413 request_too_large`, anything
 * else is `400 invalid_json` ("the request could not be read"). The raw packet may hold credentials, so
 * only the parser's error code is logged.
 */
/**
 * Issue 23 item 1.7: what could not be read, in words a person can act on (the parser's own text is not
 * shown; the code stays `invalid_json` as before).
 */
function unreadableMessage(code: string | undefined): string {
  if (code === 'HPE_INVALID_HEADER_TOKEN' || code === 'HPE_INVALID_CONTENT_LENGTH') {
    return 'A request header could not be read: a header name or value holds a character HTTP does not allow (a control character such as NUL, a space in the name) or an invalid Content-Length.';
  }
  if (
    code === 'HPE_INVALID_METHOD' ||
    code === 'HPE_INVALID_URL' ||
    code === 'HPE_INVALID_VERSION' ||
    code === 'HPE_INVALID_CONSTANT'
  ) {
    return 'The request line could not be read: send METHOD /path HTTP/1.1, with the path URL-encoded.';
  }
  return 'The request could not be read as HTTP/1.1.';
}

export function clientErrorHandler(logger: FastifyBaseLogger) {
  return (err: NodeJS.ErrnoException, socket: Socket): void => {
    // Reset by the peer: nobody is left to answer (fastify's default does the same).
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const requestId = newId('req');
    const api =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? new ApiError('request_too_large', 'The request headers are too large (16 KiB in all at most).')
        : new ApiError('invalid_json', unreadableMessage(err.code));
    logger.info({ request_id: requestId, err: { code: err.code } }, 'malformed request refused');
    const body = JSON.stringify({
      error: { code: api.code, message: api.message, request_id: requestId },
    });
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${statusOf(api)} ${statusOf(api) === 413 ? 'Content Too Large' : 'Bad Request'}\r\n` +
          `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `X-Request-ID: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
