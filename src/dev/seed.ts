/**
 * `calebe dev seed` (issue 7 item 1): realistic history for performance work. Tenants (roots with
 * children and grandchildren) and cost centers go through their commands, like the API creates them.
 * Charges are built by the Transaction decider (`transaction.decide` / `evolve`, the events a real command
 * would append, each decided at its own backdated instant) and written through the PostgreSQL store's bulk
 * path (`PostgresEventStore.appendStreams`): a few thousand new streams per SQL transaction, each event's
 * `recorded_at` set to the instant it was decided, the inline read models (transactions, webhook outbox)
 * written in the same transaction through their batch forms. The async read models (summary, stream
 * catalog, audit log) then catch up through the projection runner, in large batches.
 *
 * Deterministic for a given `--seed` (ids and event ids aside, which are random like the gateway's).
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  type BoletoOptions,
  type ChargeMethod,
  type ReserveTransaction,
  saoPauloDate,
  type TransactionArtifacts,
  type TransactionCommand,
  type TransactionEvent,
  type TransactionState,
  transaction,
} from '../aggregates/transaction.ts';
import type { CommandDeps } from '../commands/command-handler.ts';
import { createCostCenter } from '../commands/cost-centers/create/handler.ts';
import { createTenant } from '../commands/tenants/create/handler.ts';
import { createTenantType } from '../commands/tenants/create-type/handler.ts';
import { requestSnapshot } from '../commands/transactions/create/handler.ts';
import type { EventRegistry } from '../events/event-registry.ts';
import type { EventMetadata } from '../events/event-store.ts';
import type { NewStream, PostgresEventStore } from '../events/postgres-event-store.ts';
import { newId } from '../ids.ts';

export interface SeedOptions {
  /** Tenants to create (a quarter of them roots, the rest children and grandchildren). */
  tenants: number;
  /** Charges to create. */
  transactions: number;
  /** Charges of the first root tenant (the rest is spread over the others); default: half. */
  primary?: number;
  /** Share of production (live) charges; default 0.7. */
  liveShare?: number;
  /** Creation times spread over the last `days` days; default 365. */
  days?: number;
  /** Charges per bulk append (one SQL transaction); default 2,000. */
  batch?: number;
  /** Bulk appends in flight at once; default 2 (one being built while one is written). */
  concurrency?: number;
  /** PRNG seed; default 1. */
  seed?: number;
  /** "Now" of the seeded history; default the current time. */
  now?: Date;
  /** Called after each bulk append with the charges it wrote. */
  onProgress?: (transactions: number, events: number) => void;
}

export interface SeededTenant {
  id: string;
  name: string;
  parentId: string | null;
  costCenterIds: string[];
  transactions: number;
}

export interface SeedResult {
  tenants: SeededTenant[];
  transactions: number;
  events: number;
  /** Charges per final status. */
  statuses: Record<string, number>;
}

export interface SeedDeps extends CommandDeps {
  store: PostgresEventStore;
  registry: EventRegistry;
}

const DAY_MS = 86_400_000;
const METADATA: EventMetadata = { actor: 'system:seed' };

