import { loadConfig } from '../../src/config';
import { heapGrowingPercentOf } from '../../src/heap-growth';

const JWKS = 'https://issuer.example/.well-known/jwks.json';

/**
 * The API's and the workers' configuration (`server`: they fail closed); "production" is any such start without
 * BROADSHEET_INSECURE_DEV_SECRET=true, whatever NODE_ENV says.
 */
function configError(env: Record<string, string>): string {
  try {
    loadConfig(env, { server: true });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}

describe('loadConfig: the search cursor key', () => {
  it('when production trusts only a JWKS and has no CURSOR_SECRET, then it refuses to start naming CURSOR_SECRET', () => {
    expect(configError({ NODE_ENV: 'production', JWKS_URL: JWKS })).toBe(
      'Invalid configuration:\n  CURSOR_SECRET: required in production without JWT_SECRET (it signs search cursors)',
    );
  });

  it('when production has no secret at all, then both JWT_SECRET and CURSOR_SECRET are named', () => {
    const message = configError({ NODE_ENV: 'production' });
    expect(message).toContain('JWT_SECRET: required in production');
    expect(message).toContain('CURSOR_SECRET: required in production without JWT_SECRET');
  });

  it('when the workers (which sign no cursors) trust only a JWKS, then they start without CURSOR_SECRET', () => {
    expect(() =>
      loadConfig({ NODE_ENV: 'production', JWKS_URL: JWKS }, { server: true, signsCursors: false }),
    ).not.toThrow();
  });

  it('when CURSOR_SECRET is shorter than 16 characters, then it is refused', () => {
    expect(configError({ CURSOR_SECRET: 'short' })).toContain('CURSOR_SECRET: at least 16 characters');
  });

  it('when production has JWKS_URL and CURSOR_SECRET, or JWT_SECRET alone, then it starts', () => {
    expect(() =>
      loadConfig({ NODE_ENV: 'production', JWKS_URL: JWKS, CURSOR_SECRET: 'c'.repeat(32) }),
    ).not.toThrow();
    expect(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'j'.repeat(32) })).not.toThrow();
  });

  it.each(['development', 'test'])('when %s has no secret, then it starts with a development key', (env) => {
    expect(loadConfig({ NODE_ENV: env }).search.cursorKey).toHaveLength(32);
  });

  it('when the API is told BROADSHEET_INSECURE_DEV_SECRET=true and has no secret, then it starts with a random key of its own', () => {
    const env = { BROADSHEET_INSECURE_DEV_SECRET: 'true', JWKS_URL: JWKS };
    const first = loadConfig(env, { server: true }).search.cursorKey;
    expect(first).toHaveLength(32);
    expect(loadConfig(env, { server: true }).search.cursorKey.equals(first)).toBe(false);
  });

  it('when the API and the workers share CURSOR_SECRET, then they derive the same key (a cursor works on either)', () => {
    const env = { JWKS_URL: JWKS, CURSOR_SECRET: 'c'.repeat(32) };
    expect(
      loadConfig(env, { server: true }).search.cursorKey.equals(
        loadConfig(env, { server: true }).search.cursorKey,
      ),
    ).toBe(true);
  });

  it('when the key is derived, then it is 32 bytes from HKDF, never the secret, and follows CURSOR_SECRET over JWT_SECRET', () => {
    const jwtSecret = 'j'.repeat(32);
    const fromJwt = loadConfig({ JWT_SECRET: jwtSecret }).search.cursorKey;
    const fromCursor = loadConfig({ JWT_SECRET: jwtSecret, CURSOR_SECRET: 'c'.repeat(32) }).search.cursorKey;
    expect(fromJwt).toHaveLength(32);
    expect(fromJwt.equals(Buffer.from(jwtSecret))).toBe(false);
    expect(fromCursor.equals(fromJwt)).toBe(false);
    expect(loadConfig({ JWT_SECRET: jwtSecret }).search.cursorKey.equals(fromJwt)).toBe(true);
  });
});

