/** Tags by SPEC section, with the path prefixes they group (first match wins). */
export const TAGS = [
  {
    name: 'Charges',
    description: 'Pix and boleto creation.',
    prefixes: ['/v1/pix', '/v1/boleto', '/admin/boleto'],
  },
  {
    name: 'Transactions',
    description:
      'Reading, refreshing, simulating, refunding and re-dating charges, and the refunds a person completes.',
    prefixes: ['/v1/transactions', '/admin/transactions', '/admin/refunds'],
  },
  {
    name: 'Cost centers',
    description: "Cost centers of the key's tenant.",
    prefixes: ['/v1/cost-centers'],
  },
  {
    name: 'Payer pages',
    description: 'The charge page and boleto PDF links; the signed URL is the access.',
    prefixes: ['/cobranca'],
  },
  {
    name: 'Panel: sessions',
    description: 'Panel login and logout.',
    prefixes: ['/admin/sessions'],
  },
  {
    name: 'Panel: tenants',
    description: 'Tenant types, tenants and their suspension.',
    prefixes: ['/admin/tenant-types', '/admin/tenants'],
  },
  { name: 'Panel: users', description: 'Panel users and their roles.', prefixes: ['/admin/users'] },
  {
    name: 'Panel: keys',
    description: 'API keys, their scopes and access profiles.',
    prefixes: ['/admin/api-keys'],
  },
  {
    name: 'Panel: providers',
    description: 'Payment providers, routing rules and the production payments control.',
    prefixes: ['/admin/providers', '/admin/rules', '/admin/settings'],
  },
  {
    name: 'Panel: reports',
    description: 'Audit log and summary.',
    prefixes: ['/admin/audit', '/admin/summary'],
  },
  {
    name: 'Webhooks',
    description: 'Endpoints, deliveries and signing secrets; the events themselves are under `webhooks`.',
    prefixes: ['/admin/webhook-'],
  },
  {
    name: 'Infrastructure',
    description: 'Health and readiness (metrics have a port of their own, METRICS_PORT).',
    prefixes: ['/health', '/ready'],
  },
] as const;
