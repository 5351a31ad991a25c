/**
 * (w): an uncertain answer is recorded for the open reservation (for the reconciler, `staleAfterSeconds`,
 * only one that outlived any call), or, with none open, when the change is not pending already.
 */
export function recordsUncertainty(
  inFlight: boolean,
  requestedAt: string | null,
  alreadyPending: boolean,
  staleAfterSeconds: number | undefined,
  now: Date,
): boolean {
  if (staleAfterSeconds !== undefined) {
    const age = requestedAt === null ? 0 : now.getTime() - Date.parse(requestedAt);
    return inFlight && age >= staleAfterSeconds * 1000;
  }
  return inFlight || !alreadyPending;
}
