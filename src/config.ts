import { hkdfSync, randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { z } from 'zod';
import { DEFAULT_MAX_IMAGE_PIXELS } from './domain/media';
import { parseTrustProxy } from './domain/client-address';
import { parseRateLimit } from './domain/rate-limits';
import { quoted } from './domain/shown-input';
import { DEFAULT_HEAP_GROWING_PERCENT } from './heap-growth';
import { packagePath } from './package-root';

/** Blank (`PORT=` in an env file, `PORT: ${PORT}` in a compose file with PORT unset) is unset. */
const blankAsUnset = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

/**
 * A whole-number variable: decimal digits (spaces around allowed) within [min, max]; blank counts as unset. A
 * plain coercion read a blank value as 0 (PORT= listened on a random port, ELASTICSEARCH_REPLICAS= made
 * indices without replicas, MEDIA_CACHE_MB= turned the cache off), and `0x50`, `1e3` as 80 and 1000.
 */
function wholeNumber(min: number, max: number = Number.MAX_SAFE_INTEGER) {
  return z
    .string()
    .trim()
    .refine((text) => /^\d+$/.test(text), {
      error: (issue) => `a whole number (digits only), not ${quoted(String(issue.input))}`,
    })
    .transform(Number)
    .pipe(z.number().min(min, `at least ${min}`).max(max, `at most ${max}`));
}

/** A whole-number variable with a default (used when it is unset or blank). */
const wholeNumberOr = (min: number, max: number | undefined, fallback: number) =>
  z.preprocess(blankAsUnset, wholeNumber(min, max).default(fallback));

/** A whole-number variable that may be left unset (or blank). */
const optionalWholeNumber = (min: number, max?: number) =>
  z.preprocess(blankAsUnset, wholeNumber(min, max).optional());

/** Whether `text` is a URL whose scheme is one of `protocols` (`'https:'`, with the colon). */
function hasProtocol(text: string, protocols: readonly string[]): boolean {
  return URL.canParse(text) && protocols.includes(new URL(text).protocol);
}

const HTTP_PROTOCOLS = ['http:', 'https:'];

/**
 * A URL its client can use: a plain url() check let `ftp://` or `mysql://` through, and the start then failed
 * later naming no variable ("Invalid protocol: 'ftp:'"), or the process ran with a JWKS it could never fetch.
 */
const urlOf = (protocols: readonly string[], expected: string) =>
  z.string().refine((text) => hasProtocol(text, protocols), expected);
const httpUrl = () => urlOf(HTTP_PROTOCOLS, 'an http:// or https:// URL');

/** A limit of N per period (`600/minute`, `100/10s`) or `none`, with a default used when unset. */
const rateLimitOr = (fallback: string) =>
  z.preprocess(
    blankAsUnset,
    z
      .string()
      .default(fallback)
      .transform((text, ctx) => {
        const parsed = parseRateLimit(text);
        if (parsed.ok) return parsed.value;
        ctx.addIssue({ code: 'custom', message: parsed.message });
        return z.NEVER;
      }),
  );

/** The one place that reads process.env. Invalid configuration fails loudly at start, naming every variable. */
export const EnvSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: wholeNumberOr(0, 65535, 3000),
  DATABASE_URL: urlOf(['postgres:', 'postgresql:'], 'a postgres:// or postgresql:// URL').default(
    'postgres://postgres@127.0.0.1:5432/broadsheet',
  ),
  DATABASE_POOL_SIZE: wholeNumberOr(1, 200, 20),
  /**
   * How long opening a new Postgres connection may take before the request fails with a 503, so an
   * unreachable or stuck database never leaves a client hanging.
   */
  DATABASE_CONNECT_TIMEOUT_MS: wholeNumberOr(100, 600_000, 5_000),
  /**
   * How long a request waits in line for a free connection when every connection of the pool is at work (a
   * busy but healthy database) before it fails with a 503: a load spike is queued rather than failed.
   */
  DATABASE_POOL_WAIT_MS: wholeNumberOr(100, 600_000, 15_000),
  /**
   * Longest time a query's connection may pass no byte from Postgres, counted on the client side: a connection
   * cut without a reset (a dead host, a dropped route) or a stuck server fails within this (a 503) instead of
   * the TCP timeout of many minutes. Every byte read restarts it, so a large answer still arriving (or being
   * parsed on a busy API process) is not cut; a query Postgres works on longer than this before its first row
   * fails too. The slowest queries of the API and the workers take well under a second; index rebuilds read
   * in pages. The total is DATABASE_STATEMENT_TIMEOUT_MS's.
   */
  DATABASE_QUERY_TIMEOUT_MS: wholeNumberOr(100, 3_600_000, 10_000),
  /**
   * Longest time one statement of the API's and the workers' connections may run in all, counted by Postgres
   * (its statement_timeout, set on each connection as it opens): a statement that keeps sending rows, waits on
   * a lock another session holds, or runs away is cancelled (SQLSTATE 57014, a 503), its connection kept.
   * DATABASE_QUERY_TIMEOUT_MS bounds only silence, so such a statement held its connection and its request
   * for good. Far above the longest legitimate statement (a list read of 100+ MB on a busy API process, an
   * import batch's insert: seconds); 0 sets none (the server's own setting applies). The CLI sets none (an
   * operator's import or index rebuild runs as long as it takes), nor do migrations and pg-boss's own pool.
   */
  DATABASE_STATEMENT_TIMEOUT_MS: z.preprocess(
    blankAsUnset,
    wholeNumber(0, 86_400_000)
      .refine((ms) => ms === 0 || ms >= 100, '0 (none) or at least 100')
      .default(120_000),
  ),
  /**
   * One node's URL, or several separated by commas (the nodes of one cluster): the client spreads requests
   * over them and retries a request that failed to connect on the next one.
   */
  ELASTICSEARCH_URL: z
    .string()
    .default('http://127.0.0.1:9200')
    .transform((text, ctx) => {
      const urls = text
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== '');
      const unparsed = urls.filter((url) => !URL.canParse(url));
      const otherSchemes = urls.filter((url) => URL.canParse(url) && !hasProtocol(url, HTTP_PROTOCOLS));
      const problems = [
        ...(urls.length === 0 ? ['one URL or a comma-separated list of URLs'] : []),
        ...(unparsed.length > 0
          ? [`not a URL: ${unparsed.join(', ')} (one URL or a comma-separated list)`]
          : []),
        ...(otherSchemes.length > 0 ? [`not an http:// or https:// URL: ${otherSchemes.join(', ')}`] : []),
      ];
      for (const message of problems) ctx.addIssue({ code: 'custom', message });
      return problems.length > 0 ? z.NEVER : urls;
    }),
  /**
   * Replicas of the publications index when it is created (and after a rebuild). Unset: the mapping file's
   * `auto_expand_replicas: 0-1` (a replica as soon as a second node is there, none on a single node).
   */
  ELASTICSEARCH_REPLICAS: optionalWholeNumber(0, 10),
  /** Prefix of the publications alias and its versioned physical indices: `<prefix>-publications`. */
  ELASTICSEARCH_INDEX_PREFIX: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'lowercase letters, digits, - and _')
    .default('broadsheet'),
  /** The HS256 key of the tokens the CLI signs. The API and the workers refuse to start without it or JWKS_URL. */
  JWT_SECRET: z.string().min(16, 'at least 16 characters').optional(),
  /** Signs search cursors; without it the key is derived from JWT_SECRET. */
  CURSOR_SECRET: z.string().min(16, 'at least 16 characters').optional(),
  JWKS_URL: httpUrl().optional(),
  JWT_ISSUER: z.string().optional(),
  /** The `aud` every token must name when set (a JWKS's identity provider signs tokens for other APIs too). */
  JWT_AUDIENCE: z.preprocess(blankAsUnset, z.string().trim().min(1).optional()),
  /** Local development only: start without JWT_SECRET, on a random key of the process's own. */
  BROADSHEET_INSECURE_DEV_SECRET: z
    .enum(['true', 'false'], { message: "must be 'true' or 'false'" })
    .optional(),
  /**
   * The largest JSON body, a size as body-parser reads it (`bytes`). Checked here: unchecked, a typo either
   * stopped the API with body-parser's `option limit "abc" is invalid`, naming no variable, or was read up to
   * its first letter (`5 megs`: 5 bytes, every body a 413).
   */
  BODY_LIMIT: z
    .string()
    .trim()
    .regex(/^\d+(\.\d+)? *(b|kb|mb|gb|tb|pb)?$/i, 'a size such as 5mb, 512kb or 1048576 (bytes)')
    .refine((text) => Number.parseFloat(text) >= 1, 'at least 1 byte')
    .default('5mb'),
  /**
   * How long any request body has to arrive, from the request reaching the app, on every route (uploads
   * included); each BODY_MIN_BYTES_PER_SECOND bytes that arrive earn it a second more; past that a 408
   * (middleware/body-deadline.ts).
   */
  BODY_TIMEOUT_MS: wholeNumberOr(1000, 300_000, 60_000),
  /**
   * The least rate, in bytes a second on average, a body must keep up past BODY_TIMEOUT_MS: a flat deadline cut
   * an honest slow client of a large body (BODY_LIMIT raised, an upload of MEDIA_UPLOAD_MAX_BYTES). 16 KiB/s is
   * 128 kbit/s, a poor mobile link; a client holding a connection must send that much for it.
   */
  BODY_MIN_BYTES_PER_SECOND: wholeNumberOr(1, undefined, 16_384),
  /**
   * How far the old generation of the API's, the workers' and the CLI's processes may grow past what the last full garbage collection left alive
   * before the next one, in per cent (V8's `--heap-growing-percent`; 0: V8's own choice). Every answer from
   * Elasticsearch arrives as buffers that push V8 to collect: with its own choice (~120% here) the API marked its
   * ~35 MB of live objects 18 times in a run of exports and lists, with 300 six times (README, "What bounds
   * each figure"), at the cost of a heap that grows to up to four times the live one between collections.
   */
  HEAP_GROWING_PERCENT: wholeNumberOr(0, 1000, DEFAULT_HEAP_GROWING_PERCENT),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Base URL that media asset URLs point at (serve-image). */
  PUBLIC_BASE_URL: httpUrl().optional(),
  /** How many index jobs the worker takes in one bulk request. */
  INDEXER_BATCH_SIZE: wholeNumberOr(1, 1000, 200),
  /** Requests per window of API clients without a limit of their own: `600/minute`, `100/10s`, or `none`. */
  RATE_LIMIT_DEFAULT: rateLimitOr('none'),
  /**
   * Failed secret checks (the planner's client-credentials login) one client address may make per window before
   * its next attempts are refused with a 429 unchecked: `20/minute`, or `none`.
   */
  AUTH_FAILURE_LIMIT: rateLimitOr('20/minute'),
  /**
   * The same per API client id named by the attempts, from any address: bounds guessing spread over many
   * addresses. Higher than per address, so that one address alone cannot lock a client's own tool out.
   */
  AUTH_FAILURE_LIMIT_PER_CLIENT: rateLimitOr('60/minute'),
  /**
   * Which proxies in front of the API are trusted to say the client's address (X-Forwarded-For), as Express's
   * `trust proxy`: off, a hop count, or the proxies' addresses and CIDR ranges. Off: the socket's peer is the
   * client, whatever X-Forwarded-For says.
   */
  TRUST_PROXY: z.preprocess(
    blankAsUnset,
    z
      .string()
      .default('false')
      .transform((text, ctx) => {
        const parsed = parseTrustProxy(text);
        if (parsed.ok) return parsed.value;
        ctx.addIssue({ code: 'custom', message: parsed.message });
        return z.NEVER;
      }),
  ),
  /** The bearer token `GET /metrics` requires; without it the API serves no metrics (README, "Metrics"). */
  METRICS_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  /** The workers' metrics and probes server (GET /metrics, /health, /health/ready on HOST:WORKER_METRICS_PORT); unset: none. */
  WORKER_METRICS_PORT: optionalWholeNumber(0, 65535),
  /** How long one webhook call (import finished) may take, answer included. */
  WEBHOOK_TIMEOUT_MS: wholeNumberOr(100, 60_000, 10_000),
  /** Calls of a webhook before giving up (the first included), with doubling delays between them. */
  WEBHOOK_ATTEMPTS: wholeNumberOr(1, 10, 5),
  /** The delay before the second call; each next one waits twice as long. */
  WEBHOOK_RETRY_DELAY_MS: wholeNumberOr(0, 600_000, 2000),
  /** Whether webhooks may call loopback, private, link-local and other non-public addresses. */
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: z
    .enum(['true', 'false'], { message: "must be 'true' or 'false'" })
    .default('false'),
  /** Whether a project's enrichment service may be a loopback, private, link-local or other non-public address. */
  ENRICHMENT_ALLOW_PRIVATE_ADDRESSES: z
    .enum(['true', 'false'], { message: "must be 'true' or 'false'" })
    .default('false'),
  /** The folder of the embedded media store (relative to the working directory); unused with MEDIA_S3_BUCKET. */
  MEDIA_STORAGE_DIR: z.string().min(1).optional(),
  /** With a bucket, media bytes go to S3 or any S3-compatible store instead of MEDIA_STORAGE_DIR. */
  MEDIA_S3_BUCKET: z.string().min(1).optional(),
  /** An S3-compatible store's URL (MinIO, Ceph, s3mock ...); without it, AWS's own endpoint of the region. */
  MEDIA_S3_ENDPOINT: httpUrl().optional(),
  MEDIA_S3_REGION: z.string().min(1).default('us-east-1'),
  /** Both or neither: without them, the AWS SDK's default chain (environment, profile, instance role). */
  MEDIA_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  MEDIA_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** `true` for stores that address buckets as `<endpoint>/<bucket>` rather than `<bucket>.<endpoint>`. */
  MEDIA_S3_FORCE_PATH_STYLE: z
    .enum(['true', 'false'], { message: "must be 'true' or 'false'" })
    .default('false'),
  /**
   * How long a write to the S3 store may wait to connect, or between two of its bytes, in milliseconds: a
   * store that takes connections and never answers held an import's request for good.
   */
  MEDIA_S3_TIMEOUT_MS: wholeNumberOr(100, 600_000, 10_000),
  /**
   * Memory each API process gives to images of up to 1 MiB it recently served, in MiB (0: none): a hot image is
   * answered without a read from the folder or a round trip to S3 (keys are never rewritten).
   */
  MEDIA_CACHE_MB: wholeNumberOr(0, 65_536, 64),
  /** The largest body POST mediaLibrary/uploads accepts, in bytes (default 25 MiB). */
  MEDIA_UPLOAD_MAX_BYTES: wholeNumberOr(1, undefined, 25 * 1024 * 1024),
  /**
   * The most pixels (width x height, of an animation's first frame) an uploaded or downloaded image may have:
   * decoding costs memory and CPU by pixels, and a file of a few hundred bytes may declare hundreds of millions.
   */
  MEDIA_MAX_IMAGE_PIXELS: wholeNumberOr(1, 268_402_689, DEFAULT_MAX_IMAGE_PIXELS),
  /** The largest asset POST import/mediaLibrary downloads from a URL, in bytes (default 25 MiB). */
  MEDIA_DOWNLOAD_MAX_BYTES: wholeNumberOr(1, undefined, 25 * 1024 * 1024),
  /** How long one asset download may take, redirects included, in milliseconds. */
  MEDIA_DOWNLOAD_TIMEOUT_MS: wholeNumberOr(100, 600_000, 15_000),
  /** How many redirects an asset download follows. */
  MEDIA_DOWNLOAD_MAX_REDIRECTS: wholeNumberOr(0, 20, 5),
  /** `true` lets asset downloads reach private, loopback and link-local addresses (closed networks, tests). */
  MEDIA_DOWNLOAD_ALLOW_PRIVATE: z
    .enum(['true', 'false'], { message: "must be 'true' or 'false'" })
    .default('false'),
  /** `off`: every documents/latestPublications and publications/search answer comes from Elasticsearch. */
  SEARCH_CACHE: z.enum(['on', 'off'], { message: "must be 'on' or 'off'" }).default('on'),
  /** Most memory the search answer cache keeps, in MiB. */
  SEARCH_CACHE_MB: wholeNumberOr(1, 65536, 64),
});

