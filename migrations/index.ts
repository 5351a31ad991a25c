import type { Migration } from 'kysely';
import * as m0001 from './0001_event_store.ts';
import * as m0002 from './0002_stream_catalog.ts';
import * as m0003 from './0003_identity.ts';
import * as m0004 from './0004_providers_rules.ts';
import * as m0005 from './0005_settings_audit.ts';
import * as m0006 from './0006_transactions.ts';
import * as m0007 from './0007_cost_centers.ts';
import * as m0008 from './0008_summary.ts';
import * as m0009 from './0009_webhook_endpoints.ts';
import * as m0010 from './0010_webhook_outbox.ts';
import * as m0011 from './0011_summary_daily.ts';
import * as m0012 from './0012_audit_action_names.ts';
import * as m0013 from './0013_provider_hosts.ts';
import * as m0014 from './0014_document_signature.ts';
import * as m0015 from './0015_duplicate_refund.ts';
import * as m0016 from './0016_pending_due_date.ts';
import * as m0017 from './0017_reconcile_backoff.ts';
import * as m0018 from './0018_personal_data_vault.ts';
import * as m0019 from './0019_provider_refund_payout.ts';
import * as m0020 from './0020_boleto_pdf_cache.ts';
import * as m0021 from './0021_refund_route.ts';
import * as m0022 from './0022_credit_card.ts';
import * as m0023 from './0023_checkouts.ts';
import * as m0024 from './0024_subscriptions.ts';
import * as m0025 from './0025_test_clocks.ts';
import * as m0026 from './0026_pix_automatic_authorizations.ts';
import * as m0027 from './0027_pix_automatic_debits.ts';
import * as m0029 from './0029_notifications.ts';
import * as m0030 from './0030_fee_schedules.ts';
import * as m0031 from './0031_subaccounts.ts';
import * as m0032 from './0032_subaccount_reconcile.ts';

/** Every migration, in order. Kept as static imports so the same list works under tsx and a bundle. */
export const migrations: Record<string, Migration> = {
  '0001_event_store': m0001,
  '0002_stream_catalog': m0002,
  '0003_identity': m0003,
  '0004_providers_rules': m0004,
  '0005_settings_audit': m0005,
  '0006_transactions': m0006,
  '0007_cost_centers': m0007,
  '0008_summary': m0008,
  '0009_webhook_endpoints': m0009,
  '0010_webhook_outbox': m0010,
  '0011_summary_daily': m0011,
  '0012_audit_action_names': m0012,
  '0013_provider_hosts': m0013,
  '0014_document_signature': m0014,
  '0015_duplicate_refund': m0015,
  '0016_pending_due_date': m0016,
  '0017_reconcile_backoff': m0017,
  '0018_personal_data_vault': m0018,
  '0019_provider_refund_payout': m0019,
  '0020_boleto_pdf_cache': m0020,
  '0021_refund_route': m0021,
  '0022_credit_card': m0022,
  '0023_checkouts': m0023,
  '0024_subscriptions': m0024,
  '0025_test_clocks': m0025,
  '0026_pix_automatic_authorizations': m0026,
  '0027_pix_automatic_debits': m0027,
  '0029_notifications': m0029,
  '0030_fee_schedules': m0030,
  '0031_subaccounts': m0031,
  '0032_subaccount_reconcile': m0032,
};
