import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * PGlite is one process per data directory: a second process opening it works on its own copy of the pages
 * and the two diverge (keys one prints are unknown to the other). Every process that opens the embedded
 * database holds `<CALEBE_DATA_DIR>/calebe.lock` (docs/decisions.md "Hardening (issue 12)").
 */
export const LOCK_FILE = 'calebe.lock';

export interface LockHolder {
  pid: number;
  command: string;
  started_at: string;
}

/** The embedded data directory is held by another live process. The CLI prints the message and exits 1. */
export class DataDirLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly holder: LockHolder,
  ) {
    super(
      `the embedded database in ${dir} is in use by \`${holder.command}\` (pid ${holder.pid}, since ${holder.started_at}); stop it first, or set DATABASE_URL`,
    );
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(path: string): LockHolder | undefined {
  try {
    const h = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockHolder>;
    if (typeof h.pid === 'number' && Number.isInteger(h.pid) && h.pid > 0) {
      return { pid: h.pid, command: String(h.command ?? 'calebe'), started_at: String(h.started_at ?? '?') };
    }
  } catch {
    // Missing or half-written: treated as stale below.
  }
  return undefined;
}

/** What the lock says the process is: `calebe serve`, `calebe bootstrap`, or the script that opened it. */
export function currentCommand(): string {
  const [script = 'node', ...args] = process.argv.slice(1);
  return /calebe(\.js)?$/.test(script) ? ['calebe', ...args].join(' ') : [script, ...args].join(' ');
}

/**
 * Takes the lock of `dir` for this process, or throws DataDirLockedError naming the live holder. Creation is
 * atomic (a hard link of a fully written file: either it exists with its content or not at all). A lock
 * whose pid is dead is taken over; the takeover renames the stale file away first, so of two processes
 * racing for it only the one whose rename moved the stale content proceeds. Returns the release function.
 */
export function lockDataDir(dir: string, command = currentCommand()): () => void {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  const mine: LockHolder = { pid: process.pid, command, started_at: new Date().toISOString() };
  const text = JSON.stringify(mine);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(temp, path);
        return release(path, text);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = readHolder(path);
      if (holder && alive(holder.pid)) throw new DataDirLockedError(dir, holder);
      // Stale: move it aside, and proceed only if what moved is the stale lock read above.
      const aside = `${path}.${process.pid}.stale`;
      try {
        renameSync(path, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      const moved = readHolder(aside);
      if (moved && alive(moved.pid)) {
        // Another process took it over between the read and the rename: put its lock back.
        try {
          linkSync(aside, path);
        } catch {
          // A third one holds it now; it will be reported on the next attempt.
        }
        unlinkSync(aside);
        continue;
      }
      unlinkSync(aside);
    }
    const holder = readHolder(path);
    throw holder
      ? new DataDirLockedError(dir, holder)
      : new Error(`could not lock ${path}; remove it if no calebe process uses ${dir}`);
  } finally {
    unlinkSync(temp);
  }
}

/** Removes the lock if it is still ours; also on exit, so `process.exit` without a close leaves none behind. */
function release(path: string, text: string): () => void {
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    process.off('exit', run);
    try {
      if (readFileSync(path, 'utf8') === text) unlinkSync(path);
    } catch {
      // Already gone.
    }
  };
  process.on('exit', run);
  return run;
}
