import type { PGlite } from '@electric-sql/pglite';
import { createServer, type Server, type Socket } from 'node:net';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

/** Extended-protocol messages (Parse, Bind, Describe, Execute, Close, Flush): a batch the server ends at Sync. */
const EXTENDED = new Set(['P', 'B', 'D', 'E', 'C', 'H'].map((letter) => letter.charCodeAt(0)));
const SYNC = 'S'.charCodeAt(0);
const TERMINATE = 'X'.charCodeAt(0);
const SYNC_MESSAGE = new Uint8Array([SYNC, 0, 0, 0, 4]);

/** A connection of the server: its socket and the bytes of a message not yet complete. */
interface Connection {
  readonly id: number;
  readonly socket: Socket;
  buffer: Buffer;
  started: boolean;
  open: boolean;
}

interface Queued {
  readonly connection: Connection;
  readonly message: Uint8Array;
}

/**
 * PostgreSQL's wire protocol served from one PGlite database (PGlite's public `execProtocolRawStream`), for
 * the tests' PostgreSQL. PGlite is a single session, so connections take turns message by message, as a
 * real server's sessions take turns for the one lock-free CPU; what a real server keeps per session is kept
 * by scheduling:
 * - a connection that opened an extended-protocol batch (Parse/Bind/Execute …) runs alone until its Sync,
 *   so two connections' unnamed statements never meet ("bind message supplies 1 parameters, but prepared
 *   statement requires 3");
 * - a connection whose message left the session inside a transaction block runs alone until the block ends;
 * - a connection that goes away inside its block has it rolled back.
 *
 * Written here rather than patching `@electric-sql/pglite-socket`, which interleaves extended-protocol
 * batches (electric-sql/pglite#1046, open): docs/decisions/2026-11-26-pglite-socket-workaround.md.
 * Sessions share what PGlite has one of: `SET`, advisory locks (they do not exclude another connection).
 */
export class PgliteServer {
  readonly #db: PGlite;
  #server: Server;
  readonly #connections = new Set<Connection>();
  #queue: Queued[] = [];
  /** The connection that runs alone: inside its extended batch or its transaction block. */
  #owner: Connection | null = null;
  /** Whether the last message run was part of an extended batch not yet ended by Sync. */
  #inBatch = false;
  #processing = false;
  #nextId = 1;

  constructor(db: PGlite) {
    this.#db = db;
    this.#server = createServer((socket) => this.#accept(socket));
  }

  /** Listens on a free port of 127.0.0.1; answers `host:port`. */
  async start(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = this.#server.address();
    if (!address || typeof address === 'string') throw new Error('the test PostgreSQL has no TCP address');
    return `127.0.0.1:${address.port}`;
  }

