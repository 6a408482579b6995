import { randomBytes } from 'node:crypto';
import type { JobWithMetadata } from 'pg-boss';
import { loadConfig } from '../../src/config';
import { createContext, type AppContext } from '../../src/context';
import { QUEUES } from '../../src/jobs/queues';
import { ensurePublicationsIndex } from '../../src/search/index-aliases';
import { startWorkers } from '../../workers/main';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument } from '../helpers/documents';
import { ALL_SCOPES, createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, eventually } from '../helpers/http';

jest.setTimeout(90_000);

const BATCH = 5;
const FETCHES = 6;
const IMPORTS = 10;

/**
 * The median wait between one fetch's end and the next fetch, over a queue's jobs (the jobs of one fetch share
 * its startedOn): a poll without bursting (2 s while notifications are up), near nothing with it. The median,
 * so one fetch delayed by the suite's load, or the first fetches before pg-boss counts the backlog, do not
 * decide it.
 */
function medianWaitBetweenFetches(jobs: readonly JobWithMetadata<unknown>[]): {
  fetches: number;
  medianWaitMs: number;
} {
  const fetches = new Map<number, { started: number; completed: number }>();
  for (const job of jobs) {
    const started = job.startedOn.getTime();
    const fetch = fetches.get(started) ?? { started, completed: 0 };
    fetch.completed = Math.max(fetch.completed, job.completedOn!.getTime());
    fetches.set(started, fetch);
  }
  const ordered = [...fetches.values()].sort((x, y) => x.started - y.started);
  const waits = ordered
    .slice(1)
    .map((fetch, i) => fetch.started - ordered[i]!.completed)
    .sort((x, y) => x - y);
  return { fetches: ordered.length, medianWaitMs: waits[Math.floor(waits.length / 2)]! };
}

/**
 * Backlogs (after a search outage, or while the workers were down, or a morning's imports) are taken fetch
 * after fetch, not one fetch per poll: a worker woken by notifications polls only every 2 s, which drained
 * ~100 index jobs a second at batches of 200, and one import every 2 s. Each test queues its jobs with no
 * worker running, then starts the worker process's own registration (workers/main.ts) on a supervising
 * context, as `npm run workers` does. A database of its own, so its queues hold only this file's jobs.
 */
describe('queue backlogs', () => {
  let app: TestApp;
  let workers: AppContext | undefined;
  let env: Record<string, string>;

  const startTheWorkers = async () => {
    workers = await createContext(loadConfig({ ...process.env, ...env }), {
      supervise: true,
      role: 'workers',
    });
    await startWorkers(workers);
  };
  const stopTheWorkers = async () => {
    await workers?.close();
    workers = undefined;
  };

  beforeAll(async () => {
    env = { ...(await isolatedEnv('backlog')), INDEXER_BATCH_SIZE: String(BATCH) };
    app = await startTestApp({ env });
    await ensurePublicationsIndex(app.ctx.search, app.ctx.index);
  });
  afterEach(stopTheWorkers);
  afterAll(async () => {
    await app.close();
  });

  it('when more index jobs wait than a batch holds, then the workers take the next batch as soon as one is done, and every document becomes searchable', async () => {
    const { projectId } = await createTestProject(app.ctx);
    const api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
    const term = `w${randomBytes(5).toString('hex')}`;
    const ids: number[] = [];
    for (let i = 0; i < BATCH * FETCHES; i += 1) {
      const { documentId } = await createPublishedDocument(app.ctx, projectId, {
        metadata: { title: `Backlog ${term} ${i}` },
      });
      ids.push(documentId);
    }

    await startTheWorkers();
    const found = async () => {
      const response = await api.get(`publications/search?search=${term}&fields=id&limit=100`);
      expect(response.status).toBe(200);
      return (response.body.results as { documentId: number }[]).map((item) => item.documentId).sort();
    };
    await eventually(async () => (await found()).length === ids.length, 30_000, 200);
    expect(await found()).toEqual([...ids].sort());

    const jobs = await app.ctx.boss.findJobs(QUEUES.indexDocument.name, { data: { projectId } });
    expect(jobs).toHaveLength(ids.length);
    expect(jobs.every((job) => job.state === 'completed')).toBe(true);
    const { fetches, medianWaitMs } = medianWaitBetweenFetches(jobs);
    expect(fetches).toBe(FETCHES);
    expect(medianWaitMs).toBeLessThan(250);
  });

  it('when imports wait, one job per fetch, then the workers take the next as soon as one is done, and every import finishes', async () => {
    const { projectId } = await createTestProject(app.ctx);
    const api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ALL_SCOPES)).token);
    const started: string[] = [];
    for (let i = 0; i < IMPORTS; i += 1) {
      const response = await api.post('import/documents', {
        systemName: 'backlog',
        documents: [
          { id: `backlog-${i}`, contentType: 'regular', metadata: { title: `Backlog import ${i}` } },
        ],
      });
      expect(response.status).toBe(200);
      started.push(response.body.id as string);
    }

    await startTheWorkers();
    for (const id of started) {
      await eventually(
        async () => (await api.get(`import/documents/status?id=${id}`)).body?.finished === true,
        60_000,
        200,
      );
    }

    const jobs = (await app.ctx.boss.findJobs(QUEUES.importDocuments.name)).filter((job) =>
      started.includes((job.data as { importJobId: string }).importJobId),
    );
    expect(jobs).toHaveLength(IMPORTS);
    expect(jobs.every((job) => job.state === 'completed')).toBe(true);
    const { fetches, medianWaitMs } = medianWaitBetweenFetches(jobs);
    expect(fetches).toBe(IMPORTS);
    expect(medianWaitMs).toBeLessThan(250);
  });
});