describe('loadConfig: metrics, rate limits and webhooks', () => {
  const SECRET = { JWT_SECRET: 'a-secret-of-at-least-16' };

  it('when nothing is set, then no metrics token, no default rate limit, and bounded webhook calls', () => {
    const config = loadConfig(SECRET, { server: true });
    expect(config.metrics).toEqual({ token: undefined, workerPort: undefined });
    expect(config.rateLimits).toEqual({
      defaultLimit: undefined,
      authFailures: {
        perAddress: { requests: 20, periodSeconds: 60 },
        perClient: { requests: 60, periodSeconds: 60 },
      },
    });
    expect(config.webhooks).toEqual({
      timeoutMs: 10_000,
      attempts: 5,
      retryDelayMs: 2000,
      allowPrivateAddresses: false,
    });
  });

  it('when RATE_LIMIT_DEFAULT is N/period, then it is the default; when malformed, then it is named', () => {
    expect(loadConfig({ ...SECRET, RATE_LIMIT_DEFAULT: '600/minute' }).rateLimits.defaultLimit).toEqual({
      requests: 600,
      periodSeconds: 60,
    });
    expect(configError({ ...SECRET, RATE_LIMIT_DEFAULT: 'lots' })).toContain(
      "RATE_LIMIT_DEFAULT: 'lots': expected N/period",
    );
  });

  it('when METRICS_TOKEN is short, then it is refused', () => {
    expect(configError({ ...SECRET, METRICS_TOKEN: 'short' })).toContain(
      'METRICS_TOKEN: at least 16 characters',
    );
  });

  it('when one webhook delivery could outlast its queue job, then the three settings are named', () => {
    expect(
      configError({
        ...SECRET,
        WEBHOOK_ATTEMPTS: '10',
        WEBHOOK_TIMEOUT_MS: '60000',
        WEBHOOK_RETRY_DELAY_MS: '5000',
      }),
    ).toContain('WEBHOOK_ATTEMPTS, WEBHOOK_TIMEOUT_MS, WEBHOOK_RETRY_DELAY_MS: one delivery could take');
  });
});

describe('loadConfig: media storage', () => {
  it('when nothing is configured, then media bytes go to .data/media under the package root', () => {
    const { storage } = loadConfig({}).media;
    expect(storage.kind).toBe('local');
    expect(storage.kind === 'local' && storage.dir).toMatch(/\/\.data\/media$/);
  });

  it('when MEDIA_STORAGE_DIR is relative, then it is resolved from the working directory', () => {
    expect(loadConfig({ MEDIA_STORAGE_DIR: 'media-here' }).media.storage).toEqual({
      kind: 'local',
      dir: `${process.cwd()}/media-here`,
    });
  });

  it('when MEDIA_S3_BUCKET is set, then the S3 store is configured with every MEDIA_S3_ setting', () => {
    expect(
      loadConfig({
        MEDIA_S3_BUCKET: 'media',
        MEDIA_S3_ENDPOINT: 'http://127.0.0.1:9090',
        MEDIA_S3_REGION: 'eu-west-1',
        MEDIA_S3_ACCESS_KEY_ID: 'id',
        MEDIA_S3_SECRET_ACCESS_KEY: 'secret',
        MEDIA_S3_FORCE_PATH_STYLE: 'true',
        MEDIA_S3_TIMEOUT_MS: '2500',
      }).media.storage,
    ).toEqual({
      kind: 's3',
      bucket: 'media',
      endpoint: 'http://127.0.0.1:9090',
      region: 'eu-west-1',
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
      forcePathStyle: true,
      timeoutMs: 2500,
    });
    expect(loadConfig({ MEDIA_S3_BUCKET: 'media' }).media.storage).toMatchObject({
      region: 'us-east-1',
      credentials: undefined,
      forcePathStyle: false,
      timeoutMs: 10_000,
    });
    expect(loadConfig({ MEDIA_S3_BUCKET: 'media' }).media.cacheBytes).toBe(64 * 1024 * 1024);
    expect(loadConfig({ MEDIA_CACHE_MB: '8' }).media.cacheBytes).toBe(8 * 1024 * 1024);
    expect(loadConfig({ MEDIA_CACHE_MB: '0' }).media.cacheBytes).toBe(0);
  });

  it('when MEDIA_MAX_IMAGE_PIXELS is unset, then 50 megapixels; set, then that; not a positive integer, then refused', () => {
    expect(loadConfig({}).mediaLibrary.maxImagePixels).toBe(50_000_000);
    expect(loadConfig({ MEDIA_MAX_IMAGE_PIXELS: '1000000' }).mediaLibrary.maxImagePixels).toBe(1_000_000);
    expect(configError({ JWT_SECRET: 'j'.repeat(32), MEDIA_MAX_IMAGE_PIXELS: '0' })).toContain(
      'MEDIA_MAX_IMAGE_PIXELS',
    );
  });

  it('when HEAP_GROWING_PERCENT is unset, then 300; 0 leaves V8 its own choice; out of range or not a number, then refused', () => {
    expect(loadConfig({}).heapGrowingPercent).toBe(300);
    expect(loadConfig({ HEAP_GROWING_PERCENT: '0' }).heapGrowingPercent).toBe(0);
    expect(loadConfig({ HEAP_GROWING_PERCENT: '150' }).heapGrowingPercent).toBe(150);
    expect(heapGrowingPercentOf({})).toBe(300);
    expect(heapGrowingPercentOf({ HEAP_GROWING_PERCENT: '0' })).toBe(0);
    expect(heapGrowingPercentOf({ HEAP_GROWING_PERCENT: ' 150 ' })).toBe(150);
    // The CLI sets it before a command checks the configuration, which then names the bad value.
    expect(heapGrowingPercentOf({ HEAP_GROWING_PERCENT: 'lots' })).toBe(300);
    expect(heapGrowingPercentOf({ HEAP_GROWING_PERCENT: '1001' })).toBe(300);
    for (const value of ['1001', '-1', 'lots', '2.5']) {
      expect(configError({ JWT_SECRET: 'j'.repeat(32), HEAP_GROWING_PERCENT: value })).toContain(
        'HEAP_GROWING_PERCENT',
      );
    }
  });

  it('when S3 settings come without a bucket, or half the credentials, then the start is refused naming them', () => {
    expect(configError({ JWT_SECRET: 'j'.repeat(32), MEDIA_S3_ENDPOINT: 'http://127.0.0.1:9090' })).toContain(
      'MEDIA_S3_BUCKET: required with MEDIA_S3_ENDPOINT or MEDIA_S3_ACCESS_KEY_ID',
    );
    expect(
      configError({ JWT_SECRET: 'j'.repeat(32), MEDIA_S3_BUCKET: 'b', MEDIA_S3_ACCESS_KEY_ID: 'id' }),
    ).toContain('MEDIA_S3_ACCESS_KEY_ID, MEDIA_S3_SECRET_ACCESS_KEY: set both or neither');
    expect(configError({ JWT_SECRET: 'j'.repeat(32), MEDIA_S3_FORCE_PATH_STYLE: 'yes' })).toContain(
      "MEDIA_S3_FORCE_PATH_STYLE: must be 't",
    );
  });
});

