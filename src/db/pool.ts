import { EventEmitter } from 'node:events';
import pg from 'pg';
import { CONNECTION_ERRNOS } from '../domain/connection-errors';
import { loggableUrl } from '../domain/loggable-url';

/**
 * Changes this process has just committed to rows its caches keep, by kind. A process's own caches drop such
 * a row at once, so the very next request sees the change; other processes learn of it from Postgres (a
 * notification or a short TTL, see the caches).
 */
export interface LocalChanges {
  apiClient: [id: string];
  project: [projectId: number];
  /** Any change to a project's media entries (serve-image's cache of servable keys). */
  media: [projectId: number];
}

/**
 * The driver's type parsers for this pool's connections only (pg's global parsers would change pg-boss's own
 * pool too): bigint ids (documents, publications, events) fit in a JS number for any realistic project, so the
 * API answers `documentId: 12`, not `"12"`.
 */
export function typeParsers(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
  return types;
}

/** The process's connection pool, with the signal of the changes it committed to cached rows. */
export class Pool extends pg.Pool {
  readonly changes = new EventEmitter<LocalChanges>();
  /** Opens connections under the connect timeout (createPool sets it; pg's own Client has none). */
  clientClass: typeof pg.Client = pg.Client;

  /** A connection of its own, outside the pool (a LISTEN): the pool's settings and connect timeout. */
  dedicatedClient(extra: pg.ClientConfig = {}): pg.Client {
    return new this.clientClass({ ...this.options, ...extra });
  }
}

export type Transaction = pg.PoolClient;
/** What a query factory needs: the pool or a transaction client. */
export type Queryable = Pick<pg.Pool, 'query'>;

export interface PoolTimeouts {
  /** Most time to open a new connection (DATABASE_CONNECT_TIMEOUT_MS): an unreachable server fails fast. */
  connectTimeoutMs: number;
  /**
   * Most time a request waits in line for a free connection of a busy pool (DATABASE_POOL_WAIT_MS): every
   * connection is at work, so the server answers; a load spike is queued, not failed, within this bound.
   */
  poolWaitMs: number;
  /**
   * Most time a query's connection may stay silent (DATABASE_QUERY_TIMEOUT_MS): no byte from Postgres for this
   * long while a query waits for its answer fails it. Bytes arriving reset it, so a large answer still
   * streaming in (or still being parsed here on a busy CPU) is not cut; see boundQuerySilence. The total is
   * statementTimeoutMs's.
   */
  queryTimeoutMs: number;
  /**
   * Most time one statement may run in all, counted by Postgres (DATABASE_STATEMENT_TIMEOUT_MS): its
   * statement_timeout, sent when each connection opens, so it costs no query. A statement past it is cancelled
   * (SQLSTATE 57014, a 503 at the edge) and its connection serves on; a statement that keeps sending rows is
   * cut too, which the silence bound never does. 0 or unset: none set (the server's own setting applies).
   */
  statementTimeoutMs?: number;
}

export const DEFAULT_POOL_TIMEOUTS: PoolTimeouts = {
  connectTimeoutMs: 5_000,
  poolWaitMs: 15_000,
  queryTimeoutMs: 10_000,
  statementTimeoutMs: 0,
};

