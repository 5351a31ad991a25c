/**
 * The tags of /openapi.json by SPEC section, in the document's order. A feature's manifest names the tag of
 * its operations (src/commands/feature.ts), an operation may name its own (src/contract/operation.ts), and
 * a raw route sets it in its schema.
 */
export const TAGS = [
  { name: 'Charges', description: 'Pix, boleto and card charges.' },
  {
    name: 'Transactions',
    description:
      'Reading, refreshing, simulating, refunding and re-dating charges, and the refunds a person completes.',
  },
  {
    name: 'Checkouts',
    description: 'Hosted checkout links: the payer picks Pix or boleto on a page of the gateway.',
  },
  {
    name: 'Subscriptions',
    description:
      'Recurring charges by boleto, Pix link and card, their cycles, and test clocks for test mode.',
  },
  {
    name: 'Pix Automatic',
    description: "Pix Automatic authorizations: the payer's consent to recurring debits of a fixed amount.",
  },
  { name: 'Cost centers', description: "Cost centers of the key's tenant." },
  {
    name: 'Subtenants',
    description: "Child tenants of the key's tenant and their API keys (production keys register them).",
  },
  { name: 'Payer pages', description: 'The charge page and boleto PDF links; the signed URL is the access.' },
  { name: 'Panel: sessions', description: 'Panel login and logout.' },
  { name: 'Panel: tenants', description: 'Tenant types, tenants and their suspension.' },
  { name: 'Panel: users', description: 'Panel users and their roles.' },
  { name: 'Panel: keys', description: 'API keys, their scopes and access profiles.' },
  {
    name: 'Panel: providers',
    description: 'Payment providers, routing rules and the production payments control.',
  },
  {
    name: 'Panel: fees',
    description:
      "Versioned fee schedules per tenant and method; a charge's fees are fixed when it is issued.",
  },
  {
    name: 'Panel: subaccounts',
    description: 'Subaccounts of marketplace providers and the tenants they are linked to.',
  },
  { name: 'Panel: reports', description: 'Audit log, summary and internal notifications.' },
  {
    name: 'Webhooks',
    description: 'Endpoints, deliveries and signing secrets; the events themselves are under `webhooks`.',
  },
  {
    name: 'Infrastructure',
    description: 'Health and readiness (metrics have a port of their own, METRICS_PORT).',
  },
] as const;

/** The name of a tag of /openapi.json. */
export type TagName = (typeof TAGS)[number]['name'];
