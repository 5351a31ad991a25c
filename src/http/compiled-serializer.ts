import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify';
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

/**
 * Issue 14 (B3): a route's responses written by a serializer compiled once from the JSON Schema zod gives
 * for its response schemas, as fastify itself does for JSON Schema routes. The default zod serializer
 * (src/http/server.ts) parses every field of every item with zod before `JSON.stringify`, about as costly
 * as the stringify itself for a page of 100 charges built field by field from typed rows. This one writes
 * the declared properties only (an undeclared field never leaves: dropped, or refused inside a nullable
 * object, whose branches are checked) and throws on a missing required one. The HTTP tests check every
 * answer against /openapi.json, so the shape is still verified, in the tests rather than per request. Used
 * per route (`serializerCompiler`) for large answers built by typed code (docs/decisions.md, issue 14).
 */
export const compiledSerializer: FastifySerializerCompiler<unknown> = ({ schema }) => {
  const zod = resolve(schema);
  return fastJson(
    z.toJSONSchema(zod, { io: 'output', target: 'draft-7', unrepresentable: 'any' }) as Parameters<
      typeof fastJson
    >[0],
  );
};

/** A route's response schema: the zod schema itself, or fastify's `{ properties: <zod> }` form. */
function resolve(schema: unknown): z.ZodType {
  if (schema instanceof z.ZodType) return schema;
  const properties = (schema as { properties?: unknown } | null)?.properties;
  if (properties instanceof z.ZodType) return properties;
  throw new TypeError(`compiledSerializer: not a zod schema: ${JSON.stringify(schema)}`);
}

/**
 * The compiled serializer for 2xx answers only (issue 14: the creation routes' 201/202 and their replays'
 * 200/202); error envelopes keep the zod serializer, which checks them against the schema at runtime.
 */
export const compiledSuccessSerializer: FastifySerializerCompiler<unknown> = (route) =>
  String(route.httpStatus).startsWith('2')
    ? compiledSerializer(route)
    : (zodSerializerCompiler as FastifySerializerCompiler<unknown>)(route);