/** mulberry32: small, fast, seedable. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST_NAMES = [
  'Maria',
  'Joao',
  'Ana',
  'Pedro',
  'Juliana',
  'Carlos',
  'Fernanda',
  'Lucas',
  'Beatriz',
  'Rafael',
];
const LAST_NAMES = [
  'Silva',
  'Souza',
  'Oliveira',
  'Santos',
  'Lima',
  'Pereira',
  'Costa',
  'Almeida',
  'Rocha',
  'Gomes',
];
const CITIES = [
  { city: 'Sao Paulo', state: 'SP', zip: '01310100', street: 'Avenida Paulista', district: 'Bela Vista' },
  { city: 'Rio de Janeiro', state: 'RJ', zip: '20040002', street: 'Rua da Assembleia', district: 'Centro' },
  { city: 'Belo Horizonte', state: 'MG', zip: '30130010', street: 'Avenida Afonso Pena', district: 'Centro' },
  { city: 'Curitiba', state: 'PR', zip: '80010000', street: 'Rua XV de Novembro', district: 'Centro' },
  { city: 'Recife', state: 'PE', zip: '50030230', street: 'Avenida Guararapes', district: 'Santo Antonio' },
];
const DESCRIPTIONS = ['Pedido', 'Assinatura mensal', 'Fatura', 'Mensalidade', 'Compra online', 'Servico'];
const COST_CENTERS = ['Vendas', 'Marketing', 'Assinaturas', 'Suporte'];

type Outcome = 'paid' | 'expired' | 'pending' | 'failed' | 'unknown' | 'refunded';

/** Roughly how charges end (most paid; a few refunded). */
function pickOutcome(r: number): Outcome {
  if (r < 0.7) return 'paid';
  if (r < 0.84) return 'expired';
  if (r < 0.9) return 'pending';
  if (r < 0.94) return 'failed';
  if (r < 0.97) return 'unknown';
  return 'refunded';
}

function digitsOf(rand: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += Math.floor(rand() * 10);
  return s;
}

/** What a production provider answers for an open charge (not the simulator's marker). */
function liveArtifacts(
  rand: () => number,
  method: ChargeMethod,
  id: string,
  at: Date,
  expiresIn: number | null,
): TransactionArtifacts {
  const reference = `pv_${id.slice(4)}`;
  if (method === 'pix') {
    const emv = `00020126580014br.gov.bcb.pix0136${id.slice(4, 40)}5204000053039865802BR6304${digitsOf(rand, 4)}`;
    return {
      provider_reference: reference,
      pix_copy_paste: emv,
      pix_qr_code: `data:image/png;base64,${Buffer.from(emv).toString('base64')}`,
      expires_at: new Date(at.getTime() + (expiresIn ?? 3600) * 1000).toISOString(),
      boleto_url: null,
      boleto_digitable_line: null,
      boleto_barcode: null,
      boleto_pix_copy_paste: null,
      boleto_pix_expires_at: null,
    };
  }
  return {
    provider_reference: reference,
    pix_copy_paste: null,
    pix_qr_code: null,
    expires_at: null,
    boleto_url: `https://boletos.example.com/${reference}`,
    boleto_digitable_line: digitsOf(rand, 47),
    boleto_barcode: digitsOf(rand, 44),
    boleto_pix_copy_paste: null,
    boleto_pix_expires_at: null,
  };
}

function simulatedArtifactsFor(method: ChargeMethod, id: string, at: Date, expiresIn: number | null) {
  const marker = `SIMULADOR-TESTE-NAO-PAGAVEL:${id}`;
  return {
    provider_reference: `sim_${id}`,
    pix_copy_paste: method === 'pix' ? marker : null,
    pix_qr_code: method === 'pix' ? marker : null,
    expires_at: method === 'pix' ? new Date(at.getTime() + (expiresIn ?? 3600) * 1000).toISOString() : null,
    boleto_url: null,
    boleto_digitable_line: null,
    boleto_barcode: null,
    boleto_pix_copy_paste: null,
    boleto_pix_expires_at: null,
  } satisfies TransactionArtifacts;
}

/** Creates the tenant tree and its cost centers through their commands. */
async function seedTenants(deps: SeedDeps, count: number, rand: () => number): Promise<SeededTenant[]> {
  const run = randomUUID().slice(0, 8);
  const { type } = await createTenantType(
    deps,
    { name: `Seed merchants ${run}`, allowsChildren: true },
    METADATA,
  );
  const roots = Math.max(1, Math.round(count / 4));
  const tenants: SeededTenant[] = [];
  for (let i = 0; i < count; i++) {
    // Roots first; then children of roots, and from the second half of the children, grandchildren.
    const parent =
      i < roots
        ? null
        : i < roots + Math.ceil((count - roots) / 2) || tenants.length <= roots
          ? (tenants[(i - roots) % roots] as SeededTenant)
          : (tenants[roots + Math.floor(rand() * (i - roots))] as SeededTenant);
    const name = `${i < roots ? 'Loja' : 'Filial'} ${LAST_NAMES[i % LAST_NAMES.length]} ${i + 1}`;
    const tenant = await createTenant(
      deps,
      { name, typeId: type.id, parentId: parent?.id ?? null },
      METADATA,
    );
    const costCenterIds: string[] = [];
    const centers = 1 + (i % COST_CENTERS.length);
    for (let c = 0; c < centers; c++) {
      const { record } = await createCostCenter(
        deps,
        {
          tenantId: tenant.id,
          name: COST_CENTERS[c] as string,
          idempotencyKey: `seed-${run}-${i}-${c}`,
          route: '/v1/cost-centers',
        },
        { ...METADATA, tenant_id: tenant.id },
      );
      costCenterIds.push(record.id);
    }
    tenants.push({ id: tenant.id, name, parentId: parent?.id ?? null, costCenterIds, transactions: 0 });
  }
  return tenants;
}