describe('loadConfig: Elasticsearch nodes and replicas', () => {
  it('when ELASTICSEARCH_URL is unset, then one local node and the mapping file replicas', () => {
    const config = loadConfig({});
    expect(config.elasticsearch.urls).toEqual(['http://127.0.0.1:9200']);
    expect(config.elasticsearch.replicas).toBeUndefined();
  });

  it('when ELASTICSEARCH_URL lists nodes separated by commas, then every node is kept in order', () => {
    const config = loadConfig({ ELASTICSEARCH_URL: 'http://127.0.0.1:9201, http://127.0.0.1:9202' });
    expect(config.elasticsearch.urls).toEqual(['http://127.0.0.1:9201', 'http://127.0.0.1:9202']);
  });

  it('when one entry of ELASTICSEARCH_URL is not a URL, then the start is refused naming it', () => {
    expect(configError({ ELASTICSEARCH_URL: 'http://127.0.0.1:9201,localhost9202' })).toContain(
      'ELASTICSEARCH_URL: not a URL: localhost9202 (one URL or a comma-separated list)',
    );
    expect(configError({ ELASTICSEARCH_URL: ' , ' })).toContain(
      'ELASTICSEARCH_URL: one URL or a comma-separated list of URLs',
    );
  });

  it('when ELASTICSEARCH_REPLICAS is a number, then it is kept; when negative or not a number, then refused', () => {
    expect(loadConfig({ ELASTICSEARCH_REPLICAS: '1' }).elasticsearch.replicas).toBe(1);
    expect(configError({ ELASTICSEARCH_REPLICAS: '-1' })).toContain('ELASTICSEARCH_REPLICAS');
    expect(configError({ ELASTICSEARCH_REPLICAS: 'one' })).toContain('ELASTICSEARCH_REPLICAS');
  });
});

