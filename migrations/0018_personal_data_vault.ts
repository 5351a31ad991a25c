import { type Kysely, sql } from 'kysely';

// Issue 22 item 4.4: personal data that must be erasable (a boleto refund's bank account first, later LGPD
// payer data), outside the event log: events are never rewritten, so what must be forgettable cannot live
// there. Each row is sealed with a data key of its own, wrapped by the credentials key
// (src/crypto/vault.ts); shredding sets `wrapped_key` to null and leaves an unreadable ciphertext, the hash
// and who/when/why. Not a projection: no replay or rebuild truncates or refills it, and no foreign key.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table personal_data_vault (
    id text primary key check (id ~ '^vlt_[0-9a-z]{26}$'),
    tenant_id text not null,
    livemode boolean not null,
    purpose text not null check (purpose ~ '^[a-z][a-z0-9_]{0,63}$'),
    subject_id text not null,
    wrapped_key text,
    ciphertext text not null,
    hash text not null check (hash ~ '^[0-9a-f]{64}$'),
    created_at timestamptz not null,
    expires_at timestamptz not null,
    shredded_at timestamptz,
    shred_reason text check (shred_reason ~ '^[a-z][a-z0-9_]{0,63}$'),
    shredded_by text,
    check (expires_at > created_at),
    -- A row is either readable (a wrapped key, no shred record) or shredded (no key, when/why/who recorded).
    check (
      (wrapped_key is not null and shredded_at is null and shred_reason is null and shredded_by is null)
      or (wrapped_key is null and shredded_at is not null and shred_reason is not null and shredded_by is not null)
    )
  )`.execute(db);
  // The expiry worker's scan: only rows still holding a key.
  await sql`create index personal_data_vault_expiring on personal_data_vault (expires_at)
    where wrapped_key is not null`.execute(db);
  // An erasure request names a subject (a payer, a refund) within a tenant.
  await sql`create index personal_data_vault_subject on personal_data_vault (tenant_id, subject_id)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table personal_data_vault`.execute(db);
}
