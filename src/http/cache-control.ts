import type { FastifyInstance } from 'fastify';

/**
 * Issue 23 item 2.8 (e): API answers carry secrets (a new API key, a session token, a webhook secret) and
 * payers' data (transactions, the panel's reads), so no browser or proxy may keep them: every answer is
 * `Cache-Control: no-store` unless its route chose its own header (the payer pages in
 * src/http/routes/charge-page.ts: `no-store` on the page, `private, max-age=0, must-revalidate` with an ETag
 * on the boleto PDF). A default rather than a list of routes, so an endpoint added later is covered;
 * errors, health and the API reference get it too, which costs nothing.
 */
export function installCacheControl(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
}
