import type { OutcomeReason, Refused, Uncertain } from '../port.ts';
import { diagnosticsFor } from './diagnostics.ts';
import { type Detail, type Interpreted, idOf, isRecord } from './wire-values.ts';

/** The adapter's refused and uncertain outcomes, with diagnostics.ts's sanitized diagnostics (SPEC 2.2). */

export function refused(
  reason: OutcomeReason,
  code: unknown,
  httpStatus: number | null,
  providerReference: string | null = null,
): Refused {
  return {
    kind: 'refused',
    reason,
    providerReference,
    diagnostics: diagnosticsFor(reason, code, httpStatus),
  };
}

export function uncertain(
  reason: OutcomeReason,
  httpStatus: number | null,
  extra: { code?: unknown; providerReference?: string | null; providerStatus?: number | null } = {},
): Uncertain {
  return {
    kind: 'uncertain',
    reason,
    providerReference: extra.providerReference ?? null,
    providerStatus: extra.providerStatus ?? null,
    diagnostics: diagnosticsFor(reason, extra.code, httpStatus),
  };
}

/** A charge answer's `ResponseDetail` and its `IdTransaction`, with the answer's HTTP status. */
export interface ChargeAnswer {
  readonly detail: Detail;
  readonly id: string;
  readonly http: number;
}

/**
 * The charge an answer names, or its outcome: refused or uncertain as interpreted, uncertain (`incomplete`)
 * without a detail or an id, uncertain (`mismatch`) when it names another id than `expectedId`.
 */
export function chargeAnswer(
  result: Interpreted,
  expectedId: string | null = null,
): ChargeAnswer | Refused | Uncertain {
  if (!('ok' in result)) return result;
  const http = result.httpStatus;
  if (!isRecord(result.detail)) return uncertain('incomplete', http);
  const id = idOf(result.detail.IdTransaction);
  if (!id) return uncertain('incomplete', http);
  if (expectedId !== null && id !== expectedId) return uncertain('mismatch', http, { providerReference: id });
  return { detail: result.detail, id, http };
}
