import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';

/** What the scheduler benches need of a gateway built in-process (any tree's `createGateway`). */
interface ListeningGateway {
  readonly http: {
    listen(options: { port: number; host: string }): Promise<unknown>;
    readonly server: { address(): AddressInfo | string | null };
  };
}

/**
 * The scheduler benches' reference load: the gateway listens on a loopback port, and each call of the
 * returned function creates the boleto `body` with a fresh Idempotency-Key, failing on anything but 201.
 * No src import, so the A/B child measures only the tree it loaded.
 */
export async function boletoPoster(
  gateway: ListeningGateway,
  key: string,
  body: string,
): Promise<() => Promise<void>> {
  await gateway.http.listen({ port: 0, host: '127.0.0.1' });
  const address = gateway.http.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return () =>
    fetch(`http://127.0.0.1:${port}/v1/boleto`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body,
    }).then(async (r) => {
      if (r.status !== 201) throw new Error(`POST /v1/boleto answered ${r.status}: ${await r.text()}`);
    });
}
