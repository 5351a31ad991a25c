import type { Logger } from '../logger.ts';

/**
 * A background loop shared by the workers: run a tick, then wait `intervalMs` unless the tick says more work
 * is waiting or someone calls `wake()`. A failed tick is logged and retried after the pause; `stop()`
 * returns once the current tick has finished.
 */
export class PollingLoop {
  private running = false;
  private loopDone: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;

  constructor(
    private readonly name: string,
    /** Runs one tick; resolves true when more work is already waiting (no pause before the next). */
    private readonly tick: () => Promise<boolean>,
    private readonly intervalMs: number,
    private readonly logger?: Pick<Logger, 'error'>,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loopDone;
    this.loopDone = undefined;
  }

  /** Ends the current pause at once (or skips the next one when called during a tick). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let more = false;
      this.woken = false;
      try {
        more = await this.tick();
      } catch (err) {
        this.logger?.error({ err }, `${this.name} tick failed`);
      }
      if (this.running && !more && !this.woken) await this.pause();
    }
  }

  private pause(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.intervalMs);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wakeUp = undefined;
        resolve();
      }
      this.wakeUp = done;
    });
  }
}