export function createPool(url: string, max: number, timeouts: PoolTimeouts = DEFAULT_POOL_TIMEOUTS): Pool {
  // pg-pool bounds both the wait in line and the opening of a new connection by its connectionTimeoutMillis;
  // its clients take the pool's options, so a client of its own opens connections under the shorter bound.
  const connectTimeoutMs = Math.min(timeouts.connectTimeoutMs, timeouts.poolWaitMs);
  class BoundedClient extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionTimeoutMillis: connectTimeoutMs });
      boundQuerySilence(this, timeouts.queryTimeoutMs);
    }
  }
  const pool = new Pool({
    connectionString: url,
    max,
    types: typeParsers(),
    Client: BoundedClient,
    // Without these, a database that stops answering (a cut connection, a stuck proxy) left requests
    // waiting forever: pg's defaults are no connect timeout and no query timeout. The pool's own bound is
    // the wait in line; a new connection fails sooner, at its client's connect timeout; a query whose
    // connection falls silent fails at its client's silence bound (not pg's query_timeout: see
    // boundQuerySilence).
    connectionTimeoutMillis: timeouts.poolWaitMs,
    // A connection the server or the network dropped while idle is noticed, not handed to the next request.
    keepAlive: true,
    // A startup parameter of every connection (dedicatedClient's LISTEN ones too): Postgres bounds each
    // statement's whole time, rows still being sent included. pg sends none for 0 or undefined.
    statement_timeout: timeouts.statementTimeoutMs || undefined,
  });
  pool.clientClass = BoundedClient;
  // An idle client that errors (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  // pg-pool listens for errors only on idle clients: a connection cut while a client is checked out between
  // two queries (inside withTransaction) emitted an unhandled 'error' and killed the process. The client's
  // next query fails instead (a 503 at the edge) and withTransaction destroys it.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * Fails a query of `client` when its connection has passed no byte from Postgres for `silenceMs`: a dead host,
 * a dropped route or a stuck server fails with 'Query read timeout' (a 503 at the edge) and the connection is
 * destroyed. pg's own query_timeout bounded the whole query instead, up to its last row parsed here: a large
 * legitimate read (100 documents of a megabyte) on a busy API process failed as the database being
 * unavailable while Postgres was answering. Every byte read restarts the bound.
 *
 * Timers run before the event loop reads its sockets: when the bound is up, the bytes that arrived while this
 * process was busy (a long parse, a starved CPU) are read first (setImmediate runs after that), then judged.
 * Queries given as a submittable (pg-cursor, pg-query-stream: none here) are not bounded.
 */
export function boundQuerySilence(client: pg.Client, silenceMs: number): void {
  // pg.Client's own query, looked up at each call (not bound once here), so what wraps the class's method
  // later (a test's spy counting statements) still sees every query.
  const own = Object.getPrototypeOf(client) as { query: (...args: unknown[]) => unknown };
  const query = (...args: unknown[]): unknown => own.query.apply(client, args);
  const watch = (): (() => void) => {
    const stream = client.connection.stream;
    let lastRead = performance.now();
    let done = false;
    const onData = () => {
      lastRead = performance.now();
    };
    const judge = () =>
      setImmediate(() => {
        if (done) return;
        const silent = performance.now() - lastRead;
        if (silent < silenceMs) {
          timer = setTimeout(judge, silenceMs - silent);
          return;
        }
        stop();
        // The connection's 'error' fails every query of the client with it; the pool destroys the client.
        stream.destroy(new Error(`${QUERY_READ_TIMEOUT}: no answer from Postgres for ${silenceMs} ms`));
      });
    let timer = setTimeout(judge, silenceMs);
    const stop = () => {
      done = true;
      clearTimeout(timer);
      stream.off('data', onData);
    };
    stream.on('data', onData);
    return stop;
  };
  (client as { query: unknown }).query = (...args: unknown[]): unknown => {
    const first = args[0] as { submit?: unknown } | null | undefined;
    if (typeof first?.submit === 'function') return query(...args);
    const stop = watch();
    try {
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === 'function') {
        args[last] = (...answer: unknown[]) => {
          stop();
          (callback as (...answer: unknown[]) => void)(...answer);
        };
        return query(...args);
      }
      const answer = query(...args) as Promise<unknown>;
      answer.then(stop, stop);
      return answer;
    } catch (error) {
      stop();
      throw error;
    }
  };
}

/**
 * Runs `work` in one transaction: commits when it resolves, rolls back when it throws. A transaction Postgres
 * aborted as the victim of a deadlock (40P01), or could not serialise (40001), rolled back whole: `work` runs
 * again in a new one (TRANSACTION_ATTEMPTS in all), as it would have a moment later, so the writer that lost
 * a lock-order race gets its answer instead of a 500. `work` must be a transaction's work only (what it does
 * outside the database is not undone), as every caller's is.
 */
