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
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface RoutingRulesTable {
  id: string;
  method: 'pix' | 'boleto';
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
}
