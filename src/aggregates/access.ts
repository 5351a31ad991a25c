/** SPEC 5.3: what an API key may do. */
export const SCOPES = [
  'pix:write',
  'boleto:write',
  'credit_card:write',
  'transactions:read',
  'cost_centers:write',
  'subtenants:write',
  'subtenants:read',
  'subtenants:keys:write',
] as const;
export type Scope = (typeof SCOPES)[number];

/** SPEC 2.7 and 5.7: panel roles. */
export const ROLES = ['super_admin', 'tenant_admin', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** SPEC 5.4: `developer` keys cannot refresh or simulate, change cost centers or touch subtenants. */
export type AccessProfile = 'standard' | 'developer';
