import type { ColumnType, Generated } from 'kysely';

/** Tables of the event store itself. Read-model tables add their own interfaces here as they appear. */
export interface StreamsTable {
  stream_id: string;
  version: ColumnType<string, number, number>;
}

export interface EventsTable {
  global_position: Generated<string>;
  transaction_id: Generated<string>;
  stream_id: string;
  version: ColumnType<string, number, never>;
  event_id: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: unknown;
  recorded_at: Generated<Date>;
}

export interface ProjectionCheckpointsTable {
  name: string;
  tx: ColumnType<string, number, number>;
  pos: ColumnType<string, number, number>;
  updated_at: ColumnType<Date, Date | string, Date | string>;
}

export interface StreamCatalogTable {
  stream_id: string;
  category: string;
  version: ColumnType<string, number, number>;
  last_type: string;
  first_recorded_at: ColumnType<Date, Date, Date>;
  last_recorded_at: ColumnType<Date, Date, Date>;
}

type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface TenantTypesTable {
  id: string;
  name: string;
  allows_children: boolean;
  created_at: Timestamp;
}

export interface TenantsTable {
  id: string;
  name: string;
  type_id: string;
  parent_id: string | null;
  /** Root first, the tenant itself last. */
  ancestor_ids: string[];
  status: 'active' | 'suspended';
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface UsersTable {
  id: string;
  email: string;
  role: 'super_admin' | 'tenant_admin' | 'viewer';
  tenant_id: string | null;
  status: 'active' | 'suspended';
  password_hash: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SessionsTable {
  token_sha256: string;
  id: string;
  user_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  revoked_reason: string | null;
}

export interface ApiKeysTable {
  id: string;
  secret_sha256: string;
  /** The first characters of the secret, shown in listings so a key can be recognized. */
  prefix: string;
  tenant_id: string;
  livemode: boolean;
  name: string;
  scopes: string[];
  access_profile: 'standard' | 'developer';
  created_by: string;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface ProvidersTable {
  id: string;
  name: string;
  kind: 'simulator' | 'external';
  environment: 'sandbox' | 'production';
  enabled_methods: string[];
  is_marketplace: boolean;
  enabled: boolean;
  /** AES-256-GCM, the provider id as associated data; never returned. */
  credentials_ciphertext: string | null;
  /** Issue 13: external provider hosts; null means the real Safe2Pay hosts. */
  payment_host: string | null;
  api_host: string | null;
  /** Issue 22 item 4.2 (migration 0019): boleto refunds by payout allowed. */
  boleto_refund_payout: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A charge's fee facts (src/aggregates/fees.ts `FeeFacts`), jsonb. */
export interface FeesColumn {
  retained_amount: number;
  on: 'pix' | 'boleto' | 'credit_card';
  tenant_fee_id: string | null;
  fee_starts_on: string | null;
  pix_retained_amount?: number | undefined;
}

/** One fee version (migration 0030, src/projections/fee-schedules.ts); never edited once written. */
export interface FeeVersionsTable {
  id: string;
  tenant_id: string;
  method: 'pix' | 'boleto' | 'credit_card';
  percent_bps: number;
  /** bigint in SQL: read back as a string. */
  fixed_amount: ColumnType<string, number, number>;
  /** `YYYY-MM-DD`, a Brasilia business date, stored as text. */
  starts_on: string;
  created_at: Timestamp;
}

export interface RoutingRulesTable {
  id: string;
  method: 'pix' | 'boleto' | 'credit_card';
  /** null for a global rule. */
  tenant_id: string | null;
  provider_id: string;
  priority: number;
  max_amount: number;
  enabled: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One audited event (src/projections/audit.ts); never a secret in `before` / `after`. */
export interface AuditLogTable {
  /** The event id. */
  id: string;
  position: ColumnType<string, number, number>;
  occurred_at: Timestamp;
  actor: string;
  action: string;
  target_type: string;
  target_id: string;
  tenant_id: string | null;
  request_id: string | null;
  before: unknown;
  after: unknown;
}

/** A cost center (SPEC 4.12; src/projections/cost-centers.ts): per tenant, the same in test and production. */
export interface CostCentersTable {
  id: string;
  tenant_id: string;
  name: string;
  active: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** An internal panel notification (SPEC 5.7; migration 0029, src/projections/notifications.ts). */
export interface NotificationsTable {
  id: string;
  /** null: addressed to the whole platform. */
  tenant_id: string | null;
  title: string;
  body: string;
  severity: string;
  created_by: string;
  created_at: Timestamp;
}

/** One user's receipt of a notification (migration 0029). */
export interface NotificationReadsTable {
  notification_id: string;
  user_id: string;
  read_at: Timestamp;
}

/** Marketplace subaccount links (migration 0031; SPEC 2.7, 3.6). */
export interface SubaccountsTable {
  id: string;
  provider_id: string;
  tenant_id: string;
  name: string;
  document: string;
  email: string;
  status: string;
  provider_reference: string | null;
  tokens_ciphertext: string | null;
  last_error_code: string | null;
  last_provider_error_code: string | null;
  last_error_message: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The subaccount reconciliation job's per-record schedule (migration 0032). */
export interface SubaccountReconcileTable {
  subaccount_id: string;
  attempts: number;
  next_attempt_at: Timestamp;
}

/** `transactions.credit_card` (jsonb). */
export interface CardColumn {
  brand: string;
  last_four: string;
  holder: string;
  expiration: string;
  installments: number;
}

/** One charge (SPEC 2.2), projected inline by src/projections/transactions.ts. */
export interface TransactionsTable {
  id: string;
  tenant_id: string;
  livemode: boolean;
  method: 'pix' | 'boleto' | 'credit_card';
  status: 'processing' | 'pending' | 'paid' | 'expired' | 'failed' | 'unknown' | 'refunded';
  /** bigint in SQL; centavos stay far below 2^53. */
  amount: ColumnType<string, number, number>;
  currency: string;
  reference: string;
  description: string;
  simulated: boolean;
  environment: 'sandbox' | 'production';
  provider_id: string | null;
  subaccount_id: string | null;
  provider_reference: string | null;
  cost_center_id: string | null;
  callback_url: string | null;
  pix_copy_paste: string | null;
  pix_qr_code: string | null;
  expires_at: Timestamp | null;
  /** `YYYY-MM-DD` (a business date in America/Sao_Paulo), stored as text. */
  boleto_due_date: string | null;
  boleto_url: string | null;
  boleto_digitable_line: string | null;
  boleto_barcode: string | null;
  boleto_pix_copy_paste: string | null;
  boleto_pix_expires_at: Timestamp | null;
  failure_code: string | null;
  provider_error_code: string | null;
  provider_error_message: string | null;
  provider_http_status: number | null;
  paid_with: 'pix' | 'boleto' | 'credit_card' | null;
  /** Card (migration 0022): the masked card and installments, never the number, code or token. */
  credit_card: CardColumn | null;
  /** Card: Calebe's id of the stored card the charge used or saved (`card_…`). */
  card_id: string | null;
  paid_at: Timestamp | null;
  duplicate_payment_at: Timestamp | null;
  refund_status: string | null;
  /**
   * `<key id>.<document signature>` under the signing secret the projection knew (migration 0014; null
   * before it or without a secret): src/charge-page/stored-signature.ts.
   */
  document_signature: string | null;
  /** Automatic refund of a double payment's Pix (SPEC 2.2): due, attempted, succeeded, refused; else null. */
  duplicate_refund: 'due' | 'attempted' | 'succeeded' | 'refused' | null;
  /** A due-date change awaiting settlement (SPEC 4.8, migration 0016). */
  pending_due_date: string | null;
  /** Issue 22 item 4: `provider` | `payout` | `operator` (awaiting a person); null: none requested. */
  refund_route: string | null;
  refund_transfer_id: string | null;
  /** A Pix Automatic debit's authorization and scheduled due date (SPEC 2.2, migration 0027); else null. */
  pix_automatic_authorization_id: string | null;
  scheduled_due_date: string | null;
  /** The fee facts fixed at reservation (migration 0030, src/aggregates/fees.ts); null on older history. */
  fees: FeesColumn | null;
  /** The stream version after the last applied event: consumers order and deduplicate updates by it. */
  sequence: ColumnType<string, number, number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** SPEC 2.3: the creation snapshot of a charge (payer personal data; never in listings). */
export interface TransactionRequestsTable {
  transaction_id: string;
  tenant_id: string;
  livemode: boolean;
  source: 'captured' | 'legacy_partial';
  request: unknown;
  provider_request: unknown;
  missing_fields: string[];
  created_at: Timestamp;
}

/** One row per charge for summaries and analysts (docs/summary-tables.md); async projection `summary`. */
/** Per-day rollup of `summary_transactions` (migration 0011), kept by triggers on it. bigint columns read back as strings. */
export interface SummaryDailyTable {
  tenant_id: string;
  livemode: boolean;
  created_day: ColumnType<Date | string, string, string>;
  status: SummaryTransactionsTable['status'];
  created_count: ColumnType<string, number | string, number | string>;
  created_amount: ColumnType<string, number | string, number | string>;
  paid_count: ColumnType<string, number | string, number | string>;
  paid_amount: ColumnType<string, number | string, number | string>;
}

export interface SummaryTransactionsTable {
  transaction_id: string;
  tenant_id: string;
  livemode: boolean;
  simulated: boolean;
  method: 'pix' | 'boleto' | 'credit_card';
  /** Centavos. bigint: read back as a string. */
  amount: ColumnType<string, number | string, number | string>;
  status: 'processing' | 'pending' | 'paid' | 'expired' | 'failed' | 'unknown' | 'refunded';
  /** The reservation instant (`reserved_at`), UTC. */
  created_at: Timestamp;
  /** `created_at` as a `date` in America/Sao_Paulo; drivers may parse it, so reads cast it (`::text`). */
  created_day: ColumnType<Date | string, string, string>;
  paid_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
  paid_day: ColumnType<Date | string | null, string | null, string | null>;
  updated_at: Timestamp;
  sequence: ColumnType<string, number | string, number | string>;
}

/** A webhook endpoint (SPEC 6; src/projections/webhook-endpoints.ts); secrets only sealed, never returned. */
export interface WebhookEndpointsTable {
  id: string;
  tenant_id: string;
  url: string;
  mode: 'live' | 'test';
  enabled: boolean;
  disabled_reason: 'gone' | 'panel' | null;
  /** AES-256-GCM, the endpoint id as associated data; null once deleted. */
  secret_sealed: string | null;
  /** The rotated-out secret, valid until previous_expires_at. */
  previous_secret_sealed: string | null;
  previous_expires_at: Timestamp | null;
  /** The stream version of the last applied event. */
  sequence: ColumnType<string, number, number>;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

/** The webhook outbox's fold of a charge (migrations/0010_webhook_outbox.ts). */
export interface WebhookChargeStatesTable {
  transaction_id: string;
  tenant_id: string;
  livemode: boolean;
  callback_url: string | null;
  status: string;
  sequence: ColumnType<string, number, number>;
}

/** One `transaction.created` / `transaction.updated` message (SPEC 6); `body` frozen at the first attempt. */
export interface WebhookMessagesTable {
  id: string;
  event_id: string;
  type: 'transaction.created' | 'transaction.updated';
  tenant_id: string;
  livemode: boolean;
  transaction_id: string;
  sequence: ColumnType<string, number, number>;
  status: string;
  previous_status: string | null;
  occurred_at: Timestamp;
  /** The `transactions` row at `sequence`, JSON (inline projection); null when it was not at hand. */
  snapshot: ColumnType<unknown, unknown, unknown> | null;
  body: string | null;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

/** One message to one destination: a panel endpoint or the charge's callback_url. */
export interface WebhookDeliveriesTable {
  id: string;
  message_id: string;
  tenant_id: string;
  transaction_id: string;
  destination: 'endpoint' | 'callback';
  endpoint_id: string | null;
  callback_url: string | null;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: Timestamp;
  locked_until: Timestamp | null;
  last_attempt_at: Timestamp | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookAttemptsTable {
  id: Generated<string>;
  delivery_id: string;
  attempt: number;
  started_at: Timestamp;
  duration_ms: number;
  outcome: 'delivered' | 'failed' | 'gone' | 'refused';
  status_code: number | null;
  error: string | null;
}

/** The reconciler's per-charge backoff after failed attempts (migration 0017, src/commands/transactions/shared/reconcile-backoff.ts). */
export interface ReconcileBackoffTable {
  job: 'provider_read' | 'pending_change';
  transaction_id: string;
  attempts: number;
  next_attempt_at: Timestamp;
}

/** Erasable personal data, sealed per row (migration 0018, src/crypto/vault.ts); `wrapped_key` null once shredded. */
export interface PersonalDataVaultTable {
  id: string;
  tenant_id: string;
  livemode: boolean;
  purpose: string;
  subject_id: string;
  wrapped_key: string | null;
  ciphertext: string;
  hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  shredded_at: Timestamp | null;
  shred_reason: string | null;
  shredded_by: string | null;
}

/** The boleto PDF rendered once per document version (migration 0020, src/boleto-pdf/cache.ts). */
export interface BoletoPdfCacheTable {
  transaction_id: string;
  /** sha256 hex of what the PDF prints: the ETag. */
  version: string;
  pdf: Buffer;
  rendered_at: Generated<Timestamp>;
}

export interface Database {
  streams: StreamsTable;
  events: EventsTable;
  projection_checkpoints: ProjectionCheckpointsTable;
  stream_catalog: StreamCatalogTable;
  tenant_types: TenantTypesTable;
  tenants: TenantsTable;
  users: UsersTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  audit_log: AuditLogTable;
  providers: ProvidersTable;
  routing_rules: RoutingRulesTable;
  fee_versions: FeeVersionsTable;
  transactions: TransactionsTable;
  pix_automatic_debit_polls: PixAutomaticDebitPollsTable;
  transaction_requests: TransactionRequestsTable;
  cost_centers: CostCentersTable;
  notifications: NotificationsTable;
  notification_reads: NotificationReadsTable;
  subaccounts: SubaccountsTable;
  subaccount_reconcile: SubaccountReconcileTable;
  summary_transactions: SummaryTransactionsTable;
  summary_daily: SummaryDailyTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_charge_states: WebhookChargeStatesTable;
  webhook_messages: WebhookMessagesTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  reconcile_backoff: ReconcileBackoffTable;
  personal_data_vault: PersonalDataVaultTable;
  boleto_pdf_cache: BoletoPdfCacheTable;
}

/** The Pix Automatic debit poller's schedule (SPEC 4.11, 8; migration 0027). */
export interface PixAutomaticDebitPollsTable {
  transaction_id: string;
  authorization_id: string;
  tenant_id: string;
  livemode: boolean;
  /** `YYYY-MM-DD`, the debit's scheduled due date. */
  due_date: string;
  /** When the debit is asked about next; null once final or after its 30 days of polling. */
  next_poll_at: Timestamp | null;
}
