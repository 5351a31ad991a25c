import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';

/**
 * Issue 23 item 1.4: a running `calebe serve` lends its embedded database (PGlite) to the CLI, so no command
 * needs the gateway stopped. It speaks the PostgreSQL wire protocol on a loopback port with a random password,
 * both written to `<CALEBE_DATA_DIR>/socket.json` (mode 0600, removed on stop). PGlite is one session:
 * a client holds the whole database from its first message until PostgreSQL answers "idle" (ReadyForQuery
 * 'I': no transaction, no half-sent extended query), and the gateway's own statements wait for that in the
 * same SessionLock, so the gateway's and the CLI's transactions never interleave (docs/decisions.md "One
 * start before the first charge").
 */
export const SOCKET_FILE = 'socket.json';

export interface SocketInfo {
  pid: number;
  host: string;
  port: number;
  password: string;
  /** The gateway's public address, for the hints a CLI command prints. */
  base_url: string;
}

/** A FIFO lock over PGlite's one session: the gateway's connection and each CLI connection take turns. */
export class SessionLock {
  #tail: Promise<void> = Promise.resolve();

  acquire(): Promise<() => void> {
    let open!: () => void;
    const next = new Promise<void>((resolve) => (open = resolve));
    const previous = this.#tail;
    this.#tail = previous.then(() => next);
    return previous.then(() => {
      let released = false;
      return () => {
        if (released) return;
        released = true;
        open();
      };
    });
  }
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const PROTOCOL_3 = 196608;
/** A client idle inside a transaction this long is dropped (rolled back), so it cannot stall the gateway. */
const HOLD_IDLE_MS = 30_000;

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

function fatal(code: string, text: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${text}\0\0`, 'utf8');
  return message('E', fields);
}

const digest = (s: string | Buffer) => createHash('sha256').update(s).digest();

/** The ReadyForQuery status ('I', 'T' or 'E') when `out` ends with one. */
function readyStatus(out: Buffer): string | undefined {
  if (out.length < 6) return undefined;
  const at = out.length - 6;
  return out[at] === 0x5a && out.readInt32BE(at + 1) === 5
    ? String.fromCharCode(out[at + 5] ?? 0)
    : undefined;
}

/** Serves one client connection: the password, then its messages under the session lock. */
function serveClient(socket: Socket, db: PGlite, lock: SessionLock, password: Buffer): void {
  let buffer = Buffer.alloc(0);
  let phase: 'startup' | 'password' | 'ready' | 'closed' = 'startup';
  let startup: Buffer | undefined;
  let release: (() => void) | undefined;
  let work: Promise<void> = Promise.resolve();
  let idle: NodeJS.Timeout | undefined;

  const run = async (msg: Buffer): Promise<Buffer> => {
    const chunks: Uint8Array[] = [];
    await db.runExclusive(() =>
      db.execProtocolRawStream(new Uint8Array(msg), { onRawData: (d) => chunks.push(d) }),
    );
    return Buffer.concat(chunks);
  };

  /** Leaves the session as the gateway expects it: no pending extended query, no open transaction. */
  const cleanUp = async () => {
    clearTimeout(idle);
    if (!release) return;
    try {
      const status = readyStatus(await run(message('S', Buffer.alloc(0))));
      if (status !== 'I') await db.exec('ROLLBACK');
    } finally {
      release();
      release = undefined;
    }
  };

  const close = () => {
    if (phase === 'closed') return;
    phase = 'closed';
    work = work.then(cleanUp).catch(() => {});
    socket.destroy();
  };

  const handle = async (msgs: Buffer[]) => {
    for (const msg of msgs) {
      if (phase === 'closed') return;
      if (msg[0] === 0x58) return close(); // Terminate
      if (!release) release = await lock.acquire();
      const out = await run(msg);
      if (out.length > 0) socket.write(out);
      if (readyStatus(out) === 'I') {
        release();
        release = undefined;
      }
    }
    clearTimeout(idle);
    if (release) idle = setTimeout(close, HOLD_IDLE_MS);
  };

  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    const ready: Buffer[] = [];
    for (;;) {
      if (phase === 'startup') {
        if (buffer.length < 8) break;
        const length = buffer.readInt32BE(0);
        if (length < 8 || length > 10_000) return close();
        if (buffer.length < length) break;
        const code = buffer.readInt32BE(4);
        const packet = buffer.subarray(0, length);
        buffer = buffer.subarray(length);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          socket.write('N');
          continue;
        }
        if (code !== PROTOCOL_3) return close(); // a cancel request, or an unknown protocol
        startup = Buffer.from(packet);
        phase = 'password';
        socket.write(message('R', Buffer.from([0, 0, 0, 3]))); // AuthenticationCleartextPassword
        continue;
      }
      if (buffer.length < 5) break;
      const length = 1 + buffer.readInt32BE(1);
      if (buffer.length < length) break;
      const msg = Buffer.from(buffer.subarray(0, length));
      buffer = buffer.subarray(length);
      if (phase === 'password') {
        const given = msg[0] === 0x70 ? msg.subarray(5, msg.indexOf(0, 5)) : Buffer.alloc(0);
        if (!timingSafeEqual(digest(given), digest(password))) {
          socket.end(fatal('28P01', 'password authentication failed'));
          phase = 'closed';
          return;
        }
        phase = 'ready';
        // PGlite answers the startup packet itself (AuthenticationOk, parameters, ReadyForQuery).
        if (startup) ready.push(startup);
        continue;
      }
      ready.push(msg);
    }
    if (ready.length > 0) {
      clearTimeout(idle);
      work = work.then(() => handle(ready)).catch(close);
    }
  });
  socket.on('error', close);
  socket.on('close', close);
}

export interface EmbeddedSocket {
  info: SocketInfo;
  close(): Promise<void>;
}

/** Starts lending `db` on a loopback port and writes `<dataDir>/socket.json` (0600). */
export async function serveEmbeddedSocket(
  db: PGlite,
  lock: SessionLock,
  dataDir: string,
  baseUrl: string,
): Promise<EmbeddedSocket> {
  const password = randomBytes(24).toString('base64url');
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serveClient(socket, db, lock, Buffer.from(password));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };
  const info: SocketInfo = { pid: process.pid, host: '127.0.0.1', port, password, base_url: baseUrl };
  const path = join(dataDir, SOCKET_FILE);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(info), { mode: 0o600 });
  chmodSync(temp, 0o600); // an umask can only narrow the mode; this makes it exact
  renameSync(temp, path);
  return {
    info,
    close: async () => {
      rmSync(path, { force: true });
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The socket.json of the process `pid`, when it lends the database in `dataDir`. */
export function readSocketInfo(dataDir: string, pid: number): SocketInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(join(dataDir, SOCKET_FILE), 'utf8')) as Partial<SocketInfo>;
    if (
      info.pid === pid &&
      typeof info.port === 'number' &&
      typeof info.password === 'string' &&
      typeof info.host === 'string'
    ) {
      return {
        pid,
        host: info.host,
        port: info.port,
        password: info.password,
        base_url: String(info.base_url),
      };
    }
  } catch {
    // Missing, or being written.
  }
  return undefined;
}
