import type { OutcomeReason, Refused, Uncertain } from '../port.ts';
import { diagnosticsFor } from './diagnostics.ts';

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
