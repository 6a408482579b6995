import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config';
import { createContext, type AppContext } from '../../src/context';
import { QUEUES } from '../../src/jobs/queues';
import { ensurePublicationsIndex } from '../../src/search/index-aliases';
import { startWorkers } from '../../workers/main';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument } from '../helpers/documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, eventually } from '../helpers/http';

jest.setTimeout(60_000);

const BATCH = 5;
const FETCHES = 6;

/**
 * A backlog of publish index jobs (after a search outage, or while the workers were down) is taken fetch after
 * fetch, not one fetch per poll: a worker woken by notifications polls only every 2 s, which at batches of
 * 200 drained ~100 jobs/s. A database of its own, so its queue holds only this file's jobs.
 */
describe('a backlog of index-document jobs', () => {
  let app: TestApp;
  let workers: AppContext | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    env = { ...(await isolatedEnv('backlog')), INDEXER_BATCH_SIZE: String(BATCH) };
    app = await startTestApp({ env });
    await ensurePublicationsIndex(app.ctx.search, app.ctx.index);
  });
  afterAll(async () => {
    await workers?.close();
    await app.close();
  });

  it('when more jobs wait than a batch holds, then the workers take the next batch as soon as one is done, and every document becomes searchable', async () => {
    const { projectId } = await createTestProject(app.ctx);
    const api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
    const term = `w${randomBytes(5).toString('hex')}`;
    // Published while no worker runs: the jobs wait, as after an outage.
    const ids: number[] = [];
    for (let i = 0; i < BATCH * FETCHES; i += 1) {
      ids.push(
        (await createPublishedDocument(app.ctx, projectId, { metadata: { title: `Backlog ${term} ${i}` } }))
          .documentId,
      );
    }

    // The worker process's own registration (workers/main.ts), with its batch size.
    workers = await createContext(loadConfig({ ...process.env, ...env }), {
      supervise: true,
      role: 'workers',
    });
    await startWorkers(workers);
    const found = async () => {
      const response = await api.get(`publications/search?search=${term}&fields=id&limit=100`);
      expect(response.status).toBe(200);
      return (response.body.results as { documentId: number }[]).map((item) => item.documentId).sort();
    };
    await eventually(async () => (await found()).length === ids.length, 30_000, 200);
    expect(await found()).toEqual([...ids].sort());

    // Each fetch's jobs share its startedOn; the time from one fetch's completion to the next fetch is the
    // wait between them: a poll (0.5 s, or 2 s while notifications are up) without bursting, near nothing with it.
    const jobs = await app.ctx.boss.findJobs(QUEUES.indexDocument.name, { data: { projectId } });
    expect(jobs).toHaveLength(ids.length);
    expect(jobs.every((job) => job.state === 'completed')).toBe(true);
    const fetches = new Map<number, { started: number; completed: number }>();
    for (const job of jobs) {
      const started = job.startedOn.getTime();
      const fetch = fetches.get(started) ?? { started, completed: 0 };
      fetch.completed = Math.max(fetch.completed, job.completedOn!.getTime());
      fetches.set(started, fetch);
    }
    const ordered = [...fetches.values()].sort((x, y) => x.started - y.started);
    expect(ordered).toHaveLength(FETCHES);
    const waits = ordered
      .slice(1)
      .map((fetch, i) => fetch.started - ordered[i]!.completed)
      .sort((x, y) => x - y);
    // The median wait, so one fetch delayed by the suite's load does not decide it.
    expect(waits[Math.floor(waits.length / 2)]).toBeLessThan(250);
  });
});
