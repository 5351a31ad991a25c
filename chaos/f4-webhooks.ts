/**
 * F4 (issue 7): the webhook receiver flaps for `--seconds` (default 60) while charges are created (half of
 * them with a `callback_url`) and half of them simulated `paid`. The receiver alternates up (204) and down,
 * the down phases alternating between `503` answers and a closed port (connection refused), each phase 3 to
 * 7 s. Afterwards it stays up and the gateway's own delivery worker retries on its schedule (5 s, 30 s,
 * 2 min, 10 min, ... with ±20% jitter) for at most `--retry-wait` seconds (default 180, which covers the
 * first three retries); whatever is still scheduled further ahead then gets one
 * `POST /admin/webhook-deliveries/{id}/resend` (same webhook-id and body), and the report says how many.
 * Checks: every delivery of every message in `webhook_messages` reached its destination at least once,
 * under its `webhook-id`, with a signature the `standardwebhooks` package verifies; none failed or was
 * cancelled; the messages cover every charge created and paid.
 */
import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { callbackWebhookSecret } from '../src/webhooks/signing.ts';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  type ChaosOptions,
  Counter,
  call,
  createChaosDatabase,
  DOCUMENT_SIGNING_SECRET,
  fmt,
  freePort,
  GatewayProcess,
  gatewayEnv,
  log,
  onCleanup,
  pixBody,
  printTable,
  printVerdicts,
  scratchDir,
  seed,
  sleep,
  type Verdict,
  withDb,
} from './support.ts';

type Mode = 'up' | '503' | 'refused';

interface Receipt {
  path: string;
  id: string;
  verified: boolean;
  at: number;
}

/** A loopback receiver whose mode the scenario switches; it records what it accepted (2xx) and refused. */
class FlappingReceiver {
  mode: Mode = 'up';
  readonly accepted: Receipt[] = [];
  readonly refusedWith503 = new Counter();
  server: Server;
  listening = false;

  constructor(
    readonly port: number,
    private readonly secrets: { hook: string; cb: string },
  ) {
    this.server = this.build();
    onCleanup(() => this.close());
  }

  private build(): Server {
    return createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const id = String(req.headers['webhook-id']);
        if (this.mode !== 'up') {
          this.refusedWith503.add(id);
          res.statusCode = 503;
          res.end();
          return;
        }
        const body = Buffer.concat(chunks).toString('utf8');
        const path = (req.url ?? '').split('?')[0] as string;
        const secret = path === '/hook' ? this.secrets.hook : this.secrets.cb;
        let verified = false;
        try {
          new Webhook(secret).verify(body, {
            'webhook-id': id,
            'webhook-timestamp': String(req.headers['webhook-timestamp']),
            'webhook-signature': String(req.headers['webhook-signature']),
          });
          verified = true;
        } catch {
          verified = false;
        }
        this.accepted.push({ path, id, verified, at: Date.now() });
        res.statusCode = 204;
        res.end();
      });
    });
  }

  async listen(): Promise<void> {
    if (this.listening) return;
    for (let i = 0; ; i++) {
      try {
        await new Promise<void>((resolve, reject) => {
          this.server.once('error', reject);
          this.server.listen(this.port, '127.0.0.1', () => {
            this.server.off('error', reject);
            resolve();
          });
        });
        this.listening = true;
        return;
      } catch (error) {
        if (i >= 50) throw error;
        this.server = this.build();
        await sleep(100);
      }
    }
  }

  /** Closes the port and drops every open connection: the next attempts get ECONNREFUSED. */
  async close(): Promise<void> {
    if (!this.listening) return;
    this.listening = false;
    const closed = new Promise((r) => this.server.close(r));
    this.server.closeAllConnections();
    await closed;
    this.server = this.build();
  }

  async set(mode: Mode): Promise<void> {
    this.mode = mode;
    if (mode === 'refused') await this.close();
    else await this.listen();
  }
}