describe('loadConfig: BODY_LIMIT', () => {
  it('when BODY_LIMIT is a size body-parser reads, then it is kept', () => {
    expect(loadConfig({}).http.bodyLimit).toBe('5mb');
    for (const size of ['512kb', '1 MB', '1048576', '2.5mb'])
      expect(loadConfig({ BODY_LIMIT: size }).http.bodyLimit).toBe(size);
  });

  it('when BODY_LIMIT is a size, then its bytes are read as body-parser reads them (units of 1024, rounded down)', () => {
    expect(loadConfig({}).http.bodyLimitBytes).toBe(5 * 1024 * 1024);
    for (const [size, bytes] of [
      ['512kb', 512 * 1024],
      ['1 MB', 1024 * 1024],
      ['1048576', 1048576],
      ['2.5mb', 2.5 * 1024 * 1024],
      ['1.5b', 1],
      ['1gb', 1024 ** 3],
    ] as const)
      expect(loadConfig({ BODY_LIMIT: size }).http.bodyLimitBytes).toBe(bytes);
  });

  it('when BODY_LIMIT is not a size, then the start is refused naming it with the other invalid variables', () => {
    const message = configError({ BODY_LIMIT: '5 megs', PORT: 'x' });
    expect(message).toContain('BODY_LIMIT: a size such as 5mb, 512kb or 1048576 (bytes)');
    expect(message).toContain('PORT:');
    expect(configError({ BODY_LIMIT: '0' })).toContain('BODY_LIMIT: at least 1 byte');
    expect(configError({ BODY_LIMIT: '-1mb' })).toContain('BODY_LIMIT');
  });
});

describe('loadConfig: whole-number variables', () => {
  // `PORT: ${PORT}` in a compose file, or `PORT=` in an env file, with the value left out: Number('') is 0.
  it('when a number variable is set but blank, then it counts as unset: its default, or none', () => {
    const config = loadConfig({
      PORT: '',
      WORKER_METRICS_PORT: ' ',
      ELASTICSEARCH_REPLICAS: '',
      MEDIA_CACHE_MB: '',
      DATABASE_POOL_SIZE: '',
    });
    expect(config.http.port).toBe(3000);
    expect(config.metrics.workerPort).toBeUndefined();
    expect(config.elasticsearch.replicas).toBeUndefined();
    expect(config.media.cacheBytes).toBe(64 * 1024 * 1024);
    expect(config.database.poolSize).toBe(20);
  });

  it('when a number variable is hexadecimal, exponential or fractional, then the start is refused naming it', () => {
    const message = configError({ PORT: '0x50', DATABASE_POOL_SIZE: '1e1', WEBHOOK_ATTEMPTS: '2.5' });
    expect(message).toContain("PORT: a whole number (digits only), not '0x50'");
    expect(message).toContain("DATABASE_POOL_SIZE: a whole number (digits only), not '1e1'");
    expect(message).toContain("WEBHOOK_ATTEMPTS: a whole number (digits only), not '2.5'");
    expect(configError({ PORT: 'x'.repeat(10_000) })).toContain(
      `PORT: a whole number (digits only), not '${'x'.repeat(100)}…' (10000 characters)`,
    );
  });

  it('when a number variable is digits, with spaces around, then it is read; out of range, then refused', () => {
    expect(loadConfig({ PORT: ' 8080 ' }).http.port).toBe(8080);
    expect(configError({ PORT: '70000' })).toContain('PORT: at most 65535');
    expect(configError({ DATABASE_POOL_SIZE: '0' })).toContain('DATABASE_POOL_SIZE: at least 1');
  });
});

describe('loadConfig: URL schemes', () => {
  // Parsed as URLs but of the wrong kind, they stopped the start later with a message naming no variable
  // ("Invalid protocol: 'ftp:'", "no PostgreSQL user name specified in startup packet"), or not at all.
  it('when a URL variable has a scheme its client cannot use, then the start is refused naming it', () => {
    const message = configError({
      DATABASE_URL: 'mysql://127.0.0.1:3306/broadsheet',
      ELASTICSEARCH_URL: 'http://127.0.0.1:9200,ftp://127.0.0.1:9201',
      JWKS_URL: 'ftp://issuer.example/jwks.json',
      PUBLIC_BASE_URL: 'javascript:alert(1)',
      MEDIA_S3_BUCKET: 'media',
      MEDIA_S3_ENDPOINT: 'file:///tmp/s3',
    });
    expect(message).toContain('DATABASE_URL: a postgres:// or postgresql:// URL');
    expect(message).toContain('ELASTICSEARCH_URL: not an http:// or https:// URL: ftp://127.0.0.1:9201');
    expect(message).toContain('JWKS_URL: an http:// or https:// URL');
    expect(message).toContain('PUBLIC_BASE_URL: an http:// or https:// URL');
    expect(message).toContain('MEDIA_S3_ENDPOINT: an http:// or https:// URL');
  });

  it('when the URLs have the schemes their clients use, then they are kept', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgresql://u@db.example:5432/b',
      ELASTICSEARCH_URL: 'https://es1.example:9200,http://es2.example:9200',
      PUBLIC_BASE_URL: 'https://cdn.example',
    });
    expect(config.database.url).toBe('postgresql://u@db.example:5432/b');
    expect(config.elasticsearch.urls).toEqual(['https://es1.example:9200', 'http://es2.example:9200']);
    expect(config.http.publicBaseUrl).toBe('https://cdn.example');
  });
});