/** Where media bytes are kept (src/storage): a folder of this machine, or an S3-compatible bucket. */
export type MediaStorageConfig =
  | { kind: 'local'; dir: string }
  | {
      kind: 's3';
      bucket: string;
      endpoint: string | undefined;
      region: string;
      credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
      forcePathStyle: boolean;
      /** How long a write or read of the store may wait to connect, or for its next bytes (MEDIA_S3_TIMEOUT_MS). */
      timeoutMs: number;
    };

function mediaStorage(e: z.infer<typeof EnvSchema>, problems: string[]): MediaStorageConfig {
  if (e.MEDIA_S3_BUCKET === undefined) {
    if (e.MEDIA_S3_ENDPOINT !== undefined || e.MEDIA_S3_ACCESS_KEY_ID !== undefined) {
      problems.push('MEDIA_S3_BUCKET: required with MEDIA_S3_ENDPOINT or MEDIA_S3_ACCESS_KEY_ID');
    }
    return { kind: 'local', dir: resolve(e.MEDIA_STORAGE_DIR ?? packagePath('.data', 'media')) };
  }
  if ((e.MEDIA_S3_ACCESS_KEY_ID === undefined) !== (e.MEDIA_S3_SECRET_ACCESS_KEY === undefined)) {
    problems.push('MEDIA_S3_ACCESS_KEY_ID, MEDIA_S3_SECRET_ACCESS_KEY: set both or neither');
  }
  return {
    kind: 's3',
    bucket: e.MEDIA_S3_BUCKET,
    endpoint: e.MEDIA_S3_ENDPOINT,
    region: e.MEDIA_S3_REGION,
    credentials:
      e.MEDIA_S3_ACCESS_KEY_ID !== undefined && e.MEDIA_S3_SECRET_ACCESS_KEY !== undefined
        ? { accessKeyId: e.MEDIA_S3_ACCESS_KEY_ID, secretAccessKey: e.MEDIA_S3_SECRET_ACCESS_KEY }
        : undefined,
    forcePathStyle: e.MEDIA_S3_FORCE_PATH_STYLE === 'true',
    timeoutMs: e.MEDIA_S3_TIMEOUT_MS,
  };
}

