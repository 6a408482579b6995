import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config';
import { createContext, type AppContext } from '../../src/context';
import { QUEUES } from '../../src/jobs/queues';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { rebuildIndex } from '../../src/search/index-manager';
import { createPublishedDocument, republishDocument, startIndexWorker } from '../helpers/documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, eventually } from '../helpers/http';
import { nestedArrays } from '../helpers/json';
import { CLI_SCRIPT, NODE } from '../helpers/compiled';

jest.setTimeout(60_000);

const run = promisify(execFile);

/** Metadata nested deeper than Elasticsearch parses (1,000 levels), as data written before the limits was. */
const tooDeepForElasticsearch = () => ({ title: 'Never searchable', deep: nestedArrays(1200) });

/**
 * What an operator sees of the index: permanent refusals recorded and shown by `index status` and `index
 * verify`, and queue counts that are current. A database and an alias of its own: the queue counts are
 * this file's alone.
 */
describe('index operations: refusals and queue status', () => {
  let app: TestApp;
  let workers: AppContext | undefined;
  let env: Record<string, string>;
  let projectId: number;
  let api: ReturnType<typeof apiClient>;
  const word = () => `w${randomBytes(5).toString('hex')}`;

  const cli = async (...args: string[]) =>
    run(NODE, [CLI_SCRIPT, ...args], {
      env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
      timeout: 60_000,
    });
  /** A command expected to fail: its exit code and output (a success fails the test). */
  const cliFailing = async (...args: string[]) =>
    cli(...args).then(
      () => {
        throw new Error(`${args.join(' ')} should exit non-zero`);
      },
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
  const status = async () => JSON.parse((await cli('index', 'status')).stdout);
  const found = async (term: string) => {
    const response = await api.get(`publications/search?search=${term}&fields=id&limit=100`);
    expect(response.status).toBe(200);
    return (response.body.results as { documentId: number }[]).map((item) => item.documentId);
  };
  const jobsOf = (documentId: number) =>
    app.ctx.boss.findJobs(QUEUES.indexDocument.name, { data: { projectId, documentId } });

  beforeAll(async () => {
    env = await isolatedEnv('ops');
    app = await startTestApp({ env });
    projectId = (await createTestProject(app.ctx)).projectId;
    api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
  });
  afterAll(async () => {
    await workers?.close();
    await app.close();
  });

  it('when index jobs ran since the last status, then status counts the queue as it is now, not as it was', async () => {
    const term = word();
    const published = [];
    for (let i = 0; i < 3; i += 1) {
      published.push(
        await createPublishedDocument(app.ctx, projectId, { metadata: { title: `${term} ${i}` } }),
      );
    }
    const before = await status();
    expect(before.queue).toMatchObject({ queued: 3, ready: 3, deferred: 0, active: 0 });

    // Workers as `npm run workers` runs them: supervising, so pg-boss's monitor keeps the counts current.
    workers = await createContext(loadConfig({ ...process.env, ...env }), { supervise: true });
    await startIndexWorker(workers);
    await eventually(async () => (await found(term)).length === 3, 10_000, 100);
    // The supervising monitor counts every 2 s (SUPERVISE_INTERVAL_SECONDS), and the jobs may finish just after
    // a count: within a few seconds of the last job, status shows the queue drained.
    let after = await status();
    await eventually(
      async () => {
        after = await status();
        return after.queue.queued === 0 && after.queue.active === 0;
      },
      6_000,
      200,
    );
    expect(after.queue).toMatchObject({ queued: 0, ready: 0, deferred: 0, active: 0, failed: 0 });
    expect(Date.now() - Date.parse(after.queue.countedAt)).toBeLessThan(10_000);
    expect(after.oldestPendingJobSeconds).toBeNull();
    expect(after.lag).toBe(0);
  });

  describe('when Elasticsearch refuses a published document for good', () => {
    let documentId: number;

    beforeAll(async () => {
      ({ documentId } = await createPublishedDocument(app.ctx, projectId, {
        metadata: tooDeepForElasticsearch(),
      }));
      await eventually(
        async () => (await jobsOf(documentId)).every((job) => job.state === 'completed'),
        10_000,
        100,
      );
    });

    it('then its job completes at the first attempt instead of retrying a permanent error', async () => {
      const jobs = await jobsOf(documentId);
      expect(jobs.map((job) => [job.state, job.retryCount])).toEqual([['completed', 0]]);
    });

    it('then index status counts it and names the document and the reason', async () => {
      const { rejected } = await status();
      expect(rejected.count).toBe(1);
      expect(rejected.latest).toEqual([
        {
          projectId,
          documentId,
          indexVersion: expect.any(Number),
          reason: expect.stringMatching(/depth|nest/i),
          rejectedAt: expect.any(String),
        },
      ]);
    });

    it('then index verify lists it apart from the missing documents and exits non-zero', async () => {
      const verify = await cliFailing('index', 'verify');
      expect(verify.code).toBe(1);
      expect(verify.stdout).toContain('missing from the index: 0');
      expect(verify.stdout).toMatch(
        new RegExp(`refused by Elasticsearch: 1 ${projectId}:${documentId} \\(.+\\)`),
      );
    });

    it('then index verify --repair tries it again, says it is still refused, and exits non-zero', async () => {
      const repair = await cliFailing('index', 'verify', '--repair');
      expect(repair.code).toBe(1);
      expect(repair.stdout).toContain('still drifting after the repair: 0');
      expect(repair.stdout).toMatch(
        new RegExp(`still refused by Elasticsearch after the repair: 1 ${projectId}:${documentId} \\(.+\\)`),
      );
    });

    it('then index rebuild swaps the alias to its new index and exits 2 saying one was rejected, apart from the 1 of a rebuild that failed', async () => {
      // It exited 1, as a rebuild that failed and left the live index as it was does: a script took a done
      // rebuild for a failed one (and ran it again, to the same end).
      const before = await status();
      const rebuild = await cliFailing('index', 'rebuild');
      expect(rebuild.code).toBe(2);
      expect(rebuild.stderr).toMatch(/ documents, 1 rejected, /);
      // Its stderr is no terminal: the count is said in plain lines (the bar was drawn only on a terminal, so a
      // log file had nothing between the first line and the last).
      expect(rebuild.stderr).toMatch(/^rebuild: [1-9]\d*\/[1-9]\d*$/m);
      expect(rebuild.stderr).not.toContain('\r');
      const after = await status();
      expect(after.indices).toHaveLength(1);
      expect(after.indices).not.toEqual(before.indices);
      expect(after.rejected.count).toBe(1);
    });

    it('then a later successful index of the document clears the refusal', async () => {
      const term = word();
      await republishDocument(app.ctx, projectId, documentId, { title: `Fixed ${term}` });
      await eventually(async () => (await found(term)).includes(documentId), 10_000, 100);
      const { rejected } = await status();
      expect(rejected).toEqual({ count: 0, latest: [] });
    });
  });
  it('when index rebuild is given a batch size that is not a whole number from 1 to 10000, then it refuses naming --batch-size and the live index stays', async () => {
    const term = word();
    const { documentId } = await createPublishedDocument(app.ctx, projectId, { metadata: { title: term } });
    await eventually(async () => (await found(term)).includes(documentId), 10_000, 100);
    const physical = async () =>
      Object.keys(await app.ctx.search.indices.get({ index: `${env.ELASTICSEARCH_INDEX_PREFIX}-*` })).sort();
    const before = { indices: await physical(), status: await status() };
    // 0 read pages of nothing and swapped an empty index in; abc and -5 failed with Postgres's own errors.
    for (const batchSize of ['0', 'abc', '-5', '1.5', '10001']) {
      await expect(cli('index', 'rebuild', '--batch-size', batchSize)).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/--batch-size.*must be a whole number from 1 to 10000/),
      });
    }
    // The use case refuses it too, before it creates an index.
    await expect(
      rebuildIndex({ db: app.ctx.pool, search: app.ctx.search, index: app.ctx.index }, { batchSize: 0 }),
    ).rejects.toThrow('must be a whole number from 1 to 10000');
    expect(await physical()).toEqual(before.indices);
    const after = await status();
    expect(after.indices).toEqual(before.status.indices);
    expect(after.indexedCount).toBe(before.status.indexedCount);
    expect(await found(term)).toContain(documentId);
  });
  it('when a rebuild is stopped midway, then its half-built index is dropped and live writes reach only the live index', async () => {
    for (let i = 0; i < 3; i += 1) {
      await createPublishedDocument(app.ctx, projectId, { metadata: { title: `${word()} ${i}` } });
    }
    const physical = async () =>
      Object.keys(await app.ctx.search.indices.get({ index: `${env.ELASTICSEARCH_INDEX_PREFIX}-*` })).sort();
    const before = { indices: await physical(), status: await status() };
    const stop = new AbortController();
    let target: string | undefined;
    await expect(
      rebuildIndex(
        { db: app.ctx.pool, search: app.ctx.search, index: app.ctx.index },
        {
          batchSize: 1,
          signal: stop.signal,
          onStart: (_total, name) => {
            target = name;
          },
          // Ctrl-C after the first page: the CLI aborts the same way.
          onProgress: () => stop.abort(),
        },
      ),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(target).toBeDefined();
    // Left behind the rebuilding alias, it took every live write from then on.
    expect(await physical()).toEqual(before.indices);
    const after = await status();
    expect(after.rebuilding).toEqual([]);
    expect(after.indices).toEqual(before.status.indices);
  });
});
