import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { ensureDatabase, migrate } from '../../src/db/migrate';

/**
 * One throwaway Postgres database and one Elasticsearch index prefix per test run, on real servers:
 * DATABASE_URL / ELASTICSEARCH_URL when given; otherwise testcontainers when a Docker engine answers;
 * otherwise the project's own scripts/services.sh (local Postgres, Elasticsearch and s3mock from Maven Central).
 */
export default async function globalSetup(): Promise<void> {
  // Jest loads the ESM-only pg-boss and node-pg-migrate through its vm modules; only the test scripts set it.
  if (
    !`${process.env.NODE_OPTIONS ?? ''} ${process.execArgv.join(' ')}`.includes('--experimental-vm-modules')
  ) {
    throw new Error(
      'run the integration tests through npm (npm run test:integration -- <files>), or set ' +
        'NODE_OPTIONS=--experimental-vm-modules: jest needs it to load pg-boss and node-pg-migrate',
    );
  }
  buildDist();
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl && !process.env.ELASTICSEARCH_URL && dockerAnswers()) {
    await startContainers();
    adminUrl = process.env.DATABASE_URL;
  } else {
    const services = spawnSync('bash', ['scripts/services.sh'], { stdio: 'inherit' });
    if (services.status !== 0)
      throw new Error('scripts/services.sh failed: Postgres or Elasticsearch is not available');
  }
  const base = new URL(adminUrl ?? 'postgres://postgres@127.0.0.1:5432/broadsheet');
  base.pathname = `/broadsheet_test_${runId}`;
  const databaseUrl = base.toString();
  await ensureDatabase(databaseUrl);
  await migrate(databaseUrl);
  process.env.DATABASE_URL = databaseUrl;
  process.env.ELASTICSEARCH_URL ??= 'http://127.0.0.1:9200';
  // The S3-compatible server the S3 media store's tests use (test/helpers/object-stores.ts).
  process.env.S3MOCK_URL ??= `http://127.0.0.1:${process.env.S3MOCK_PORT ?? '9090'}`;
  process.env.ELASTICSEARCH_INDEX_PREFIX = `bs-test-${runId}`;
  process.env.LOG_LEVEL ??= 'silent';
  process.env.BROADSHEET_TEST_RUN = runId;
  // The run's own key: the app in-process, the CLI the tests spawn and the tokens they sign all use it.
  process.env.JWT_SECRET = randomBytes(32).toString('hex');
}

/**
 * The compiled programs the tests spawn as an operator runs them (test/helpers/compiled.ts), brought up to date
 * with the sources: `npm run build`'s incremental tsc, about two seconds when nothing changed (npm test's
 * checks have built it already).
 */
function buildDist(): void {
  const build = spawnSync(
    process.execPath,
    ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'],
    {
      encoding: 'utf8',
    },
  );
  if (build.status !== 0) {
    throw new Error(
      `npm run build failed, so the tests cannot run the compiled programs:\n${build.stdout}${build.stderr}`,
    );
  }
}

function dockerAnswers(): boolean {
  if (!process.env.DOCKER_HOST && !existsSync('/var/run/docker.sock')) return false;
  const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { timeout: 5000 });
  return info.status === 0;
}

async function startContainers(): Promise<void> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const postgres = await new GenericContainer('postgres:15')
    .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/ready to accept connections/, 2))
    .start();
  const elasticsearch = await new GenericContainer('docker.elastic.co/elasticsearch/elasticsearch:9.5.4')
    .withEnvironment({
      'discovery.type': 'single-node',
      'xpack.security.enabled': 'false',
      ES_JAVA_OPTS: '-Xms1g -Xmx1g',
    })
    .withExposedPorts(9200)
    .withWaitStrategy(Wait.forHttp('/_cluster/health', 9200).forStatusCode(200))
    .withStartupTimeout(180_000)
    .start();
  process.env.DATABASE_URL = `postgres://postgres@${postgres.getHost()}:${postgres.getMappedPort(5432)}/postgres`;
  const s3mock = await new GenericContainer('adobe/s3mock:5.2.0')
    .withExposedPorts(9090)
    .withWaitStrategy(Wait.forHttp('/', 9090).forStatusCode(200))
    .withStartupTimeout(180_000)
    .start();
  process.env.ELASTICSEARCH_URL = `http://${elasticsearch.getHost()}:${elasticsearch.getMappedPort(9200)}`;
  process.env.S3MOCK_URL = `http://${s3mock.getHost()}:${s3mock.getMappedPort(9090)}`;
  // testcontainers' reaper removes them all when the run ends.
}
