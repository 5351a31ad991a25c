/**
 * A counting TCP relay between a gateway process and PostgreSQL (issue 14 measurement): it forwards every
 * byte unchanged and reads the protocol messages on the way, so a short counting pass can say how many
 * round trips, statements and write commits a request costs. pg_stat_statements is not preloaded on the
 * shared server (and cannot be without a restart), and pg_stat_database counts read-only autocommit
 * statements as commits, so the wire is the one exact source.
 *
 * - round trip: one ReadyForQuery (`Z`) from the server (one per simple query, one per extended-protocol
 *   Sync: kysely/pg send one of either per statement);
 * - write commit: a ReadyForQuery back to idle (`I`) after at least one write since the last idle one (an
 *   autocommit write, or a BEGIN … COMMIT block that wrote). A write is an INSERT/UPDATE/DELETE/MERGE/COPY
 *   tag or the execution of a statement whose text writes: a data-modifying CTE (the event store's append)
 *   answers with a SELECT tag;
 * - statements: the text of every statement executed, a simple Query (`Q`) or a Bind (`B`) of a statement
 *   whose Parse this connection sent (kept per connection across `reset`, since a named statement is
 *   parsed once per connection), with how often each ran; and how many Parse messages were unnamed (parsed
 *   and planned every time) or named.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface WireCounts {
  roundTrips: number;
  writeCommits: number;
  /** Simple-protocol queries (parsed and planned by the server every time). */
  simpleQueries: number;
  /** Extended-protocol Parse messages: unnamed ones are parsed and planned every time. */
  unnamedParses: number;
  namedParses: number;
  /** Bind messages (executions through the extended protocol). */
  binds: number;
  /** Statement text (first 160 characters, whitespace folded) → times sent. */
  statements: Map<string, number>;
}

export function emptyCounts(): WireCounts {
  return {
    roundTrips: 0,
    writeCommits: 0,
    simpleQueries: 0,
    unnamedParses: 0,
    namedParses: 0,
    binds: 0,
    statements: new Map(),
  };
}

const WRITE_TAG = /^(INSERT|UPDATE|DELETE|MERGE|COPY)\b/;
/** A statement text that writes, data-modifying CTEs included (`for update` locks, it does not write). */
const WRITE_TEXT =
  /\b(insert\s+into|delete\s+from|merge\s+into)\b|(^|[\s(])update\s+(?!of\b)[\w."]+(\s+(as\s+)?\w+)?\s+set\b/i;

function cstring(buf: Buffer, at: number): [string, number] {
  const end = buf.indexOf(0, at);
  return [buf.toString('utf8', at, end), end + 1];
}

function foldText(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 160);
}

/** Splits a byte stream into protocol messages (type byte + int32 length), calling `on` for each. */
function messageReader(startup: boolean, on: (type: number, body: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  let first = startup;
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      if (first) {
        // The startup packet (and an SSLRequest) has no type byte.
        if (pending.length < 4) return;
        const len = pending.readInt32BE(0);
        if (pending.length < len) return;
        pending = pending.subarray(len);
        first = false;
        continue;
      }
      if (pending.length < 5) return;
      const len = pending.readInt32BE(1);
      if (pending.length < len + 1) return;
      on(pending[0] as number, pending.subarray(5, len + 1));
      pending = pending.subarray(len + 1);
    }
  };
}

export interface WireCounter {
  /** postgres:// URL of the relay, same database and user as `target`. */
  url: string;
  /** The counts so far (live object). */
  counts: WireCounts;
  reset(): void;
  close(): Promise<void>;
}

/** Starts a relay on a free loopback port in front of `targetUrl`'s server. */
export async function startWireCounter(targetUrl: string): Promise<WireCounter> {
  const target = new URL(targetUrl);
  const host = target.hostname;
  const port = Number(target.port || 5432);
  let counts = emptyCounts();
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(port, host);
    sockets.add(client);
    sockets.add(upstream);
    let wrote = false;
    /** This connection's parsed statements by name ('' = the unnamed one). */
    const parsed = new Map<string, string>();
    const executed = (text: string) => {
      counts.statements.set(text, (counts.statements.get(text) ?? 0) + 1);
      if (WRITE_TEXT.test(text)) wrote = true;
    };
    const fromClient = messageReader(true, (type, body) => {
      const c = String.fromCharCode(type);
      if (c === 'Q') {
        counts.simpleQueries++;
        executed(foldText(cstring(body, 0)[0]));
      } else if (c === 'P') {
        const [name, next] = cstring(body, 0);
        if (name === '') counts.unnamedParses++;
        else counts.namedParses++;
        parsed.set(name, foldText(cstring(body, next)[0]));
      } else if (c === 'B') {
        counts.binds++;
        const statement = cstring(body, cstring(body, 0)[1])[0];
        executed(parsed.get(statement) ?? `(statement ${statement} parsed before the relay saw it)`);
      }
    });
    const fromServer = messageReader(false, (type, body) => {
      const c = String.fromCharCode(type);
      if (c === 'C') {
        if (WRITE_TAG.test(cstring(body, 0)[0])) wrote = true;
      } else if (c === 'Z') {
        counts.roundTrips++;
        if (body[0] === 0x49 /* I */ && wrote) {
          counts.writeCommits++;
          wrote = false;
        }
        if (body[0] === 0x45 /* E: failed transaction */) wrote = false;
      }
    });
    client.on('data', (d: Buffer) => {
      fromClient(d);
      upstream.write(d);
    });
    upstream.on('data', (d: Buffer) => {
      fromServer(d);
      client.write(d);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(typeof address === 'object' && address ? address.port : 0);
  return {
    url: url.toString(),
    get counts() {
      return counts;
    },
    reset() {
      counts = emptyCounts();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
