/**
 * Where clock-driven work reads the time (DESIGN.md "Feature modules"): the system clock for live records;
 * later a test clock's frozen time for the test-mode objects attached to one. The job runner waits its
 * intervals in real time whatever the clock says, since a frozen clock never moves by itself; a test clock
 * that is advanced wakes the runner instead (`JobRunner.wake()`).
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
