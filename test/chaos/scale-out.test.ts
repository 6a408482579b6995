import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config';
import { createContext, type AppContext } from '../../src/context';
import { createPublishedDocument } from '../helpers/documents';
import { ALL_SCOPES, createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, eventually } from '../helpers/http';
import { expectConverged, failedJobs, sleep, waitForDrainedQueues } from './convergence';

const run = promisify(execFile);

jest.setTimeout(600_000);

const SCRIPT = path.resolve('scripts/scale-out.sh');

/** Eight free consecutive loopback ports (balancer, 2 APIs, 2 ES http, 2 ES transport, stats). */
async function freePortBase(): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (let attempt = 0; attempt < 50; attempt += 1) {
    // Below Linux's ephemeral range (32768 and up): a port there can be taken by any outgoing connection
    // while a killed node is down, and the node could not bind it again.
    const base = 20_000 + Math.floor(Math.random() * 1_200) * 10;
    const checks = await Promise.all(Array.from({ length: 8 }, (_, i) => free(base + i)));
    if (checks.every(Boolean)) return base;
  }
  throw new Error('no 8 free consecutive ports found');
}

/** Counts of answers by status class, and what the non-2xx answers were. */
class Tally {
  ok = 0;
  failures: string[] = [];
  add(what: string, status: number, text: string) {
    if (status >= 200 && status < 300) this.ok += 1;
    else this.failures.push(`${new Date().toISOString()} ${what} ${status} ${text.slice(0, 200)}`);
  }
  get serverErrors() {
    return this.failures.filter((failure) => / 5\d\d /.test(failure)).length;
  }
}

/**
 * The scale-out deployment of scripts/scale-out.sh, run for real: HAProxy in front of two API processes, two
 * worker processes, a two-node Elasticsearch cluster whose index has one replica. Under searches and publishes
 * through the balancer one Elasticsearch node is SIGKILLed and started again, then one worker; a revocation
 * reaches both API processes (Postgres NOTIFY), each with the client in its cache.
 */