export type Config = ReturnType<typeof loadConfig>;

/** The longest one webhook delivery may take: inside the import-webhook queue's expiry (600 s). */
const MAX_WEBHOOK_DELIVERY_SECONDS = 540;

export interface LoadOptions {
  /**
   * For the API and the workers: fail closed, refusing to start with no way to verify tokens (neither
   * JWT_SECRET nor JWKS_URL), or with no shared key for search cursors (neither CURSOR_SECRET nor JWT_SECRET),
   * unless BROADSHEET_INSECURE_DEV_SECRET=true says so explicitly. The CLI's commands that need no key
   * (migrate, index ...) run without one.
   */
  server?: boolean;
  /**
   * Whether this process signs and checks search cursors (the API does; the workers do not, so a JWKS_URL
   * installation runs its workers without CURSOR_SECRET). Only read when `server` is set; default true.
   */
  signsCursors?: boolean;
}

const SIZE_UNITS = ['b', 'kb', 'mb', 'gb', 'tb', 'pb'];

/** A BODY_LIMIT size in bytes, as body-parser (`bytes`) reads it: units of 1024, rounded down. */
export function sizeInBytes(size: string): number {
  const [, amount = '0', unit = 'b'] = /^(\d+(?:\.\d+)?) *([a-z]*)$/i.exec(size.trim()) ?? [];
  return Math.floor(Number(amount) * 1024 ** Math.max(0, SIZE_UNITS.indexOf(unit.toLowerCase())));
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
  if (failClosed && options.signsCursors !== false && !e.JWT_SECRET && !e.CURSOR_SECRET) {
    problems.push('CURSOR_SECRET: required in production without JWT_SECRET (it signs search cursors)');
  }
  // One delivery (all its calls and the waits between them) must end within the import-webhook queue's
  // 600 s expiry, or pg-boss would start it again while it still runs.
  const webhookSeconds =
    (e.WEBHOOK_ATTEMPTS * e.WEBHOOK_TIMEOUT_MS +
      e.WEBHOOK_RETRY_DELAY_MS * (2 ** (e.WEBHOOK_ATTEMPTS - 1) - 1)) /
    1000;
  if (webhookSeconds > MAX_WEBHOOK_DELIVERY_SECONDS) {
    problems.push(
      `WEBHOOK_ATTEMPTS, WEBHOOK_TIMEOUT_MS, WEBHOOK_RETRY_DELAY_MS: one delivery could take ` +
        `${Math.round(webhookSeconds)} s, more than ${MAX_WEBHOOK_DELIVERY_SECONDS} s; fewer attempts or shorter waits`,
    );
  }
  const storage = mediaStorage(e, problems);
  if (problems.length > 0) throw invalid(problems);
  /**
   * The HS256 key. Without JWT_SECRET it is a random key of this process, which nobody else knows: no HS256
   * token verifies against it but the ones this process signs (JWKS_URL installations, local development).
   */
  const jwtSecret = e.JWT_SECRET ?? randomBytes(32).toString('hex');
  return {
    heapGrowingPercent: e.HEAP_GROWING_PERCENT,
    http: {
      host: e.HOST,
      port: e.PORT,
      bodyLimit: e.BODY_LIMIT,
      bodyLimitBytes: sizeInBytes(e.BODY_LIMIT),
      /** How a body must arrive (middleware/body-deadline.ts). */
      bodyPace: { floorMs: e.BODY_TIMEOUT_MS, minBytesPerSecond: e.BODY_MIN_BYTES_PER_SECOND },
      publicBaseUrl: e.PUBLIC_BASE_URL,
      /** Express's `trust proxy` (TRUST_PROXY): which hops of X-Forwarded-For are proxies, so `req.ip` is the client. */
      trustProxy: e.TRUST_PROXY,
    },
    database: {
      url: e.DATABASE_URL,
      poolSize: e.DATABASE_POOL_SIZE,
      connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      poolWaitMs: e.DATABASE_POOL_WAIT_MS,
      queryTimeoutMs: e.DATABASE_QUERY_TIMEOUT_MS,
      statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    },
    elasticsearch: {
      urls: e.ELASTICSEARCH_URL,
      indexPrefix: e.ELASTICSEARCH_INDEX_PREFIX,
      replicas: e.ELASTICSEARCH_REPLICAS,
    },
    auth: {
      jwtSecret,
      /** Whether jwtSecret is the configured JWT_SECRET, the one every process of the installation shares. */
      jwtSecretConfigured: e.JWT_SECRET !== undefined,
      jwksUrl: e.JWKS_URL,
      issuer: e.JWT_ISSUER,
      audience: e.JWT_AUDIENCE,
    },
    /** Without CURSOR_SECRET or JWT_SECRET (the CLI, or the development flag): the random key of this process. */
    search: { cursorKey: deriveCursorKey(e.CURSOR_SECRET ?? jwtSecret) },
    logLevel: e.LOG_LEVEL,
    indexer: { batchSize: e.INDEXER_BATCH_SIZE },
    rateLimits: {
      defaultLimit: e.RATE_LIMIT_DEFAULT,
      /** Failed secret checks per client address and per API client id (undefined: no limit). */
      authFailures: { perAddress: e.AUTH_FAILURE_LIMIT, perClient: e.AUTH_FAILURE_LIMIT_PER_CLIENT },
    },
    metrics: { token: e.METRICS_TOKEN, workerPort: e.WORKER_METRICS_PORT },
    webhooks: {
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      attempts: e.WEBHOOK_ATTEMPTS,
      retryDelayMs: e.WEBHOOK_RETRY_DELAY_MS,
      allowPrivateAddresses: e.WEBHOOK_ALLOW_PRIVATE_ADDRESSES === 'true',
    },
    enrichment: { allowPrivateAddresses: e.ENRICHMENT_ALLOW_PRIVATE_ADDRESSES === 'true' },
    media: { storage, cacheBytes: e.MEDIA_CACHE_MB * 1024 * 1024 },
    /** POST mediaLibrary/uploads and the downloads of POST import/mediaLibrary. */
    mediaLibrary: {
      uploadMaxBytes: e.MEDIA_UPLOAD_MAX_BYTES,
      maxImagePixels: e.MEDIA_MAX_IMAGE_PIXELS,
      download: {
        maxBytes: e.MEDIA_DOWNLOAD_MAX_BYTES,
        timeoutMs: e.MEDIA_DOWNLOAD_TIMEOUT_MS,
        maxRedirects: e.MEDIA_DOWNLOAD_MAX_REDIRECTS,
        allowPrivate: e.MEDIA_DOWNLOAD_ALLOW_PRIVATE === 'true',
      },
    },
    searchCache: { enabled: e.SEARCH_CACHE === 'on', maxBytes: e.SEARCH_CACHE_MB * 1024 * 1024 },
  };
}
