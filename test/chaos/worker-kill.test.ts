import type { ChildProcess } from 'node:child_process';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument } from '../helpers/documents';
import { ALL_SCOPES, createTestProject, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';
import {
  expectConverged,
  failedJobs,
  inParallel,
  killHard,
  sleep,
  startWorkerProcess,
  waitForDrainedQueues,
} from './convergence';
import { QUEUES } from '../../src/jobs/queues';

jest.setTimeout(240_000);

/**
 * The worker process SIGKILLed in the middle of an index batch while 200 publishes and unpublishes go on
 * through the API; a new worker process is started afterwards. Its jobs left `active` expire (15 s) and are
 * retried, and the index converges with Postgres exactly. A database of its own, so only its workers take
 * these jobs.
 */
describe('when the worker process is killed mid-batch during 200 publishes and unpublishes', () => {
  let app: TestApp;
  let env: Record<string, string>;
  let projectId: number;
  const children: ChildProcess[] = [];
  const documents: number[] = [];

  beforeAll(async () => {
    env = await isolatedEnv('chaos_kill');
    app = await startTestApp({ env });
    ({ projectId } = await createTestProject(app.ctx));
    for (let i = 0; i < 50; i += 1) {
      documents.push(
        (await createPublishedDocument(app.ctx, projectId, { metadata: { title: `kill ${i}` } })).documentId,
      );
    }
    // Small batches, so that a kill lands in the middle of one with others still queued.
    children.push(await startWorkerProcess({ ...env, INDEXER_BATCH_SIZE: '10' }));
    await waitForDrainedQueues(app.ctx, 60_000);
  });
  afterAll(async () => {
    for (const child of children) await killHard(child);
    await app.close();
  });

  it('then after a restart the index converges: nothing lost, nothing resurrected', async () => {
    const api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ALL_SCOPES)).token);
    const published = new Set(documents);
    // 200 commands, 4 per document in turn; each writer keeps to its own documents.
    const plan = Array.from({ length: 200 }, (_, i) => documents[i % documents.length]!);
    const byWriter = [0, 1, 2, 3].map((w) => plan.filter((id) => documents.indexOf(id) % 4 === w));
    let done = 0;
    let killedWithActiveJobs = -1;
    const statuses: number[] = [];
    const killer = (async () => {
      while (done < 60) await sleep(20);
      // Kill at the first moment index jobs are in the worker's hands (or after 5 s of trying).
      const deadline = Date.now() + 5_000;
      let active = 0;
      while (Date.now() < deadline) {
        const { rows } = await app.ctx.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state = 'active'`,
          [QUEUES.indexDocument.name],
        );
        active = rows[0]?.n ?? 0;
        if (active > 0) break;
        await sleep(10);
      }
      await killHard(children[0]!);
      killedWithActiveJobs = active;
    })();
    await Promise.all(
      byWriter.map((ids) =>
        inParallel(ids, 1, async (documentId, round) => {
          const operation = published.has(documentId) ? 'unpublish' : 'publish';
          const response = await api.patch(`documents/${documentId}/commands`, {
            commands: [
              {
                operation: 'setMetadataProperty',
                propertyName: 'title',
                value: `kill ${documentId} ${round}`,
              },
              { operation },
            ],
          });
          statuses.push(response.status);
          if (response.status < 300) {
            if (operation === 'publish') published.add(documentId);
            else published.delete(documentId);
          }
          done += 1;
        }),
      ),
    );
    await killer;
    expect(statuses.filter((status) => status >= 300)).toEqual([]);
    expect(statuses).toHaveLength(200);
    expect(killedWithActiveJobs).toBeGreaterThan(0);

    children.push(await startWorkerProcess(env));
    await waitForDrainedQueues(app.ctx, 90_000);
    expect(await failedJobs(app.ctx)).toBe(0);
    await expectConverged(app.ctx, projectId, {
      published,
      unpublished: documents.filter((id) => !published.has(id)),
    });
  });
});