  async stop(): Promise<void> {
    await this.#endConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /**
   * Ends every connection (a block one left open is rolled back) and listens again on a new port, answered as
   * `host:port`: the next client finds the session as a new one, and a client of the old address (a pool a
   * test file left open, reconnecting) is refused instead of reaching the next file's data. The database stays.
   */
  async relisten(): Promise<string> {
    await this.stop();
    this.#server = createServer((socket) => this.#accept(socket));
    return this.start();
  }

  /** Closes every connection and waits until the session is idle, a block one left open rolled back. */
  async #endConnections(): Promise<void> {
    for (const connection of [...this.#connections]) {
      connection.socket.destroy();
      this.#drop(connection);
    }
    while (this.#processing) await new Promise((resolve) => setImmediate(resolve));
    if (this.#owner) await this.#release();
  }

  #accept(socket: Socket): void {
    socket.setNoDelay(true);
    const connection: Connection = { id: this.#nextId++, socket, buffer: Buffer.alloc(0), started: false, open: true };
    this.#connections.add(connection);
    socket.on('data', (data: Buffer) => this.#receive(connection, data));
    socket.on('error', () => this.#drop(connection));
    socket.on('close', () => this.#drop(connection));
  }

  /** Splits what arrived into whole protocol messages and queues them. */
  #receive(connection: Connection, data: Buffer): void {
    connection.buffer = connection.buffer.length === 0 ? data : Buffer.concat([connection.buffer, data]);
    while (connection.open) {
      const buffer = connection.buffer;
      if (!connection.started) {
        // Untyped start-up messages: length, then a code or the protocol version.
        if (buffer.length < 8) return;
        const length = buffer.readInt32BE(0);
        if (buffer.length < length) return;
        const code = buffer.readInt32BE(4);
        connection.buffer = buffer.subarray(length);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          socket(connection)?.write('N');
        } else if (code === CANCEL_REQUEST) {
          connection.socket.end(); // nothing to signal: one session, no backend process per connection
          return;
        } else if (code === PROTOCOL_3) {
          connection.started = true;
          this.#enqueue(connection, buffer.subarray(0, length));
        } else {
          connection.socket.destroy();
          return;
        }
        continue;
      }
      if (buffer.length < 5) return;
      const length = 1 + buffer.readInt32BE(1);
      if (buffer.length < length) return;
      connection.buffer = buffer.subarray(length);
      if (buffer[0] === TERMINATE) {
        connection.socket.end();
        this.#drop(connection);
        return;
      }
      this.#enqueue(connection, buffer.subarray(0, length));
    }
  }

  #enqueue(connection: Connection, message: Buffer): void {
    // A copy: the socket's buffer may be reused once this handler returns.
    this.#queue.push({ connection, message: new Uint8Array(message) });
    void this.#process();
  }

  /** Runs queued messages one at a time on the session, the owner's first (and only theirs while it owns it). */
  async #process(): Promise<void> {
    if (this.#processing) return;
    this.#processing = true;
    try {
      while (true) {
        if (this.#owner && !this.#owner.open) await this.#release();
        if (this.#queue.length === 0) return;
        const owner = this.#owner;
        const index = owner === null ? 0 : this.#queue.findIndex((item) => item.connection === owner);
        if (index === -1) return; // the owner's next message has not arrived yet
        const [item] = this.#queue.splice(index, 1);
        const { connection, message } = item!;
        try {
          await this.#db.runExclusive(() =>
            this.#db.execProtocolRawStream(message, { onRawData: (data) => socket(connection)?.write(data) }),
          );
        } catch (error) {
          // PGlite failed outside PostgreSQL's own error handling: this connection cannot go on.
          connection.socket.destroy(error as Error);
          this.#drop(connection);
        }
        this.#inBatch = EXTENDED.has(message[0]!);
        this.#owner = this.#inBatch || this.#db.isInTransaction() ? connection : null;
      }
    } finally {
      this.#processing = false;
    }
  }

  /**
   * The owner went away inside its extended batch or transaction block: the batch is ended (a Sync, so the
   * session leaves an error's skip-until-Sync state) and the block rolled back, as a real server does when a
   * session ends, before anyone else runs.
   */
  async #release(): Promise<void> {
    this.#owner = null;
    if (this.#inBatch) {
      await this.#db.runExclusive(() => this.#db.execProtocolRaw(SYNC_MESSAGE)).catch(() => undefined);
      this.#inBatch = false;
    }
    if (this.#db.isInTransaction()) await this.#db.exec('ROLLBACK').catch(() => undefined);
  }

  /** A connection went away: its queued messages are dropped (a block it left open is rolled back by `#process`). */
  #drop(connection: Connection): void {
    if (!connection.open) return;
    connection.open = false;
    this.#connections.delete(connection);
    this.#queue = this.#queue.filter((item) => item.connection !== connection);
    if (this.#owner === connection) void this.#process();
  }
}

/** The connection's socket while it can still be written to. */
function socket(connection: Connection): Socket | undefined {
  return connection.open && connection.socket.writable ? connection.socket : undefined;
}