export async function withTransaction<T>(pool: Pool, work: (tx: Transaction) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await transactionOnce(pool, work);
    } catch (error) {
      if (attempt >= TRANSACTION_ATTEMPTS || !isLockConflict(error)) throw error;
    }
  }
}

/** How many times withTransaction runs a transaction that Postgres keeps aborting for a lock conflict. */
export const TRANSACTION_ATTEMPTS = 3;

/** deadlock_detected and serialization_failure: the transaction is rolled back and may simply run again. */
const LOCK_CONFLICT_SQLSTATES = new Set(['40P01', '40001']);

/** Whether Postgres aborted the statement's transaction for a deadlock or a serialisation failure. */
export function isLockConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && LOCK_CONFLICT_SQLSTATES.has(code);
}

async function transactionOnce<T>(pool: Pool, work: (tx: Transaction) => Promise<T>): Promise<T> {
  const tx = await pool.connect();
  // A connection whose ROLLBACK failed (cut, timed out, terminated) is destroyed, not handed back to the
  // pool: the next request would get a connection still waiting for the answer of this one's last query.
  let broken: Error | undefined;
  try {
    await tx.query('BEGIN');
    const result = await work(tx);
    await tx.query('COMMIT');
    return result;
  } catch (error) {
    await tx.query('ROLLBACK').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    // A cancelled statement (57014: statement_timeout, pg_cancel_backend) whose ROLLBACK went through leaves a
    // sound connection: kept, so a burst of statements cut by the bound does not also reopen connections.
    if (!broken && isDatabaseUnavailable(error) && !isStatementCancelled(error)) broken = error as Error;
    throw error;
  } finally {
    tx.release(broken);
  }
}

/** A statement Postgres cancelled (statement_timeout, pg_cancel_backend): its connection still answers. */
function isStatementCancelled(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '57014';
}

/**
 * SQLSTATE classes and codes that mean the server or the connection cannot serve now, not that the query is
 * wrong: class 08 (connection exception), class 53 (insufficient resources: disk, memory, connections),
 * 25006 (a read-only server refused a write: a standby, or a primary being demoted, during a failover),
 * 57014 (a statement cancelled: statement_timeout, pg_cancel_backend) and 57P01-57P03 (shutdown, crash,
 * starting up). These answered a 500 before, as if the request were a bug.
 */
const UNAVAILABLE_SQLSTATE_CLASSES = ['08', '53'];
const UNAVAILABLE_SQLSTATES = new Set(['25006', '57014', '57P01', '57P02', '57P03']);
/** A connection that could not be made or was lost (the object store counts a few more). */
const UNAVAILABLE_ERRNOS = new Set(CONNECTION_ERRNOS);
/** What boundQuerySilence fails a query with. */
const QUERY_READ_TIMEOUT = 'Query read timeout';
/** pg-pool's error when no connection came free within connectionTimeoutMillis (DATABASE_POOL_WAIT_MS). */
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';
/** pg's Client cut by its own connect timeout (createPool's clients: a new connection that does not open). */
const CONNECT_TIMEOUT = 'timeout expired';

/** pg's and pg-pool's own errors for a connection that could not be had or was lost (they carry no code). */
const UNAVAILABLE_MESSAGES = [
  POOL_WAIT_TIMEOUT,
  CONNECT_TIMEOUT,
  'Connection terminated',
  QUERY_READ_TIMEOUT,
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'terminating connection due to administrator command',
];

/**
 * Whether an error means Postgres could not answer now (unreachable, restarting, connection cut or timed out,
 * too many connections), as opposed to a bug in what we asked. The API answers these with a 503.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (
    typeof code === 'string' &&
    (UNAVAILABLE_SQLSTATE_CLASSES.some((sqlClass) => code.startsWith(sqlClass)) ||
      UNAVAILABLE_SQLSTATES.has(code))
  ) {
    return true;
  }
  if (typeof code === 'string' && UNAVAILABLE_ERRNOS.has(code)) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((known) => message.includes(known));
}

/** The Postgres message of a statement cancelled by its statement_timeout (57014 is also pg_cancel_backend's). */
const STATEMENT_TIMEOUT_MESSAGE = 'canceling statement due to statement timeout';

