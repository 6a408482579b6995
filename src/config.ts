import { hkdfSync, randomBytes } from 'node:crypto';
import { z } from 'zod';

/** The one place that reads process.env. Invalid configuration fails loudly at start, naming every variable. */
const EnvSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/broadsheet'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(20),
  ELASTICSEARCH_URL: z.string().url().default('http://127.0.0.1:9200'),
  /** Prefix of the publications alias and its versioned physical indices: `<prefix>-publications`. */
  ELASTICSEARCH_INDEX_PREFIX: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'lowercase letters, digits, - and _')
    .default('broadsheet'),
  /** The HS256 key of the tokens the CLI signs. The API and the workers refuse to start without it or JWKS_URL. */
  JWT_SECRET: z.string().min(16, 'at least 16 characters').optional(),
  /** Signs search cursors; without it the key is derived from JWT_SECRET. */
  CURSOR_SECRET: z.string().min(16, 'at least 16 characters').optional(),
  JWKS_URL: z.string().url().optional(),
  JWT_ISSUER: z.string().optional(),
  /** Local development only: start without JWT_SECRET, on a random key of the process's own. */
  BROADSHEET_INSECURE_DEV_SECRET: z
    .enum(['true', 'false'], { message: "must be 'true' or 'false'" })
    .optional(),
  BODY_LIMIT: z.string().default('5mb'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Base URL that media asset URLs point at (serve-image). */
  PUBLIC_BASE_URL: z.string().url().optional(),
  /** How many index jobs the worker takes in one bulk request. */
  INDEXER_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(200),
});

export type Config = ReturnType<typeof loadConfig>;

export interface LoadOptions {
  /**
   * For the API and the workers: fail closed, refusing to start with no way to verify tokens (neither
   * JWT_SECRET nor JWKS_URL), or with no shared key for search cursors (neither CURSOR_SECRET nor JWT_SECRET),
   * unless BROADSHEET_INSECURE_DEV_SECRET=true says so explicitly. The CLI's commands that need no key
   * (migrate, index ...) run without one.
   */
  server?: boolean;
}

function invalid(lines: string[]): Error {
  return new Error(`Invalid configuration:\n${lines.map((line) => `  ${line}`).join('\n')}`);
}

/**
 * The HMAC key of search cursors, derived with HKDF-SHA256 so that it is never the secret itself: cursors
 * travel to every client, and a key shared with token signing must not be usable for both.
 */
function deriveCursorKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'broadsheet', 'search cursor v2', 32));
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, options: LoadOptions = {}) {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw invalid(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const e = parsed.data;
  const failClosed = options.server === true && e.BROADSHEET_INSECURE_DEV_SECRET !== 'true';
  const problems: string[] = [];
  if (failClosed && !e.JWT_SECRET && !e.JWKS_URL) {
    problems.push(
      'JWT_SECRET: required in production (at least 16 characters, e.g. `openssl rand -hex 32`), unless ' +
        'JWKS_URL is set; for local development only, BROADSHEET_INSECURE_DEV_SECRET=true starts on a random ' +
        'key of this process',
    );
  }
  // Every API process must sign and check cursors with the same key: a random key of each process would make
  // a cursor fail on the next process a load balancer picks.
  if (failClosed && !e.JWT_SECRET && !e.CURSOR_SECRET) {
    problems.push('CURSOR_SECRET: required in production without JWT_SECRET (it signs search cursors)');
  }
  if (problems.length > 0) throw invalid(problems);
  /**
   * The HS256 key. Without JWT_SECRET it is a random key of this process, which nobody else knows: no HS256
   * token verifies against it but the ones this process signs (JWKS_URL installations, local development).
   */
  const jwtSecret = e.JWT_SECRET ?? randomBytes(32).toString('hex');
  return {
    http: { host: e.HOST, port: e.PORT, bodyLimit: e.BODY_LIMIT, publicBaseUrl: e.PUBLIC_BASE_URL },
    database: { url: e.DATABASE_URL, poolSize: e.DATABASE_POOL_SIZE },
    elasticsearch: { url: e.ELASTICSEARCH_URL, indexPrefix: e.ELASTICSEARCH_INDEX_PREFIX },
    auth: {
      jwtSecret,
      /** Whether jwtSecret is the configured JWT_SECRET, the one every process of the installation shares. */
      jwtSecretConfigured: e.JWT_SECRET !== undefined,
      jwksUrl: e.JWKS_URL,
      issuer: e.JWT_ISSUER,
    },
    /** Without CURSOR_SECRET or JWT_SECRET (the CLI, or the development flag): the random key of this process. */
    search: { cursorKey: deriveCursorKey(e.CURSOR_SECRET ?? jwtSecret) },
    logLevel: e.LOG_LEVEL,
    indexer: { batchSize: e.INDEXER_BATCH_SIZE },
  };
}
