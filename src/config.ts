import { randomBytes } from 'node:crypto';
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
   * JWT_SECRET nor JWKS_URL) unless BROADSHEET_INSECURE_DEV_SECRET=true says so explicitly. The CLI's
   * commands that need no key (migrate, index ...) run without one.
   */
  server?: boolean;
}

function invalid(lines: string[]): Error {
  return new Error(`Invalid configuration:\n${lines.map((line) => `  ${line}`).join('\n')}`);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, options: LoadOptions = {}) {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw invalid(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const e = parsed.data;
  const insecureDevSecret = e.BROADSHEET_INSECURE_DEV_SECRET === 'true';
  if (options.server && !e.JWT_SECRET && !e.JWKS_URL && !insecureDevSecret) {
    throw invalid([
      'JWT_SECRET: required (at least 16 characters, e.g. `openssl rand -hex 32`), unless JWKS_URL is set; ' +
        'for local development only, BROADSHEET_INSECURE_DEV_SECRET=true starts on a random key of this process',
    ]);
  }
  return {
    http: { host: e.HOST, port: e.PORT, bodyLimit: e.BODY_LIMIT, publicBaseUrl: e.PUBLIC_BASE_URL },
    database: { url: e.DATABASE_URL, poolSize: e.DATABASE_POOL_SIZE },
    elasticsearch: { url: e.ELASTICSEARCH_URL, indexPrefix: e.ELASTICSEARCH_INDEX_PREFIX },
    auth: {
      /**
       * The HS256 key. Without JWT_SECRET it is a random key of this process, which nobody else knows: no HS256
       * token verifies against it but the ones this process signs (JWKS_URL installations, local development).
       */
      jwtSecret: e.JWT_SECRET ?? randomBytes(32).toString('hex'),
      /** Whether jwtSecret is the configured JWT_SECRET, the one every process of the installation shares. */
      jwtSecretConfigured: e.JWT_SECRET !== undefined,
      jwksUrl: e.JWKS_URL,
      issuer: e.JWT_ISSUER,
    },
    logLevel: e.LOG_LEVEL,
    indexer: { batchSize: e.INDEXER_BATCH_SIZE },
  };
}