/**
 * Which of the pool's bounds failed a query whose error means the database is unavailable, and in words for the
 * log: `bound` names the setting (undefined when none did: a refused or cut connection, a server restarting),
 * so a 503 that an operator's own setting caused is told from an outage. For errors only, never per query.
 */
export function databaseUnavailableCause(
  error: unknown,
  timeouts: PoolTimeouts,
): { bound: string | undefined; reason: string } {
  const { code, message } = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    message?: unknown;
  };
  const text = typeof message === 'string' ? message : String(error);
  if (isStatementCancelled(error) && text.includes(STATEMENT_TIMEOUT_MESSAGE)) {
    return {
      bound: 'DATABASE_STATEMENT_TIMEOUT_MS',
      reason: `Postgres cancelled the statement after DATABASE_STATEMENT_TIMEOUT_MS (${timeouts.statementTimeoutMs ?? '?'} ms; statement_timeout)`,
    };
  }
  if (text.includes(QUERY_READ_TIMEOUT)) {
    return {
      bound: 'DATABASE_QUERY_TIMEOUT_MS',
      reason: `no byte from Postgres within DATABASE_QUERY_TIMEOUT_MS (${timeouts.queryTimeoutMs} ms)`,
    };
  }
  if (text.includes(POOL_WAIT_TIMEOUT)) {
    return {
      bound: 'DATABASE_POOL_WAIT_MS',
      reason: `no free connection within DATABASE_POOL_WAIT_MS (${timeouts.poolWaitMs} ms)`,
    };
  }
  // createPool opens a connection under the shorter of the two.
  if (text === CONNECT_TIMEOUT || text.includes('Connection terminated due to connection timeout')) {
    const [name, ms] =
      timeouts.connectTimeoutMs <= timeouts.poolWaitMs
        ? ['DATABASE_CONNECT_TIMEOUT_MS', timeouts.connectTimeoutMs]
        : ['DATABASE_POOL_WAIT_MS', timeouts.poolWaitMs];
    return { bound: name, reason: `a new connection did not open within ${name} (${ms} ms)` };
  }
  return { bound: undefined, reason: typeof code === 'string' ? `${text} (${code})` : text };
}

/**
 * DATABASE_URL as it may be shown in a message: its password `[REDACTED]` (the user kept: it says which role
 * was tried), and so are query parameters naming a credential (`?password=`, as loggableUrl does).
 */
export function redactDatabaseUrl(databaseUrl: string): string {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#\\]*)@(.*)$/is.exec(databaseUrl);
  if (!match) return loggableUrl(databaseUrl);
  const [, scheme, userinfo, rest] = match as unknown as [string, string, string, string];
  const colon = userinfo.indexOf(':');
  const user = colon < 0 ? userinfo : `${userinfo.slice(0, colon)}:[REDACTED]`;
  return `${scheme}${user}@${loggableUrl(rest)}`;
}

/** Whether an error means DATABASE_URL cannot be used at all: unreachable, refused login (class 28), no such database. */
function isConnectFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    isDatabaseUnavailable(error) || (typeof code === 'string' && (code.startsWith('28') || code === '3D000'))
  );
}

/** An error's own words; an AggregateError (one per address a host name resolved to) has none but its errors'. */
function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.message === '') {
    return [...new Set(error.errors.map(reasonOf))].join('; ');
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * What a process starting on Postgres throws when DATABASE_URL cannot be used: the variable named, its value
 * without the password, and why (`connect ECONNREFUSED 127.0.0.1:5999` alone named no setting). The error's
 * `code` stays, so what reads it (the CLI's hints) still can. Any other error is returned as it is.
 */
export function databaseStartError(databaseUrl: string, error: unknown): unknown {
  if (!isConnectFailure(error)) return error;
  const wrapped = new Error(
    `cannot use Postgres at DATABASE_URL=${redactDatabaseUrl(databaseUrl)}: ${reasonOf(error)}`,
    { cause: error },
  );
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? Object.assign(wrapped, { code }) : wrapped;
}