describe('loadConfig: TRUST_PROXY and the failed-login limits', () => {
  const SECRET = { JWT_SECRET: 'a-secret-of-at-least-16' };
  const trustProxy = (value: string | undefined) =>
    loadConfig({ ...SECRET, ...(value === undefined ? {} : { TRUST_PROXY: value }) }).http.trustProxy;

  it('when TRUST_PROXY is unset, blank, false or 0, then no proxy is trusted', () => {
    for (const value of [undefined, '', '  ', 'false', 'FALSE', '0']) expect(trustProxy(value)).toBe(false);
  });

  it('when TRUST_PROXY is a hop count or a list of addresses, CIDR ranges and named ranges, then Express gets it as such', () => {
    expect(trustProxy('1')).toBe(1);
    expect(trustProxy(' 2 ')).toBe(2);
    expect(trustProxy('10.0.0.0/8, 192.0.2.7,fd00::/8, loopback,LinkLocal,uniquelocal')).toEqual([
      '10.0.0.0/8',
      '192.0.2.7',
      'fd00::/8',
      'loopback',
      'linklocal',
      'uniquelocal',
    ]);
  });

  it('when TRUST_PROXY is true, then it is refused: any client could choose its own address', () => {
    expect(configError({ ...SECRET, TRUST_PROXY: 'true' })).toContain(
      "TRUST_PROXY: 'true' would trust every X-Forwarded-For address",
    );
  });

  it('when TRUST_PROXY is malformed, then the start fails naming it and the entry that is wrong', () => {
    expect(configError({ ...SECRET, TRUST_PROXY: 'proxy.internal' })).toContain(
      "TRUST_PROXY: 'proxy.internal' is not an IP address, a CIDR range or a named range",
    );
    expect(configError({ ...SECRET, TRUST_PROXY: '10.0.0.0/33' })).toContain(
      "TRUST_PROXY: '10.0.0.0/33': the prefix length must be 0 to 32",
    );
    expect(configError({ ...SECRET, TRUST_PROXY: 'fd00::/129' })).toContain(
      "TRUST_PROXY: 'fd00::/129': the prefix length must be 0 to 128",
    );
    expect(configError({ ...SECRET, TRUST_PROXY: '10.0.0.1,,10.0.0.2' })).toContain(
      "TRUST_PROXY: '10.0.0.1,,10.0.0.2': expected a hop count",
    );
    expect(configError({ ...SECRET, TRUST_PROXY: '99' })).toContain("TRUST_PROXY: '99': at most 10 hops");
  });

  it('when the failure limits are unset, then 20 a minute per address and 60 a minute per client; none turns one off', () => {
    expect(loadConfig(SECRET).rateLimits.authFailures).toEqual({
      perAddress: { requests: 20, periodSeconds: 60 },
      perClient: { requests: 60, periodSeconds: 60 },
    });
    expect(
      loadConfig({ ...SECRET, AUTH_FAILURE_LIMIT: '5/10m', AUTH_FAILURE_LIMIT_PER_CLIENT: 'none' }).rateLimits
        .authFailures,
    ).toEqual({ perAddress: { requests: 5, periodSeconds: 600 }, perClient: undefined });
    // Blank is unset, as for every variable (RATE_LIMIT_DEFAULT too).
    expect(
      loadConfig({ ...SECRET, AUTH_FAILURE_LIMIT: '', RATE_LIMIT_DEFAULT: ' ' }).rateLimits,
    ).toMatchObject({ defaultLimit: undefined, authFailures: { perAddress: { requests: 20 } } });
  });

  it('when a failure limit is malformed, then the start fails naming it', () => {
    expect(configError({ ...SECRET, AUTH_FAILURE_LIMIT_PER_CLIENT: '10 per minute' })).toContain(
      "AUTH_FAILURE_LIMIT_PER_CLIENT: '10 per minute': expected N/period",
    );
  });
});