describe('scale-out: two APIs behind HAProxy, two workers, a two-node Elasticsearch cluster', () => {
  let dir: string;
  let scriptEnv: NodeJS.ProcessEnv;
  let base: number;
  let ctx: AppContext;
  let projectId: number;
  let token: string;
  let balancer: string;
  const documents: number[] = [];
  const figures: Record<string, unknown> = {};

  const script = async (...args: string[]) => {
    const { stdout, stderr } = await run('bash', [SCRIPT, ...args], {
      env: scriptEnv,
      maxBuffer: 10 * 1024 * 1024,
      timeout: 400_000,
    });
    return { stdout: stdout.trim(), stderr };
  };
  const esUrl = (n: 1 | 2) => `http://127.0.0.1:${base + 2 + n}`;
  const es = async (n: 1 | 2, query: string) => {
    const response = await fetch(`${esUrl(n)}${query}`, { signal: AbortSignal.timeout(40_000) });
    return await response.json();
  };

  beforeAll(async () => {
    const started = Date.now();
    dir = await mkdtemp(path.join(tmpdir(), 'broadsheet-scale-'));
    base = await freePortBase();
    const database = new URL(process.env.DATABASE_URL ?? '');
    database.pathname = `${database.pathname}_scale`;
    scriptEnv = {
      ...process.env,
      SCALE_DIR: dir,
      SCALE_PORT: String(base),
      SCALE_DATABASE_URL: database.toString(),
      SCALE_ES_HEAP: '384m',
      // Every search goes to Elasticsearch: the point is what the cluster answers while a node is gone.
      SEARCH_CACHE: 'off',
      // The test's own nodes start faster with the client compiler only (a two-core machine, many JVMs).
      SCALE_ES_JAVA_OPTS: '-XX:TieredStopAtLevel=1',
      // Small batches: a worker killed mid-run leaves jobs of its own behind for the other to take over.
      INDEXER_BATCH_SIZE: '5',
    };
    const { stdout, stderr } = await script('start');
    figures.startSeconds = (Date.now() - started) / 1000;
    figures.esNodeStart = [...stderr.matchAll(/(es\d) answers on \S+ after (\d+)s/g)].map(
      (m) => `${m[1]} ${m[2]}s`,
    );
    balancer = stdout
      .split('\n')
      .pop()!
      .replace(/\/api\/[^/]+$/, '');

    const env = Object.fromEntries(
      (await readFile(path.join(dir, 'broadsheet.env'), 'utf8'))
        .split('\n')
        .filter((line) => /^[A-Z_]+=/.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    ctx = await createContext(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
    ({ projectId } = await createTestProject(ctx));
    ({ token } = await tokenFor(ctx, projectId, ALL_SCOPES));
    for (let i = 0; i < 30; i += 1) {
      const { documentId } = await createPublishedDocument(ctx, projectId, {
        metadata: { title: `scaleout ${i}` },
      });
      documents.push(documentId);
    }
    await waitForDrainedQueues(ctx, 60_000);
  });

  afterAll(async () => {
    await ctx?.close();
    if (dir) {
      // Why a search could not be answered, as the API processes logged it (nothing when all went well).
      for (const name of ['api1', 'api2']) {
        const log = await readFile(path.join(dir, 'logs', `${name}.log`), 'utf8').catch(() => '');
        const unavailable = log.split('\n').filter((line) => line.includes('search unavailable'));
        if (unavailable.length > 0) console.warn(`${name}:\n${unavailable.join('\n')}`);
      }
      await script('stop').catch((error: unknown) => console.error(error));
      await rm(dir, { recursive: true, force: true });
    }
    console.info(`scale-out figures: ${JSON.stringify(figures)}`);
  });

  /** Searches and publishes through the balancer, in loops, until `stop()`; each answer tallied. */
  function startLoad(label: string) {
    const api = apiClient(balancer, token);
    const searches = new Tally();
    const publishes = new Tally();
    const published = new Map<number, string>();
    let running = true;
    let round = 0;
    const searcher = async () => {
      while (running) {
        const response = await api.get(`publications/search?search=scaleout&limit=50`);
        searches.add('search', response.status, response.text);
        await sleep(100);
      }
    };
    const writer = async (mine: number[]) => {
      while (running) {
        const documentId = mine[round % mine.length]!;
        round += 1;
        const title = `scaleout ${label} ${documentId} ${round}`;
        const response = await api.patch(`documents/${documentId}/commands`, {
          commands: [
            { operation: 'setMetadataProperty', propertyName: 'title', value: title },
            { operation: 'publish' },
          ],
        });
        publishes.add('publish', response.status, response.text);
        if (response.status < 300) published.set(documentId, title);
        await sleep(100);
      }
    };
    const loops = [
      searcher(),
      searcher(),
      writer(documents.filter((_, i) => i % 2 === 0)),
      writer(documents.filter((_, i) => i % 2 === 1)),
    ];
    return {
      searches,
      publishes,
      published,
      async stop() {
        running = false;
        await Promise.all(loops);
      },
    };
  }

  /** Every document searchable through the balancer, each with the title of its last publish. */
  async function expectAllSearchable(published: Map<number, string>) {
    const api = apiClient(balancer, token);
    await eventually(
      async () => {
        const response = await api.get(`publications/search?search=scaleout&limit=50`);
        if (response.status !== 200) return false;
        const results = response.body.results as {
          systemdata: { documentId: number };
          metadata: { title: string };
        }[];
        const found = new Map(results.map((item) => [item.systemdata.documentId, item.metadata.title]));
        return documents.every(
          (id) => found.has(id) && (!published.has(id) || found.get(id) === published.get(id)),
        );
      },
      30_000,
      500,
    );
  }

  it('when the Elasticsearch node with the primary (not the elected master) is SIGKILLed under load, then searches keep answering from the replica, no publish is lost, and the cluster is green again once it is back', async () => {
    type Shard = { index: string; prirep: string; node: string; state: string };
    const shardsNow = async () => (await es(1, '/_cat/shards/scale-publications?format=json')) as Shard[];
    const shards = await shardsNow();
    expect(shards.map((shard) => shard.state)).toEqual(['STARTED', 'STARTED']);
    // Two master-eligible nodes elect one master and cannot elect another without it (README, Scale-out):
    // the node that can die is the other one.
    const master = ((await es(1, '/_cat/master?format=json')) as { node: string }[])[0]!.node;
    const victim = master === 'scale-es1' ? 2 : 1;
    const survivor = victim === 1 ? 2 : 1;
    // The victim is made to hold the primary, so that the kill makes the survivor's replica take over:
    // cancelling the primary on the master's node promotes the victim's replica (and rebuilds a replica).
    if (shards.find((shard) => shard.prirep === 'p')!.node === master) {
      const response = await fetch(`${esUrl(survivor)}/_cluster/reroute?metric=none`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          commands: [{ cancel: { index: shards[0]!.index, shard: 0, node: master, allow_primary: true } }],
        }),
      });
      expect(response.status).toBe(200);
      await eventually(
        async () => {
          const now = await shardsNow();
          return (
            now.every((shard) => shard.state === 'STARTED') &&
            now.find((shard) => shard.prirep === 'p')?.node === `scale-es${victim}`
          );
        },
        60_000,
        500,
      );
    }
    figures.killedNode = `es${victim} (the primary's) at ${new Date().toISOString()}`;

    const load = startLoad('es');
    let atKill = { searches: 0, publishes: 0 };
    let outage = { searches: 0, publishes: 0 };
    let killedAt = 0;
    try {
      await sleep(3_000);
      const { stdout: pid } = await script('pid', `es${victim}`);
      process.kill(Number(pid), 'SIGKILL');
      killedAt = Date.now();
      atKill = { searches: load.searches.ok, publishes: load.publishes.ok };
      // The survivor's replica is promoted and is the only copy: yellow.
      await eventually(
        async () => {
          const health = (await es(survivor, '/_cluster/health?timeout=5s')) as { status: string };
          return health.status === 'yellow';
        },
        60_000,
        500,
      );
      figures.yellowAfterKillSeconds = (Date.now() - killedAt) / 1000;
      await sleep(3_000);
      outage = { searches: load.searches.ok, publishes: load.publishes.ok };
      const restartedAt = Date.now();
      await script('restart', `es${victim}`);
      figures.esNodeRestartSeconds = (Date.now() - restartedAt) / 1000;
      await eventually(
        async () => {
          const health = (await es(survivor, '/_cluster/health?wait_for_status=green&timeout=10s')) as {
            status: string;
            number_of_nodes: number;
          };
          return health.status === 'green' && health.number_of_nodes === 2;
        },
        120_000,
        1_000,
      );
      figures.greenAfterKillSeconds = (Date.now() - killedAt) / 1000;
    } finally {
      await load.stop();
    }
    figures.esPhase = {
      searches: load.searches.ok,
      publishes: load.publishes.ok,
      atKill,
      beforeRestart: outage,
      failures: load.searches.failures.length + load.publishes.failures.length,
      serverErrors: load.searches.serverErrors + load.publishes.serverErrors,
    };

    // Not one answer but 2xx: searches from the copy left, publishes into Postgres (indexed when they can be).
    expect(load.searches.failures).toEqual([]);
    expect(load.publishes.failures).toEqual([]);
    // And the load did go on while the node was gone.
    expect(outage.searches).toBeGreaterThan(atKill.searches);
    expect(outage.publishes).toBeGreaterThan(atKill.publishes);
    await waitForDrainedQueues(ctx, 120_000);
    expect(await failedJobs(ctx)).toBe(0);
    await expectConverged(ctx, projectId, { published: documents, unpublished: [] });
    await expectAllSearchable(load.published);
    const settings = (await es(survivor, '/scale-publications/_settings?flat_settings=true')) as Record<
      string,
      { settings: Record<string, string> }
    >;
    expect(Object.values(settings)[0]!.settings['index.number_of_replicas']).toBe('1');
  });

  it('when one worker is SIGKILLed while publishes go on, then the other drains the queue and every publish is searchable', async () => {
    const load = startLoad('worker');
    try {
      await sleep(2_000);
      const { stdout: pid } = await script('pid', 'worker1');
      process.kill(Number(pid), 'SIGKILL');
      await sleep(4_000);
    } finally {
      await load.stop();
    }
    const drained = await waitForDrainedQueues(ctx, 120_000);
    figures.workerPhase = {
      searches: load.searches.ok,
      publishes: load.publishes.ok,
      failures: load.searches.failures.length + load.publishes.failures.length,
      drainedAfterStopSeconds: drained / 1000,
    };
    expect(load.searches.failures).toEqual([]);
    expect(load.publishes.failures).toEqual([]);
    expect(load.publishes.ok).toBeGreaterThan(0);
    expect(await failedJobs(ctx)).toBe(0);
    await expectConverged(ctx, projectId, { published: documents, unpublished: [] });
    await expectAllSearchable(load.published);
    const { stdout: status } = await script('status');
    expect(status).toContain('worker1 stopped');
    expect(status).toContain('worker2 running');
  });

  it('when a client is revoked (broadsheet client revoke), then both API processes refuse its token within a second', async () => {
    const { token: doomed, clientId } = await tokenFor(ctx, projectId, ALL_SCOPES);
    const api1 = apiClient(`http://127.0.0.1:${base + 1}`, doomed);
    const api2 = apiClient(`http://127.0.0.1:${base + 2}`, doomed);
    // Both processes have the client in their caches.
    for (const api of [api1, api2, api1, api2]) {
      expect((await api.get('publications/search?search=scaleout&limit=1')).status).toBe(200);
    }
    await run(
      path.resolve('node_modules/.bin/node'),
      [
        `--env-file=${path.join(dir, 'broadsheet.env')}`,
        'dist/src/cli/main.js',
        'client',
        'revoke',
        clientId,
      ],
      { env: { PATH: process.env.PATH } },
    );
    const revokedAt = Date.now();
    let refusedAfter = -1;
    while (Date.now() - revokedAt <= 1_000) {
      const response = await api2.get('publications/search?search=scaleout&limit=1');
      if (response.status === 401) {
        refusedAfter = Date.now() - revokedAt;
        break;
      }
      await sleep(20);
    }
    figures.revokedRefusedByApi2AfterMs = refusedAfter;
    expect(refusedAfter).toBeGreaterThanOrEqual(0);
    expect((await api1.get('publications/search?search=scaleout&limit=1')).status).toBe(401);
  });
});
