import { runner } from 'node-pg-migrate';
import { packagePath } from '../package-root';

/**
 * How long opening a connection may take (DATABASE_CONNECT_TIMEOUT_MS): without a bound, a Postgres that
 * accepted the connection and never answered (a stuck server, a proxy with nothing behind it) held
 * `broadsheet migrate` forever, saying nothing. A migration itself may run as long as it takes.
 */
export interface ConnectOptions {
  connectTimeoutMs?: number;
}
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

/** Applies every pending migration (timestamped SQL files, never edited after they land). */
export async function migrate(
  databaseUrl: string,
  log: (message: string) => void = () => undefined,
  { connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS }: ConnectOptions = {},
) {
  const applied = await runner({
    databaseUrl: { connectionString: databaseUrl, connectionTimeoutMillis: connectTimeoutMs },
    // The SQL files stay in src/ (the build compiles TypeScript only): found from the package root.
    dir: packagePath('src', 'db', 'migrations'),
    direction: 'up',
    migrationsTable: 'pgmigrations',
    count: Infinity,
    log,
    noLock: false,
    // Two migrates at once (several containers starting, a deploy retried) take turns: the second one then
    // finds nothing pending. 'fail' refused it with 'Another migration is already running', exit 1.
    advisoryLockMode: 'wait',
  });
  return applied.map((migration) => migration.name);
}

/**
 * Postgres's answers to a CREATE DATABASE that another session's won meanwhile: 42P04 duplicate_database, or
 * 23505 on pg_database's unique index when both passed the existence check at once.
 */
const DATABASE_CREATED_MEANWHILE = new Set(['42P04', '23505']);

/** Creates the database named in `databaseUrl` when it does not exist yet (connecting to `postgres`). */
export async function ensureDatabase(
  databaseUrl: string,
  { connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS }: ConnectOptions = {},
): Promise<void> {
  const { default: pg } = await import('pg');
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const client = new pg.Client({
    connectionString: url.toString(),
    connectionTimeoutMillis: connectTimeoutMs,
  });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`).catch((error: unknown) => {
        if (!DATABASE_CREATED_MEANWHILE.has((error as { code?: string }).code ?? '')) throw error;
      });
    }
  } finally {
    await client.end();
  }
}
