import { NO_DIAGNOSTICS, type PixAutomaticCapability, type Refused } from './port.ts';

/**
 * Pix Automatic for test keys and simulator records (issue 27; SPEC 1 simulator row, 3.2, 4.11): nothing is
 * sent anywhere and no money moves. `buildAuthorizationRequest` is null (SPEC 2.3 "null for the simulator").
 *
 * - An authorization is issued at once as `sim_<authorizationId>`; its `copyPaste` is
 *   `SIMULADOR-TESTE-NAO-PAGAVEL-<authorizationId>` (the simulator's Pix marker, simulator.ts
 *   `SIMULATOR_PIX_MARKER`): not an EMV payload, so no bank app accepts it.
 * - `queryAuthorization` is refused `not_supported`: for a simulated authorization the gateway's own record
 *   is the truth, and only its simulate endpoint (`approved`, `cancelled`, `expired`) and the 24-hour expiry
 *   move it (SPEC 3.2, 4.11). A revoke is always confirmed: the gateway asks only when its state allows it.
 * - A debit is scheduled as `sim_<transactionId>`, `pending` until its due date and `paid` (on its due date)
 *   from the start of that day in America/Sao_Paulo (UTC-3, no DST since 2019) at the `now` given (the test
 *   clock's in test mode): a simulated payer always has the funds; the gateway's simulate endpoint can still
 *   force another result. `findDebits` is refused `not_supported` (the deterministic id makes it needless).
 *
 * It keeps no memory: every answer follows from its arguments, so any process answers alike.
 */

/** The simulator's Pix marker (simulator.ts `SIMULATOR_PIX_MARKER`), repeated to keep this file apart. */
const MARKER = 'SIMULADOR-TESTE-NAO-PAGAVEL';

const NOT_SUPPORTED: Refused = {
  kind: 'refused',
  reason: 'not_supported',
  providerReference: null,
  diagnostics: NO_DIAGNOSTICS,
};

/** `YYYY-MM-DD` of `now` in America/Sao_Paulo. */
function saoPauloDay(now: Date): string {
  return new Date(now.getTime() - 3 * 3_600_000).toISOString().slice(0, 10);
}

export function simulatedPixAutomatic(): PixAutomaticCapability {
  return {
    buildAuthorizationRequest: () => null,
    async createAuthorization(authorization) {
      return {
        kind: 'issued',
        providerReference: `sim_${authorization.authorizationId}`,
        copyPaste: `${MARKER}-${authorization.authorizationId}`,
      };
    },
    async queryAuthorization() {
      return NOT_SUPPORTED;
    },
    async revokeAuthorization() {
      return { kind: 'issued', cancelled: true };
    },
    async scheduleDebit(debit) {
      return { kind: 'issued', providerReference: `sim_${debit.transactionId}`, status: 'pending' };
    },
    async queryDebit(target, _ctx, now) {
      const paid = saoPauloDay(now) >= target.dueDate;
      return {
        kind: 'issued',
        debit: {
          providerReference: target.providerReference,
          reference: target.transactionId,
          amount: target.amount,
          dueDate: target.dueDate,
          status: paid ? 'paid' : 'pending',
          providerStatus: paid ? 'CONCLUIDA' : 'CRIADA',
          cancelled: false,
          paidOn: paid ? target.dueDate : null,
        },
      };
    },
    async findDebits() {
      return NOT_SUPPORTED;
    },
  };
}
