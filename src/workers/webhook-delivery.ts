import { type Selectable, sql } from 'kysely';
import { documentSigningSecret } from '../charge-page/signing-secret.ts';
import type { AppContext } from '../commands/context.ts';
import { modeOf } from '../commands/tenancy.ts';
import { disableGoneWebhookEndpoint } from '../commands/webhook-endpoints/disable-gone/handler.ts';
import { endpointSigningSecrets } from '../commands/webhook-endpoints/secrets.ts';
import type { WebhookDeliveriesTable, WebhookDeliveryStatus, WebhookMessagesTable } from '../db/schema.ts';
import type { Logger } from '../logger.ts';
import { webhookAttempts } from '../metrics.ts';
import { type AttemptResult, sendWebhook } from '../webhooks/http-sender.ts';
import { nextAttemptAt } from '../webhooks/retry-schedule.ts';
import { callbackWebhookSecret, webhookHeaders } from '../webhooks/signing.ts';
import { type DestinationPolicy, destinationPolicy, type Lookup } from '../webhooks/ssrf-guard.ts';
import { PollingLoop } from './polling-loop.ts';
import { renderMessageBodies } from './webhook-message-body.ts';

export const WEBHOOK_ACTOR = 'system:webhooks';

export interface WebhookWorkerOptions {
  /** Pause between polls when idle (an in-process append wakes the worker at once). */
  intervalMs: number;
  /** Deliveries sent at the same time. */
  concurrency: number;
  /** Deliveries claimed per poll. */
  batchSize?: number;
  /** DNS resolution (tests inject one); the system resolver by default. */
  lookup?: Lookup;
  /** Jitter source of the retry schedule. */
  random?: () => number;
  /** The schedule's clock (tests move it forward); `ctx.now` by default. */
  now?: () => Date;
  logger?: Pick<Logger, 'warn' | 'error'>;
}

type Delivery = Selectable<WebhookDeliveriesTable>;

/** A claimed delivery with its message and (for endpoint destinations) its endpoint. */
type Claimed = Delivery &
  Pick<
    Selectable<WebhookMessagesTable>,
    'type' | 'livemode' | 'sequence' | 'previous_status' | 'occurred_at' | 'body' | 'snapshot'
  > & {
    e_id: string | null;
    e_url: string | null;
    e_enabled: boolean | null;
    e_deleted_at: Date | null;
    e_secret_sealed: string | null;
    e_previous_secret_sealed: string | null;
    e_previous_expires_at: Date | null;
  };

/** What one delivery's attempt (or cancellation, `result` null) changes. */
interface Outcome {
  delivery: Claimed;
  startedAt: Date;
  status: WebhookDeliveryStatus;
  next: Date | null;
  error: string | null;
  result: AttemptResult | null;
}

/** What a tenant reads for a destination the SSRF guard refused or could not resolve (issue 23 item 2.9). */
export const DESTINATION_REFUSED = 'destination not allowed or unreachable';

interface Destination {
  url: string;
  secrets: string[];
}

/**
 * Sends the outbox (SPEC 6; issue 6 item 5): at least once, oldest due first.
 *
 * - Claiming: `FOR UPDATE SKIP LOCKED` plus a lease (`locked_until`) longer than an attempt can take, so
 *   several instances never send one delivery at the same time, and a delivery whose sender died is picked
 *   up again when its lease ends (hence "at least once": receivers deduplicate on `webhook-id`).
 * - Each attempt is recorded (`webhook_attempts`: outcome, status code, duration, error) together with the
 *   delivery's new state, in one statement per poll (see runOnce).
 * - 2xx: delivered. 410 from an endpoint: the endpoint is disabled (`WebhookEndpoint.Disabled`, reason
 *   `gone`) and its delivery stops; from a callback_url: that delivery stops. Anything else (including a
 *   destination refused by the SSRF guard, which may be a DNS hiccup, recorded as DESTINATION_REFUSED with
 *   the precise reason in the log only): retried on the schedule of
 *   `retry-schedule.ts` (about three days, `Retry-After` honoured), then `failed`.
 * - A disabled or deleted endpoint's pending deliveries are `cancelled` when they come due (re-enabling it
 *   does not bring them back; `POST /admin/webhook-deliveries/{id}/resend` does).
 * - The schedule's time comes from `opts.now` (default `ctx.now`), so tests move it forward without waiting.
 *   The `webhook-timestamp` header is the wall clock: receivers compare it with theirs to refuse replays.
 */
export class WebhookDeliveryWorker {
  private readonly loop: PollingLoop;
  private readonly policy: DestinationPolicy;
  private readonly batchSize: number;
  private readonly now: () => Date;

