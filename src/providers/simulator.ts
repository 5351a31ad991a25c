import type { TransactionArtifacts } from '../aggregates/transaction.ts';
import type {
  PaymentProvider,
  ProviderChargeOutcome,
  ProviderChargeRequest,
  ProviderDueDateRequest,
} from './provider.ts';

/**
 * The simulator adapter (SPEC 1 simulator row): a local record only, `simulated: true`, environment
 * `sandbox`. It also serves test-mode keys (SPEC 5.2), which never reach a provider. No I/O, no money.
 *
 * - Pix: `pix_copy_paste` and `pix_qr_code` are {@link SIMULATOR_PIX_MARKER} plus the transaction id: not an
 *   EMV payload (no `000201` header, no CRC), so no bank app accepts it. `expires_at` = now + expires_in.
 * - Boleto: `boleto_url`, `boleto_digitable_line`, `boleto_barcode` and the boleto Pix are null. With
 *   `cancel_after_due` the charge expires at the start of the day after the due date plus
 *   `days_before_cancel` in America/Sao_Paulo (UTC-3, no DST since 2019); otherwise `expires_at` is null.
 */
export const SIMULATOR_PIX_MARKER = 'SIMULADOR-TESTE-NAO-PAGAVEL';

const SAO_PAULO_OFFSET = '-03:00';

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Start of (due date + 1 + days_before_cancel) in Sao Paulo, as UTC ISO 8601. */
export function boletoCancelAt(dueDate: string, daysBeforeCancel: number): string {
  return new Date(`${addDays(dueDate, 1 + daysBeforeCancel)}T00:00:00${SAO_PAULO_OFFSET}`).toISOString();
}

export function simulatedArtifacts(request: ProviderChargeRequest): TransactionArtifacts {
  const base: TransactionArtifacts = {
    provider_reference: `sim_${request.transactionId}`,
    pix_copy_paste: null,
    pix_qr_code: null,
    expires_at: null,
    boleto_url: null,
    boleto_digitable_line: null,
    boleto_barcode: null,
    boleto_pix_copy_paste: null,
    boleto_pix_expires_at: null,
  };
  if (request.method === 'pix') {
    const marker = `${SIMULATOR_PIX_MARKER}:${request.transactionId}`;
    const seconds = request.expiresIn ?? 3600;
    return {
      ...base,
      pix_copy_paste: marker,
      pix_qr_code: marker,
      expires_at: new Date(request.now.getTime() + seconds * 1000).toISOString(),
    };
  }
  const options = request.boleto;
  if (options?.cancel_after_due) {
    return { ...base, expires_at: boletoCancelAt(options.due_date, options.days_before_cancel) };
  }
  return base;
}

export const simulatorProvider: PaymentProvider = {
  kind: 'simulator',
  async createCharge(request: ProviderChargeRequest): Promise<ProviderChargeOutcome> {
    return { kind: 'issued', artifacts: simulatedArtifacts(request) };
  },
  // No money moved, so there is nothing to return: the refund is confirmed at once.
  async refundCharge() {
    return { refundStatus: 'succeeded' };
  },
  async changeDueDate(request: ProviderDueDateRequest) {
    const o = request.boleto;
    return { expiresAt: o.cancel_after_due ? boletoCancelAt(request.dueDate, o.days_before_cancel) : null };
  },
};
