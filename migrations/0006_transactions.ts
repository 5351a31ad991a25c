import { type Kysely, sql } from 'kysely';

// `boleto_due_date` is `YYYY-MM-DD` text (it sorts as a date), so the pg and PGlite drivers return the same
// business date instead of a local-midnight Date.
// Inline read model of charges (SPEC 2.2, 2.3, 4.3): src/projections/transactions.ts. No per-tenant counters
// (hot rows); every index leads with (tenant_id, livemode), the scope of every list (SPEC 4.3: a list shows
// only the mode of the key), then the filter, then the newest-first order with the id as tie-breaker.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table transactions (
      id text primary key,
      tenant_id text not null,
      livemode boolean not null,
      method text not null check (method in ('pix', 'boleto', 'credit_card')),
      status text not null
        check (status in ('processing', 'pending', 'paid', 'expired', 'failed', 'unknown', 'refunded')),
      amount bigint not null check (amount > 0),
      currency text not null,
      reference text not null,
      description text not null,
      simulated boolean not null,
      environment text not null check (environment in ('sandbox', 'production')),
      provider_id text,
      subaccount_id text,
      provider_reference text,
      cost_center_id text,
      callback_url text,
      pix_copy_paste text,
      pix_qr_code text,
      expires_at timestamptz,
      boleto_due_date text check (boleto_due_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
      boleto_url text,
      boleto_digitable_line text,
      boleto_barcode text,
      boleto_pix_copy_paste text,
      boleto_pix_expires_at timestamptz,
      failure_code text,
      provider_error_code text check (provider_error_code ~ '^[0-9]{1,10}$'),
      provider_error_message text check (char_length(provider_error_message) <= 400),
      provider_http_status integer check (provider_http_status between 100 and 599),
      paid_with text check (paid_with in ('pix', 'boleto')),
      paid_at timestamptz,
      duplicate_payment_at timestamptz,
      refund_status text,
      sequence bigint not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db);
  await sql`create index transactions_list on transactions (tenant_id, livemode, created_at desc, id desc)`.execute(
    db,
  );
  await sql`
    create index transactions_status on transactions (tenant_id, livemode, status, created_at desc, id desc)`.execute(
    db,
  );
  await sql`
    create index transactions_method on transactions (tenant_id, livemode, method, created_at desc, id desc)`.execute(
    db,
  );
  await sql`create index transactions_reference on transactions (tenant_id, livemode, reference)`.execute(db);
  await sql`
    create index transactions_cost_center
      on transactions (tenant_id, livemode, cost_center_id, created_at desc, id desc)`.execute(db);
  // The reconciler's scan: charges still processing (or unconfirmed) after a timeout.
  await sql`
    create index transactions_unsettled on transactions (created_at)
      where status in ('processing', 'unknown')`.execute(db);
  // SPEC 2.3: the creation snapshot, kept apart because it holds payer personal data that lists never read.
  await sql`
    create table transaction_requests (
      transaction_id text primary key,
      tenant_id text not null,
      livemode boolean not null,
      source text not null check (source in ('captured', 'legacy_partial')),
      request jsonb not null,
      provider_request jsonb,
      missing_fields text[] not null,
      created_at timestamptz not null
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table transaction_requests, transactions`.execute(db);
}
