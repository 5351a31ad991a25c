/**
 * CPU time of the PostgreSQL backends serving one bench database (issue 14: "gateway process plus
 * PostgreSQL backends, measured from /proc"). The server runs on this machine, so each backend's
 * utime + stime is readable from /proc/<pid>/stat; `pg_stat_activity` names the pids of the database's
 * client backends. A meter samples them every 200 ms (a backend that exits mid-run keeps its last sample;
 * one that starts mid-run counts from zero, its connection set-up included) and reads the database's
 * `xact_commit` counter at both ends.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { ADMIN_URL } from './support.ts';

const CLK_TCK = 100;

/** utime + stime of a process in seconds, or NaN when it is gone. */
export function procCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces): utime is field 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return Number.NaN;
  }
}

export interface BackendCpu {
  /** CPU seconds of the database's client backends during the measurement. */
  seconds: number;
  /** Transactions committed in the database (read-only autocommit statements included). */
  commits: number;
  /** Distinct backends seen. */
  backends: number;
}

export interface BackendMeter {
  stop(): Promise<BackendCpu>;
}

/** Starts metering the client backends of `database` (excluding the meter's own connection). */
export async function meterBackends(database: string): Promise<BackendMeter> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  const started = Date.now();
  const base = new Map<number, number>();
  const last = new Map<number, number>();
  const commits = async () => {
    const { rows } = await client.query<{ n: string }>(
      'select xact_commit::text as n from pg_stat_database where datname = $1',
      [database],
    );
    return Number(rows[0]?.n ?? 0);
  };
  const sample = async (first: boolean) => {
    const { rows } = await client.query<{ pid: number; started_ms: string }>(
      `select pid, (extract(epoch from backend_start) * 1000)::bigint::text as started_ms
       from pg_stat_activity where datname = $1 and backend_type = 'client backend'`,
      [database],
    );
    for (const r of rows) {
      const cpu = procCpuSeconds(r.pid);
      if (Number.isNaN(cpu)) continue;
      if (!base.has(r.pid)) base.set(r.pid, first || Number(r.started_ms) < started ? cpu : 0);
      last.set(r.pid, cpu);
    }
  };
  const commits0 = await commits();
  await sample(true);
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (!stopped) await sample(false);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await sample(false);
      const commits1 = await commits();
      await client.end();
      let seconds = 0;
      for (const [pid, b] of base) seconds += (last.get(pid) ?? b) - b;
      return { seconds, commits: commits1 - commits0, backends: base.size };
    },
  };
}
