import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { startBoss } from '../../src/jobs/boss';
import { QUEUES } from '../../src/jobs/queues';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument } from '../helpers/documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, eventually } from '../helpers/http';
import { killHard, startWorkerProcess } from '../helpers/worker-process';

jest.setTimeout(120_000);

/**
 * A worker killed (SIGKILL) in the middle of index jobs left them `active` for pg-boss's default expiry of
 * 15 minutes, and a restarted worker did not take them: the documents stayed out of search all that time.
 * A database of its own, so no other file's worker takes these jobs.
 */
describe('worker crash during indexing', () => {
  let app: TestApp;
  let env: Record<string, string>;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    env = await isolatedEnv('crash');
    app = await startTestApp({ env });
  });
  afterAll(async () => {
    for (const child of children) await killHard(child);
    await app.close();
  });

  it('when the worker is killed with index jobs in hand, then a restarted worker makes the documents searchable within seconds', async () => {
    const { projectId } = await createTestProject(app.ctx);
    const api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
    const term = `crash${randomBytes(4).toString('hex')}`;
    const published: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      const { documentId } = await createPublishedDocument(app.ctx, projectId, {
        metadata: { title: `${term} ${i}` },
      });
      published.push(documentId);
    }
    const jobs = () => app.ctx.boss.findJobs(QUEUES.indexDocument.name, { data: { projectId } });

    // Hold the worker inside its jobs: reading the project's config (which every index batch does) waits
    // for this lock, so the jobs are claimed (active) and the handler is mid-work when the process dies.
    const lock = await app.ctx.pool.connect();
    try {
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE projects IN ACCESS EXCLUSIVE MODE');
      const first = await startWorkerProcess(env);
      children.push(first);
      await eventually(async () => {
        const states = (await jobs()).map((job) => job.state);
        return states.length === published.length && states.every((state) => state === 'active');
      }, 20_000);
      await killHard(first);
    } finally {
      await lock.query('ROLLBACK');
      lock.release();
    }
    expect((await jobs()).every((job) => job.state === 'active')).toBe(true);

    const restarted = Date.now();
    children.push(await startWorkerProcess(env));
    const searchable = async () => {
      const response = await api.get(`publications/search?search=${term}&fields=id&limit=100`);
      return response.status === 200 && response.body.results.length === published.length;
    };
    await eventually(searchable, 40_000, 250);
    // Each job expires 15 s after it was claimed; the restarted worker's monitor runs every 2 s.
    expect(Date.now() - restarted).toBeLessThan(30_000);
    const settled = await jobs();
    expect(settled.every((job) => job.state === 'completed' && job.retryCount === 1)).toBe(true);
  });

  it('when the queues were made by an older release (15-minute expiry), then starting brings them to their options', async () => {
    const { name } = QUEUES.indexDocument;
    await app.ctx.boss.updateQueue(name, { expireInSeconds: 900, notify: false });
    await app.ctx.boss.updateQueue(QUEUES.importDocuments.name, { heartbeatSeconds: null });
    const boss = await startBoss(env.DATABASE_URL!);
    try {
      expect(await boss.getQueue(name)).toMatchObject({ expireInSeconds: 15, notify: true, retryLimit: 10 });
      expect(await boss.getQueue(QUEUES.importDocuments.name)).toMatchObject({
        expireInSeconds: 600,
        heartbeatSeconds: 10,
      });
    } finally {
      await boss.stop({ graceful: false });
    }
  });
});
