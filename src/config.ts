import { hkdfSync } from 'node:crypto';
import { z } from 'zod';

/** The one place that reads process.env. Invalid configuration fails loudly at start, naming every variable. */
const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
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
  JWT_SECRET: z.string().min(16, 'at least 16 characters').optional(),
  /** Signs search cursors; without it the key is derived from JWT_SECRET. */
  CURSOR_SECRET: z.string().min(16, 'at least 16 characters').optional(),
  JWKS_URL: z.string().url().optional(),
  JWT_ISSUER: z.string().optional(),
  BODY_LIMIT: z.string().default('5mb'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Base URL that media asset URLs point at (serve-image). */
  PUBLIC_BASE_URL: z.string().url().optional(),
  /** How many index jobs the worker takes in one bulk request. */
  INDEXER_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(200),
});

/** Used only outside production, so a fresh clone runs without setup; production must set JWT_SECRET. */
const DEVELOPMENT_JWT_SECRET = 'broadsheet-development-secret-do-not-use-in-production';

export type Config = ReturnType<typeof loadConfig>;

/**
 * The HMAC key of search cursors, derived with HKDF-SHA256 so that it is never the secret itself: cursors
 * travel to every client, and a key shared with token signing must not be usable for both.
 */
function deriveCursorKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'broadsheet', 'search cursor v2', 32));
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const problems: string[] = [];
  if (e.NODE_ENV === 'production' && !e.JWT_SECRET && !e.JWKS_URL) {
    problems.push('JWT_SECRET: required in production (or set JWKS_URL)');
  }
  if (e.NODE_ENV === 'production' && !e.JWT_SECRET && !e.CURSOR_SECRET) {
    problems.push('CURSOR_SECRET: required in production without JWT_SECRET (it signs search cursors)');
  }
  if (problems.length > 0)
    throw new Error(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  const jwtSecret = e.JWT_SECRET ?? DEVELOPMENT_JWT_SECRET;
  return {
    env: e.NODE_ENV,
    http: { host: e.HOST, port: e.PORT, bodyLimit: e.BODY_LIMIT, publicBaseUrl: e.PUBLIC_BASE_URL },
    database: { url: e.DATABASE_URL, poolSize: e.DATABASE_POOL_SIZE },
    elasticsearch: { url: e.ELASTICSEARCH_URL, indexPrefix: e.ELASTICSEARCH_INDEX_PREFIX },
    auth: { jwtSecret, jwksUrl: e.JWKS_URL, issuer: e.JWT_ISSUER },
    search: { cursorKey: deriveCursorKey(e.CURSOR_SECRET ?? jwtSecret) },
    logLevel: e.LOG_LEVEL,
    indexer: { batchSize: e.INDEXER_BATCH_SIZE },
  };
}