export async function runF4(opts: ChaosOptions): Promise<boolean> {
  const dir = scratchDir('f4');
  const receiverPort = await freePort();
  const databaseUrl = await createChaosDatabase();
  const seeded = await seed(databaseUrl, [
    {
      name: 'merchant',
      keys: [{ name: 'writer', scopes: ['pix:write', 'transactions:read'] }],
      webhookUrl: `http://127.0.0.1:${receiverPort}/hook`,
    },
  ]);
  const tenant = seeded.tenants.merchant;
  const hookSecret = seeded.endpointSecrets.merchant;
  if (!tenant?.keys.writer || !hookSecret) throw new Error('seed failed');
  const apiKey = tenant.keys.writer.key;
  const receiver = new FlappingReceiver(receiverPort, {
    hook: hookSecret,
    cb: callbackWebhookSecret(DOCUMENT_SIGNING_SECRET, tenant.tenantId, 'test'),
  });
  await receiver.listen();
  const gateway = new GatewayProcess(
    gatewayEnv(databaseUrl, await freePort(), {
      WEBHOOK_ALLOWED_PRIVATE_HOSTS: `127.0.0.1:${receiverPort}`,
      WEBHOOK_CONNECT_TIMEOUT_MS: '1000',
      WEBHOOK_TIMEOUT_MS: '3000',
    }),
    dir,
  );
  await gateway.start();
  log(`F4: gateway on ${gateway.baseUrl}, receiver on 127.0.0.1:${receiverPort}`);

  const started = Date.now();
  const flapUntil = started + opts.seconds * 1000;
  const phases = new Counter();
  const flapper = (async () => {
    let down: Mode = '503';
    let mode: Mode = 'up';
    while (Date.now() < flapUntil) {
      await sleep(Math.min(3_000 + Math.random() * 4_000, Math.max(0, flapUntil - Date.now())));
      mode = mode === 'up' ? down : 'up';
      if (mode !== 'up') down = mode === '503' ? 'refused' : '503';
      if (Date.now() >= flapUntil) break;
      await receiver.set(mode);
      phases.add(mode);
    }
    await receiver.set('up');
    log(`F4: flapping over (${phases.toString()}); receiver stays up`);
  })();

  const created: string[] = [];
  const paid: string[] = [];
  const loadErrors = new Counter();
  const worker = async (w: number) => {
    for (let n = 0; Date.now() < flapUntil; n++) {
      const ref = `f4-${w}-${n}`;
      const extra = n % 2 === 0 ? { callback_url: `http://127.0.0.1:${receiverPort}/cb` } : {};
      const a = await call(gateway.baseUrl, 'POST', '/v1/pix', {
        headers: { 'x-api-key': apiKey, 'idempotency-key': ref },
        json: pixBody(ref, 500 + n, extra),
      });
      if (a.status !== 201) {
        loadErrors.add(`create ${a.status} ${a.code}`);
        continue;
      }
      const id = (a.body as { data: { id: string } }).data.id;
      created.push(id);
      if (n % 4 < 2) {
        const s = await call(gateway.baseUrl, 'POST', `/v1/transactions/${id}/simulate`, {
          headers: { 'x-api-key': apiKey },
          json: { status: 'paid' },
        });
        if (s.status === 200) paid.push(id);
        else loadErrors.add(`simulate ${s.status} ${s.code}`);
      }
      await sleep(150);
    }
  };
  await Promise.all([...Array.from({ length: 4 }, (_, w) => worker(w)), flapper]);
  log(`F4: ${created.length} charges created, ${paid.length} paid`);

  const pendingNow = () =>
    withDb(databaseUrl, async (c) => {
      const { rows } = await c.query<{ n: string; next: Date | null }>(
        `select count(*) as n, max(next_attempt_at) as next from webhook_deliveries where status = 'pending'`,
      );
      return { n: Number(rows[0]?.n), next: rows[0]?.next ?? null };
    });
  // Automatic retries only, for at most retryWait seconds (stop early when nothing can come due in time).
  const waitUntil = Date.now() + opts.retryWait * 1000;
  let pending = await pendingNow();
  while (pending.n > 0 && Date.now() < waitUntil) {
    await sleep(2_000);
    pending = await pendingNow();
    const soonest = await withDb(databaseUrl, async (c) => {
      const { rows } = await c.query<{ next: Date | null }>(
        `select min(next_attempt_at) as next from webhook_deliveries where status = 'pending'`,
      );
      return rows[0]?.next ?? null;
    });
    if (soonest && soonest.getTime() > waitUntil) break;
  }
  const waitedSeconds = (Date.now() - flapUntil) / 1000;
  const pendingAfterRetries = pending.n;
  log(`F4: ${pendingAfterRetries} deliveries still pending ${fmt(waitedSeconds)} s after the flapping ended`);

  // What is scheduled beyond the wait gets one resend through the panel.
  let resent = 0;
  if (pendingAfterRetries > 0) {
    const login = await call(gateway.baseUrl, 'POST', '/admin/sessions', {
      json: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
    });
    if (login.status !== 201) throw new Error(`login: ${login.status} ${JSON.stringify(login.body)}`);
    const token = (login.body as { data: { token: string } }).data.token;
    const ids = await withDb(databaseUrl, async (c) => {
      const { rows } = await c.query<{ id: string }>(
        `select id from webhook_deliveries where status = 'pending'`,
      );
      return rows.map((r) => r.id);
    });
    for (const id of ids) {
      const r = await call(gateway.baseUrl, 'POST', `/admin/webhook-deliveries/${id}/resend`, {
        headers: { authorization: `Bearer ${token}` },
      });
      if (r.status === 200) resent++;
      else loadErrors.add(`resend ${r.status} ${r.code}`);
    }
    const resendUntil = Date.now() + 60_000;
    while ((await pendingNow()).n > 0 && Date.now() < resendUntil) await sleep(1_000);
  }
  const exits = [...gateway.unexpectedExits];
  await gateway.stop();
  await receiver.close();

  const db = await withDb(databaseUrl, async (c) => {
    const messages = (
      await c.query<{ id: string; type: string; transaction_id: string; status: string }>(
        `select id, type, transaction_id, status from webhook_messages`,
      )
    ).rows;
    const deliveries = (
      await c.query<{
        id: string;
        message_id: string;
        destination: string;
        status: string;
        attempts: number;
      }>(`select id, message_id, destination, status, attempts from webhook_deliveries`)
    ).rows;
    const attempts = (
      await c.query<{ outcome: string; n: string }>(
        `select outcome, count(*) as n from webhook_attempts group by outcome order by outcome`,
      )
    ).rows;
    return { messages, deliveries, attempts };
  });

  const receivedBy = new Map<string, Receipt[]>();
  for (const r of receiver.accepted) {
    const k = `${r.path} ${r.id}`;
    receivedBy.set(k, [...(receivedBy.get(k) ?? []), r]);
  }
  const missing: string[] = [];
  let retried = 0;
  const deliveryStatuses = new Counter();
  for (const d of db.deliveries) {
    deliveryStatuses.add(d.status);
    if (d.attempts > 1) retried++;
    const got = receivedBy.get(`${d.destination === 'endpoint' ? '/hook' : '/cb'} ${d.message_id}`) ?? [];
    if (!got.some((r) => r.verified)) missing.push(`${d.id} (${d.destination}, ${d.message_id})`);
  }
  const badSignatures = receiver.accepted.filter((r) => !r.verified).length;
  const lastReceipt = Math.max(...receiver.accepted.map((r) => r.at));
  const maxAttempts = Math.max(0, ...db.deliveries.map((d) => d.attempts));
  const duplicates = receiver.accepted.length - receivedBy.size;
  const messageIds = new Set(db.messages.map((m) => m.id));
  const messagesWithoutDelivery = [...messageIds].filter(
    (id) => !db.deliveries.some((d) => d.message_id === id),
  ).length;
  const createdMessages = new Set(
    db.messages.filter((m) => m.type === 'transaction.created').map((m) => m.transaction_id),
  );
  const paidMessages = new Set(
    db.messages
      .filter((m) => m.type === 'transaction.updated' && m.status === 'paid')
      .map((m) => m.transaction_id),
  );
  const uncovered =
    created.filter((id) => !createdMessages.has(id)).length +
    paid.filter((id) => !paidMessages.has(id)).length;

  console.log('\nF4: deliveries');
  printTable(
    ['figure', 'value'],
    [
      ['flapping seconds', fmt(opts.seconds)],
      ['receiver phases after the first up', phases.toString()],
      ['charges created / simulated paid', `${created.length} / ${paid.length}`],
      ['load errors', loadErrors.toString() || 'none'],
      ['webhook messages', fmt(db.messages.length)],
      ['deliveries (endpoint + callback_url)', fmt(db.deliveries.length)],
      ['deliveries that needed a retry', fmt(retried)],
      ['most attempts of one delivery', fmt(maxAttempts)],
      ['last receipt after the flapping ended', `${fmt((lastReceipt - flapUntil) / 1000)} s`],
      ['attempts by outcome', db.attempts.map((a) => `${a.outcome}: ${a.n}`).join(', ')],
      ['answered 503 by the receiver (attempts)', fmt(receiver.refusedWith503.total())],
      ['pending after automatic retries', `${pendingAfterRetries} (waited ${fmt(waitedSeconds)} s)`],
      ['resent through the panel', fmt(resent)],
      ['final delivery statuses', deliveryStatuses.toString()],
      ['accepted receipts / distinct (path, webhook-id)', `${receiver.accepted.length} / ${receivedBy.size}`],
    ],
  );
  if (missing.length > 0) console.log('missing deliveries:', missing.slice(0, 10));

  const verdicts: Verdict[] = [
    {
      check: 'receiver flapped',
      target: 'up / 503 / refused phases',
      measured: phases.toString(),
      ok: phases.get('503') > 0 && phases.get('refused') > 0 && receiver.refusedWith503.total() > 0,
    },
    {
      check: 'deliveries received (webhook-id at least once, verified)',
      target: 'all',
      measured: `${db.deliveries.length - missing.length} / ${db.deliveries.length}`,
      ok: missing.length === 0 && db.deliveries.length > 0,
    },
    {
      check: 'messages with a delivery',
      target: 'all',
      measured: `${messageIds.size - messagesWithoutDelivery} / ${messageIds.size}`,
      ok: messagesWithoutDelivery === 0,
    },
    {
      check: 'charges whose created/paid message is missing',
      target: '0',
      measured: fmt(uncovered),
      ok: uncovered === 0 && created.length > 0,
    },
    {
      check: 'signatures standardwebhooks refused',
      target: '0',
      measured: fmt(badSignatures),
      ok: badSignatures === 0,
    },
    {
      check: 'deliveries failed or cancelled',
      target: '0',
      measured: fmt(deliveryStatuses.get('failed') + deliveryStatuses.get('cancelled')),
      ok: deliveryStatuses.get('failed') + deliveryStatuses.get('cancelled') === 0,
    },
    {
      check: 'create/simulate errors during the flapping',
      target: '0',
      measured: fmt(loadErrors.total()),
      ok: loadErrors.total() === 0,
    },
    { check: 'gateway process exits', target: '0', measured: fmt(exits.length), ok: exits.length === 0 },
  ];
  console.log(`\nduplicate receipts (at-least-once, deduplicated on webhook-id): ${duplicates}`);
  return printVerdicts('F4 webhook receiver flapping', verdicts);
}
