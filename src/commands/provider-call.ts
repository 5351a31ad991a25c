import { NO_DIAGNOSTICS, type Outcome, type Refused, type Uncertain } from '../providers/port.ts';

/**
 * One call to a provider. The port's adapters never throw for an answer (DESIGN.md "Providers"), so anything
 * a call throws is an unanswered call: `uncertain` (the provider may have acted), never a refusal, and a
 * money-moving call recorded so is never sent again (SPEC 3.1).
 */
export async function callProvider<T>(
  call: () => Promise<Outcome<T>>,
  /** The outcome of a throw: by default with no diagnostics; the charges' changes name the connection. */
  unansweredOutcome: () => Uncertain = unanswered,
): Promise<Outcome<T>> {
  try {
    return await call();
  } catch {
    return unansweredOutcome();
  }
}

/** The answer of a call never made: the record can no longer send (its credentials are gone). */
export function unsentRefusal(): Refused {
  return {
    kind: 'refused',
    reason: 'credentials_missing',
    providerReference: null,
    diagnostics: NO_DIAGNOSTICS,
  };
}

function unanswered(): Uncertain {
  return {
    kind: 'uncertain',
    reason: 'connection',
    providerReference: null,
    providerStatus: null,
    diagnostics: NO_DIAGNOSTICS,
  };
}