  constructor(
    private readonly ctx: AppContext,
    private readonly opts: WebhookWorkerOptions,
  ) {
    this.policy = destinationPolicy(ctx.config);
    this.batchSize = opts.batchSize ?? 100;
    this.now = opts.now ?? (() => ctx.now());
    this.loop = new PollingLoop('webhook delivery', () => this.tick(), opts.intervalMs, opts.logger);
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  wake(): void {
    this.loop.wake();
  }

  private async tick(): Promise<boolean> {
    return (await this.runOnce()) === this.batchSize;
  }

  /**
   * One poll: claims the due deliveries, renders the bodies still missing, sends, and records the attempts.
   * Deliveries of one charge to one destination go one after the other in claim order (oldest first), so a
   * receiver usually sees `created` before `updated`; order is not guaranteed across retries, which is what
   * `data.sequence` is for. Database work is batched per poll (one claim, one stream read per charge, one
   * body write, one attempt write): on this machine every round trip costs more than the HTTP call.
   * Returns how many deliveries it claimed.
   */
  async runOnce(): Promise<number> {
    const claimed = await this.claim(this.now());
    if (claimed.length === 0) return 0;
    await this.freezeBodies(claimed);
    const lanes = new Map<string, Claimed[]>();
    for (const d of claimed) {
      const lane = `${d.transaction_id} ${d.endpoint_id ?? d.callback_url}`;
      lanes.set(lane, [...(lanes.get(lane) ?? []), d]);
    }
    const queue = [...lanes.values()];
    const outcomes: Outcome[] = [];
    const work = async (): Promise<void> => {
      for (let lane = queue.shift(); lane; lane = queue.shift()) {
        for (const delivery of lane) {
          try {
            outcomes.push(await this.deliver(delivery));
          } catch (err) {
            // Unexpected (database down, undecodable stream): the lease ends and a later poll retries it.
            this.opts.logger?.error(
              { err, delivery_id: delivery.id },
              'webhook delivery failed unexpectedly',
            );
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.opts.concurrency, queue.length) }, work));
    await this.record(outcomes);
    return claimed.length;
  }

  private async claim(now: Date): Promise<Claimed[]> {
    // Longer than one attempt can take (DNS + connect + total timeout), with room for the bookkeeping.
    const leaseMs = this.ctx.config.WEBHOOK_TIMEOUT_MS * 2 + 30_000;
    // One round trip: the claim, the message and the endpoint (each delivery needs all three).
    const { rows } = await sql<Claimed>`
      with claimed as (
        update webhook_deliveries d set locked_until = ${new Date(now.getTime() + leaseMs)}
        where d.id in (
          select id from webhook_deliveries
          where status = 'pending' and next_attempt_at <= ${now}
            and (locked_until is null or locked_until <= ${now})
          order by next_attempt_at, created_at, id
          limit ${this.batchSize}
          for update skip locked)
        returning d.*)
      select c.*, m.type, m.livemode, m.sequence, m.previous_status, m.occurred_at, m.body,
        case when m.body is null then m.snapshot end as snapshot,
        e.id as e_id, e.url as e_url, e.enabled as e_enabled, e.deleted_at as e_deleted_at,
        e.secret_sealed as e_secret_sealed, e.previous_secret_sealed as e_previous_secret_sealed,
        e.previous_expires_at as e_previous_expires_at
      from claimed c
      join webhook_messages m on m.id = c.message_id
      left join webhook_endpoints e on e.id = c.endpoint_id
      order by c.created_at, c.id`.execute(this.ctx.db);
    return rows;
  }

  private async deliver(delivery: Claimed): Promise<Outcome> {
    const startedAt = this.now();
    const destination = await this.destination(delivery);
    if (typeof destination === 'string') {
      return { delivery, startedAt, status: 'cancelled', next: null, error: destination, result: null };
    }
    const body = delivery.body as string;
    const result = await sendWebhook({
      url: destination.url,
      headers: webhookHeaders(destination.secrets, delivery.message_id, new Date(), body),
      body,
      policy: this.policy,
      connectTimeoutMs: this.ctx.config.WEBHOOK_CONNECT_TIMEOUT_MS,
      timeoutMs: this.ctx.config.WEBHOOK_TIMEOUT_MS,
      ...(this.opts.lookup ? { lookup: this.opts.lookup } : {}),
    });
    webhookAttempts.inc({ outcome: result.outcome });
    let status: WebhookDeliveryStatus = 'pending';
    let next: Date | null = null;
    let error = result.error;
    if (result.outcome === 'refused') {
      // Issue 23 item 2.9: the tenant reads one text for every refused destination, so deliveries cannot
      // probe internal names (loopback vs not found); the precise reason stays in the server log. No URL
      // there: its path or query may carry the receiver's token.
      this.opts.logger?.warn(
        { delivery_id: delivery.id, endpoint_id: delivery.endpoint_id, reason: result.error },
        'webhook destination refused',
      );
      error = DESTINATION_REFUSED;
    }
    if (result.outcome === 'delivered') status = 'delivered';
    else if (result.outcome === 'gone') {
      status = 'failed';
      if (delivery.endpoint_id !== null) {
        await disableGoneWebhookEndpoint(
          { store: this.ctx.store, registry: this.ctx.events, now: this.now },
          delivery.endpoint_id,
          { actor: WEBHOOK_ACTOR, tenant_id: delivery.tenant_id },
        );
        error = 'HTTP 410: endpoint disabled';
      }
    } else {
      const attempts = delivery.attempts + 1;
      next = nextAttemptAt(attempts, startedAt, this.opts.random ?? Math.random, result.retryAfterSeconds);
      if (next === null) status = 'failed';
    }
    return { delivery, startedAt, status, next, error, result };
  }

  /** Where and with which secrets; a string says why the delivery is cancelled instead. */
  private async destination(delivery: Claimed): Promise<Destination | string> {
    if (delivery.destination === 'callback') {
      const root = await documentSigningSecret(this.ctx.config);
      const mode = modeOf(delivery.livemode);
      return {
        url: delivery.callback_url as string,
        secrets: [callbackWebhookSecret(root, delivery.tenant_id, mode)],
      };
    }
    if (delivery.e_id === null || delivery.e_deleted_at !== null) return 'endpoint deleted';
    if (!delivery.e_enabled) return 'endpoint disabled';
    const endpoint = {
      id: delivery.e_id,
      secret_sealed: delivery.e_secret_sealed,
      previous_secret_sealed: delivery.e_previous_secret_sealed,
      previous_expires_at: delivery.e_previous_expires_at,
    };
    return {
      url: delivery.e_url as string,
      secrets: await endpointSigningSecrets(this.ctx, endpoint, this.now()),
    };
  }

  /** Renders the bodies still missing; whoever stores one first wins, and every attempt sends those bytes. */
  private async freezeBodies(claimed: Claimed[]): Promise<void> {
    const missing = new Map(claimed.filter((d) => d.body === null).map((d) => [d.message_id, d]));
    if (missing.size === 0) return;
    const rendered = await renderMessageBodies(this.ctx, [...missing.values()]);
    const { rows } = await sql<{ id: string; body: string }>`
      update webhook_messages m set body = coalesce(m.body, v.body)
      from unnest(${[...rendered.keys()]}::text[], ${[...rendered.values()]}::text[]) as v(id, body)
      where m.id = v.id
      returning m.id, m.body`.execute(this.ctx.db);
    const frozen = new Map(rows.map((r) => [r.id, r.body]));
    for (const d of claimed) d.body ??= frozen.get(d.message_id) ?? null;
  }

  /** Every attempt of the poll and the deliveries' new states, in one statement (they commit together). */
  private async record(outcomes: Outcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const at = this.now();
    const tried = outcomes.filter((o) => o.result !== null);
    const col = <T>(f: (o: Outcome) => T, list = outcomes) => list.map(f);
    await sql`
      with attempt as (
        insert into webhook_attempts (delivery_id, attempt, started_at, duration_ms, outcome, status_code, error)
        select a.id, a.attempts, a.started_at, a.duration_ms, a.outcome, a.status_code, a.error
        from unnest(${col((o) => o.delivery.id, tried)}::text[],
          ${col((o) => o.delivery.attempts + 1, tried)}::int[],
          ${col((o) => o.startedAt, tried)}::timestamptz[],
          ${col((o) => o.result?.durationMs ?? 0, tried)}::int[],
          ${col((o) => o.result?.outcome ?? 'failed', tried)}::text[],
          ${col((o) => o.result?.statusCode ?? null, tried)}::int[],
          ${col((o) => o.error, tried)}::text[])
          as a(id, attempts, started_at, duration_ms, outcome, status_code, error))
      update webhook_deliveries d set status = v.status,
        attempts = d.attempts + v.tried::int,
        next_attempt_at = coalesce(v.next, d.next_attempt_at),
        locked_until = null,
        last_attempt_at = case when v.tried then v.started_at else d.last_attempt_at end,
        last_status_code = case when v.tried then v.status_code else d.last_status_code end,
        last_error = v.error,
        delivered_at = case when v.status = 'delivered' then ${at}::timestamptz end,
        updated_at = ${at}
      from unnest(${col((o) => o.delivery.id)}::text[], ${col((o) => o.status)}::text[],
        ${col((o) => o.next)}::timestamptz[], ${col((o) => o.result !== null)}::boolean[],
        ${col((o) => o.startedAt)}::timestamptz[], ${col((o) => o.result?.statusCode ?? null)}::int[],
        ${col((o) => o.error)}::text[])
        as v(id, status, next, tried, started_at, status_code, error)
      where d.id = v.id`.execute(this.ctx.db);
  }
}