/** How many charges each tenant gets: `primary` for the first, the rest weighted (a few big, many small). */
function spread(tenants: number, total: number, primary: number): number[] {
  const counts = new Array<number>(tenants).fill(0);
  counts[0] = tenants === 1 ? total : Math.min(primary, total);
  const rest = total - (counts[0] as number);
  if (tenants === 1 || rest <= 0) return counts;
  const weights = Array.from({ length: tenants - 1 }, (_, i) => 1 / (i + 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  let given = 0;
  for (let i = 1; i < tenants; i++) {
    const n = i === tenants - 1 ? rest - given : Math.floor((rest * (weights[i - 1] as number)) / sum);
    counts[i] = n;
    given += n;
  }
  return counts;
}

interface Decided {
  events: { event: TransactionEvent; at: Date }[];
  outcome: Outcome;
}

/** Runs one command through the decider at `at`; a refusal here is a bug in the seed. */
function step(state: TransactionState, command: TransactionCommand, at: Date, out: Decided['events']) {
  const result = transaction.decide(command, state, { now: at });
  if (!Array.isArray(result)) throw new Error(`seed: ${command.kind} refused: ${(result as Error).message}`);
  let next = state;
  for (const event of result as TransactionEvent[]) {
    out.push({ event, at });
    next = transaction.evolve(next, event);
  }
  return next;
}

/** One charge's whole history, decided command by command at backdated instants. */
function decideCharge(
  rand: () => number,
  tenant: SeededTenant,
  n: number,
  now: Date,
  days: number,
  liveShare: number,
): Decided {
  const livemode = rand() < liveShare;
  const method: ChargeMethod = rand() < 0.75 ? 'pix' : 'boleto';
  let outcome = pickOutcome(rand());
  // More charges recently (a growing business): creation age skewed towards now.
  let created = new Date(now.getTime() - Math.max(60_000, (1 - Math.sqrt(rand())) * days * DAY_MS));
  const expiresIn =
    method === 'pix' ? ([600, 1800, 3600, 3600, 86_400][Math.floor(rand() * 5)] as number) : null;
  if (outcome === 'pending') {
    // Still open: a Pix inside its deadline, a boleto before its due date.
    const window = method === 'pix' ? (expiresIn as number) * 1000 * 0.9 : 3 * DAY_MS;
    created = new Date(now.getTime() - 30_000 - rand() * window);
  }
  const id = newId('txn');
  const first = FIRST_NAMES[Math.floor(rand() * FIRST_NAMES.length)] as string;
  const last = LAST_NAMES[Math.floor(rand() * LAST_NAMES.length)] as string;
  const place = CITIES[Math.floor(rand() * CITIES.length)] as (typeof CITIES)[number];
  // Log-uniform from R$ 5 to R$ 5,000, rounded like prices are.
  const amount = Math.max(100, Math.round(10 ** (2.7 + rand() * 3) / 10) * 10 - (rand() < 0.5 ? 10 : 0));
  const costCenter =
    tenant.costCenterIds.length > 0 && rand() < 0.6
      ? tenant.costCenterIds[Math.floor(rand() * tenant.costCenterIds.length)]
      : undefined;
  const dueDate =
    method === 'boleto' ? saoPauloDate(new Date(created.getTime() + (3 + rand() * 7) * DAY_MS)) : null;
  const body = {
    amount,
    reference: `order-${tenant.name.split(' ').at(-1)}-${n}`,
    description: `${DESCRIPTIONS[n % DESCRIPTIONS.length]} ${n}`,
    ...(expiresIn !== null && expiresIn !== 3600 ? { expires_in: expiresIn } : {}),
    ...(costCenter ? { cost_center_id: costCenter } : {}),
    customer: {
      name: `${first} ${last}`,
      email: `${first}.${last}${n % 1000}@example.com`.toLowerCase(),
      phone: `11${9}${digitsOf(rand, 8)}`,
      address: {
        zip_code: place.zip,
        street: place.street,
        number: String(1 + Math.floor(rand() * 2000)),
        district: place.district,
        city: place.city,
        state: place.state,
      },
    },
    ...(dueDate ? { boleto: { due_date: dueDate } } : {}),
  };
  const boleto: BoletoOptions | null = dueDate
    ? {
        due_date: dueDate,
        instruction: null,
        penalty_rate: 0,
        interest_rate: 0,
        cancel_after_due: false,
        days_before_cancel: 0,
      }
    : null;
  const idempotencyKey = `seed-${id}`;
  const reserve: ReserveTransaction = {
    kind: 'reserve',
    transactionId: id,
    tenantId: tenant.id,
    livemode,
    method,
    amount,
    reference: body.reference,
    description: body.description,
    costCenterId: costCenter ?? null,
    callbackUrl: null,
    providerId: livemode ? 'prv_seedprovider' : null,
    subaccountId: null,
    environment: livemode ? 'production' : 'sandbox',
    simulated: !livemode,
    idempotencyKeySha256: createHash('sha256').update(idempotencyKey).digest('hex'),
    expiresIn,
    boleto,
    request: requestSnapshot({
      tenantId: tenant.id,
      livemode,
      method,
      idempotencyKey,
      route: method === 'pix' ? '/v1/pix' : '/v1/boleto',
      body,
    } as Parameters<typeof requestSnapshot>[0]),
    providerRequest: livemode ? { amount, method, reference: body.reference } : null,
  };
  const events: Decided['events'] = [];
  const at = (ms: number) => new Date(Math.min(created.getTime() + ms, now.getTime() - 1000));
  let state = step(transaction.initialState, reserve, created, events);
  const answeredAt = at(80 + rand() * 900);
  if (outcome === 'failed') {
    step(
      state,
      {
        kind: 'record_refused',
        failureCode: rand() < 0.5 ? 'provider_rejected' : 'invalid_payer',
        providerReference: null,
        diagnostics: {
          provider_error_code: '422',
          provider_error_message: 'Charge refused',
          provider_http_status: 422,
        },
      },
      answeredAt,
      events,
    );
    return { events, outcome };
  }
  if (outcome === 'unknown') {
    step(
      state,
      {
        kind: 'record_uncertain',
        providerReference: null,
        diagnostics: { provider_error_code: null, provider_error_message: null, provider_http_status: 504 },
      },
      at(15_000),
      events,
    );
    return { events, outcome };
  }
  const artifacts = livemode
    ? liveArtifacts(rand, method, id, answeredAt, expiresIn)
    : simulatedArtifactsFor(method, id, answeredAt, expiresIn);
  state = step(state, { kind: 'record_issued', artifacts }, answeredAt, events);
  if (outcome === 'pending') return { events, outcome };
  const window = method === 'pix' ? (expiresIn as number) * 1000 : 5 * DAY_MS;
  if (outcome === 'expired') {
    const expiredAt = at(window + 1000 + rand() * 60_000);
    if (expiredAt.getTime() <= answeredAt.getTime() + window) outcome = 'pending';
    else if (!livemode) state = step(state, { kind: 'simulate_expired' }, expiredAt, events);
    else
      state = step(
        state,
        method === 'pix'
          ? {
              kind: 'refresh_expired',
              observedStatus: 'pending',
              source: 'deadline',
              providerReference: null,
            }
          : {
              kind: 'refresh_expired',
              observedStatus: 'pending',
              source: 'provider',
              providerReference: artifacts.provider_reference,
            },
        expiredAt,
        events,
      );
    return { events, outcome };
  }
  const paidAt = at(1000 + rand() * window * 0.5);
  state = livemode
    ? step(
        state,
        {
          kind: 'refresh_paid',
          observedStatus: 'pending',
          providerReference: artifacts.provider_reference,
          paidWith: method,
          duplicatePayment: false,
        },
        paidAt,
        events,
      )
    : step(state, { kind: 'simulate_paid' }, paidAt, events);
  if (outcome === 'refunded') {
    const refundedAt = new Date(Math.min(paidAt.getTime() + (1 + rand() * 20) * DAY_MS, now.getTime() - 500));
    if (refundedAt.getTime() > paidAt.getTime()) {
      step(state, { kind: 'refund', refundStatus: 'succeeded' }, refundedAt, events);
    } else outcome = 'paid';
  }
  return { events, outcome };
}

/** Seeds tenants, cost centers and charges (see the file comment). */
export async function seed(deps: SeedDeps, opts: SeedOptions): Promise<SeedResult> {
  if (!Number.isInteger(opts.tenants) || opts.tenants < 1) throw new RangeError('tenants must be >= 1');
  if (!Number.isInteger(opts.transactions) || opts.transactions < 0)
    throw new RangeError('transactions must be >= 0');
  const rand = prng(opts.seed ?? 1);
  const now = opts.now ?? new Date();
  const days = opts.days ?? 365;
  const liveShare = opts.liveShare ?? 0.7;
  const batch = opts.batch ?? 2000;
  const concurrency = opts.concurrency ?? 2;
  const tenants = await seedTenants(deps, opts.tenants, rand);
  const counts = spread(tenants.length, opts.transactions, opts.primary ?? Math.round(opts.transactions / 2));
  // Interleave tenants the way traffic does: a tenant's next charge is due in proportion to its share.
  const remaining = [...counts];
  let left = opts.transactions;
  let events = 0;
  const statuses: Record<string, number> = {};

  const inFlight = new Set<Promise<void>>();
  let failure: unknown;
  let n = 0;
  while (left > 0) {
    const streams: NewStream[] = [];
    const size = Math.min(batch, left);
    for (let k = 0; k < size; k++) {
      let r = rand() * left;
      let t = 0;
      while (t < remaining.length - 1 && r >= (remaining[t] as number)) {
        r -= remaining[t] as number;
        t++;
      }
      remaining[t] = (remaining[t] as number) - 1;
      left -= 1;
      n += 1;
      const tenant = tenants[t] as SeededTenant;
      tenant.transactions += 1;
      const decided = decideCharge(rand, tenant, n, now, days, liveShare);
      statuses[decided.outcome] = (statuses[decided.outcome] ?? 0) + 1;
      const reserved = (decided.events[0] as Decided['events'][number]).event.data as {
        transaction_id: string;
        livemode: boolean;
      };
      const metadata: EventMetadata = {
        ...METADATA,
        request_id: `req_seed_${n}`,
        tenant_id: tenant.id,
        livemode: reserved.livemode,
      };
      streams.push({
        stream: `transaction-${reserved.transaction_id}`,
        events: decided.events.map(({ event, at }) => ({
          ...deps.registry.encode(event),
          id: randomUUID(),
          metadata,
          recordedAt: at,
        })),
      });
    }
    const written = streams.reduce((a, s) => a + s.events.length, 0);
    events += written;
    const p = deps.store.appendStreams(streams).then(
      () => opts.onProgress?.(streams.length, written),
      (error: unknown) => {
        failure ??= error;
      },
    );
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
    if (inFlight.size >= concurrency) await Promise.race(inFlight);
    if (failure) break;
  }
  await Promise.all(inFlight);
  if (failure) throw failure;
  return { tenants, transactions: opts.transactions, events, statuses };
}
