/**
 * The scheduler before and after a change, in the same run (issue 26 item 8): `--rounds` rounds, each running
 * bench/scheduler-ab-child.ts once with the gateway code of `base` (a scratch worktree of the older commit)
 * and once with this tree's, the order alternating (ABBA) so drift in the machine's load falls on both sides.
 * Each child: a fresh database, the `POST /v1/boleto` reference (2,000 requests, 16 at a time), then `count`
 * test-mode boleto subscriptions due today drained by `runDueSubscriptions` (batch 500, concurrency 8), every
 * charge counted once. Node CPU is the child's; PostgreSQL CPU its database's backends' (/proc). Medians.
 *
 *   node --import tsx bench/scheduler-ab.ts <base-root> [count=5000] [rounds=3]
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, printTable } from './support.ts';

const [baseArg, countArg, roundsArg] = process.argv.slice(2);
if (!baseArg) throw new Error('usage: scheduler-ab.ts <base-root> [count] [rounds]');
const here = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sides = { base: resolve(baseArg), new: here };
const count = Number(countArg ?? 5000);
const rounds = Number(roundsArg ?? 3);

interface Side {
  ref: { n: number; seconds: number; nodeMs: number; pgMs: number };
  cycles: { n: number; seconds: number; nodeMs: number; pgMs: number; commits: number };
}
const results: Record<'base' | 'new', Side[]> = { base: [], new: [] };
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
console.log(`load average at start: ${load()}`);
for (let r = 0; r < rounds; r++) {
  const order: ('base' | 'new')[] = r % 2 === 0 ? ['base', 'new'] : ['new', 'base'];
  for (const side of order) {
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', `${here}/bench/scheduler-ab-child.ts`, sides[side], String(count)],
      { cwd: here, encoding: 'utf8', maxBuffer: 1 << 24 },
    );
    const line = out.trim().split('\n').at(-1) as string;
    const s = JSON.parse(line) as Side;
    results[side].push(s);
    console.log(
      `round ${r + 1} ${side}: ${fmt(s.cycles.n / s.cycles.seconds, 0)} cycles/s, node ${fmt(s.cycles.nodeMs / s.cycles.n, 2)} ms/cycle, pg ${fmt(s.cycles.pgMs / s.cycles.n, 2)} ms/cycle; boleto node ${fmt(s.ref.nodeMs / s.ref.n, 2)} ms/req (load ${load()})`,
    );
  }
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};
const row = (side: 'base' | 'new') => {
  const rs = results[side];
  const refNode = median(rs.map((s) => s.ref.nodeMs / s.ref.n));
  const node = median(rs.map((s) => s.cycles.nodeMs / s.cycles.n));
  return {
    rate: median(rs.map((s) => s.cycles.n / s.cycles.seconds)),
    node,
    pg: median(rs.map((s) => s.cycles.pgMs / s.cycles.n)),
    commits: median(rs.map((s) => s.cycles.commits / s.cycles.n)),
    refNode,
    refPg: median(rs.map((s) => s.ref.pgMs / s.ref.n)),
    ratio: median(rs.map((s) => s.cycles.nodeMs / s.cycles.n / (s.ref.nodeMs / s.ref.n))),
  };
};
const b = row('base');
const n = row('new');
printTable(
  [
    'tree',
    'cycles/s',
    'Node CPU ms/cycle',
    'PG CPU ms/cycle',
    'PG commits/cycle',
    'boleto Node ms/req',
    'boleto PG ms/req',
    'cycle/boleto Node CPU',
  ],
  [
    ['base', b],
    ['new', n],
  ].map(([name, x]) => {
    const v = x as ReturnType<typeof row>;
    return [
      name as string,
      fmt(v.rate, 0),
      fmt(v.node, 2),
      fmt(v.pg, 2),
      fmt(v.commits, 2),
      fmt(v.refNode, 2),
      fmt(v.refPg, 2),
      fmt(v.ratio, 2),
    ];
  }),
);
// Each round's new/base ratio (the two sides of a round ran back to back, under about the same load).
const paired = (f: (s: Side) => number) =>
  median(results.new.map((s, i) => f(s) / f(results.base[i] as Side)));
console.log(
  `paired new/base, median of the rounds' ratios: cycles/s ${fmt(
    paired((s) => s.cycles.n / s.cycles.seconds),
    2,
  )}, Node CPU/cycle ${fmt(
    paired((s) => s.cycles.nodeMs / s.cycles.n),
    2,
  )}, PG CPU/cycle ${fmt(
    paired((s) => s.cycles.pgMs / s.cycles.n),
    2,
  )}`,
);
console.log(
  `new/base: cycles/s ${fmt(n.rate / b.rate, 2)}, Node CPU ${fmt(n.node / b.node, 2)}, PG CPU ${fmt(n.pg / b.pg, 2)} (medians of ${rounds}, ${fmt(count)} cycles each; load average at end: ${load()})`,
);
process.exit(0);
