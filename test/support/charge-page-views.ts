import type { ChargePageView } from '../../src/charge-page/render.ts';

export const CHARGE_ID = 'txn_01JF0000000000000000000000';
/** A realistic BR Code (EMV) Pix copy-and-paste text. */
export const PIX =
  '00020101021226880014br.gov.bcb.pix2566qrcodes.example.com.br/v2/cobv/9d36b84fc70b478fb95c12729b90ca255204000053039865406012.505802BR5913LOJA EXEMPLO6009SAO PAULO62070503***6304ABCD';
export const SIM_MARKER = 'SIMULATED-PIX-txn_01JF-NOT-PAYABLE';

/** A real, pending production Pix of R$ 12,50; tests override what they check. */
export function chargeView(over: Partial<ChargePageView> = {}): ChargePageView {
  return {
    id: CHARGE_ID,
    method: 'pix',
    status: 'pending',
    amount: 1250,
    currency: 'BRL',
    reference: 'pedido-42',
    description: 'Camiseta azul',
    simulated: false,
    environment: 'production',
    livemode: true,
    pix_copy_paste: PIX,
    expires_at: '2026-11-21T13:00:00Z',
    boleto_due_date: null,
    boleto_url: null,
    boleto_digitable_line: null,
    boleto_pix_copy_paste: null,
    boleto_pix_expires_at: null,
    paid_with: null,
    ...over,
  };
}

/** The same charge issued by the simulator: a test marker, never payable. */
export const simulatedPixView = (over: Partial<ChargePageView> = {}) =>
  chargeView({
    simulated: true,
    environment: 'sandbox',
    livemode: false,
    pix_copy_paste: SIM_MARKER,
    ...over,
  });
