import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.ts';
import { parseStrictJson } from './strict-json.ts';

/** SPEC 8: 1 MiB. Fastify stops reading at the limit, so the excess is never buffered. */
export const BODY_LIMIT = 1024 * 1024;

/** Replaces fastify's JSON parser with the strict one (SPEC 4 common rules, 7 `invalid_json`). */
export function useStrictJsonBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: BODY_LIMIT },
    (_req, body, done) => {
      const parsed = parseStrictJson(body as Buffer);
      if (parsed.ok) done(null, parsed.value);
      else done(new ApiError('invalid_json', `Invalid JSON body: ${parsed.reason}`));
    },
  );
}
