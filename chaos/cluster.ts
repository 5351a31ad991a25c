/**
 * Several gateway processes on one database (issue 14 "Two processes, one database", chaos F7): each one a
 * `node bin/calebe.js serve --role api|worker` child, and a round-robin client standing in for the load
 * balancer in front of the API processes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { type Answer, call, onCleanup, ROOT, sleep } from './support.ts';

export type ProcessRole = 'api' | 'worker';

/** What `calebe serve --role worker` prints once its loops run (src/log-format.ts startBanner). */
const WORKER_READY = 'Calebe worker is running';

/** One `calebe serve --role <role>` child; its output goes to `<dir>/<name>.log` across restarts. */
export class RoleProcess {
  child: ChildProcess | undefined;
  starts = 0;
  /** Exits not caused by this class (a crash): code/signal and time. */
  readonly unexpectedExits: string[] = [];
  /** OS process ids of every start (the lease's holder name carries it). */
  readonly pids: number[] = [];
  readonly logFile: string;
  /** Started and ready (API: answering `/health`; worker: loops running), not killed since. */
  ready = false;
  private expectingExit = false;

  constructor(
    readonly name: string,
    readonly role: ProcessRole,
    readonly env: Record<string, string>,
    dir: string,
  ) {
    this.logFile = join(dir, `${name}.log`);
    onCleanup(() => this.kill('SIGKILL'));
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.env.PORT}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /**
   * Spawns the process and waits until it is ready: `/health` answers 200 (api), or the banner is printed
   * (worker: no HTTP). Returns the milliseconds it took.
   */
  async start(timeoutMs = 90_000): Promise<number> {
    const started = performance.now();
    const out = createWriteStream(this.logFile, { flags: 'a' });
    const child = spawn(process.execPath, ['bin/calebe.js', 'serve', '--role', this.role], {
      cwd: ROOT,
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      if (printed.length < 4096) printed += chunk.toString('utf8');
    });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
    this.child = child;
    if (child.pid !== undefined) this.pids.push(child.pid);
    this.starts++;
    this.expectingExit = false;
    this.ready = false;
    child.once('exit', (code, signal) => {
      this.ready = false;
      if (!this.expectingExit) {
        this.unexpectedExits.push(`${new Date().toISOString()} code=${code} signal=${signal}`);
      }
      if (this.child === child) this.child = undefined;
    });
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.child !== child) throw new Error(`${this.name} exited during start; see ${this.logFile}`);
      if (this.role === 'worker') {
        if (printed.includes(WORKER_READY)) {
          this.ready = true;
          return performance.now() - started;
        }
      } else {
        try {
          const res = await request(`${this.baseUrl}/health`, { headersTimeout: 1_000, bodyTimeout: 1_000 });
          await res.body.dump();
          if (res.statusCode === 200) {
            this.ready = true;
            return performance.now() - started;
          }
        } catch {
          // not listening yet
        }
      }
      await sleep(50);
    }
    throw new Error(`${this.name} was not ready within ${timeoutMs} ms; see ${this.logFile}`);
  }

  /** Sends `signal` and waits for the exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL', timeoutMs = 30_000): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.expectingExit = true;
    this.ready = false;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    await exited;
    clearTimeout(timer);
  }
}

/** An answer and the API process that gave it. */
export interface RoutedAnswer extends Answer {
  backend: string;
}

/**
 * The load balancer in front of the API processes, as a client: round robin over the backends; a backend
 * that refuses the connection (down, restarting) is skipped for the next one, which is what a balancer's
 * connect-failure retry does (nothing was sent, so any request may go elsewhere). Any other network failure
 * (reset mid-request) comes back as status 0: only the caller knows whether repeating is safe.
 */
export class RoundRobin {
  private next = 0;

  constructor(readonly backends: readonly RoleProcess[]) {}

  async call(
    method: 'GET' | 'POST',
    path: string,
    opts: { headers?: Record<string, string>; json?: unknown } = {},
  ): Promise<RoutedAnswer> {
    const first = this.next++ % this.backends.length;
    let last: RoutedAnswer | undefined;
    for (let i = 0; i < this.backends.length; i++) {
      const backend = this.backends[(first + i) % this.backends.length] as RoleProcess;
      const answer = await call(backend.baseUrl, method, path, opts);
      last = { ...answer, backend: backend.name };
      if (!(answer.status === 0 && answer.code === 'ECONNREFUSED')) return last;
    }
    return last as RoutedAnswer;
  }
}
