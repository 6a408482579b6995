import { QUEUES } from '../../src/jobs/queues';
import { killHard } from '../helpers/worker-process';
import { convergenceScenario, inParallel, sleep } from './convergence';

jest.setTimeout(240_000);

/**
 * The worker process SIGKILLed in the middle of an index batch while 200 publishes and unpublishes go on
 * through the API; a new worker process is started afterwards. Its jobs left `active` expire (15 s) and are
 * retried, and the index converges with Postgres exactly. A database of its own, so only its workers take
 * these jobs.
 */
describe('when the worker process is killed mid-batch during 200 publishes and unpublishes', () => {
  // Small batches, so that a kill lands in the middle of one with others still queued.
  const scenario = convergenceScenario({ suffix: 'chaos_kill', documents: 50, title: 'kill', batchSize: 10 });

  it('then after a restart the index converges: nothing lost, nothing resurrected', async () => {
    const { app, documents } = scenario;
    const api = await scenario.api();
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
      await killHard(scenario.workers[0]!);
      killedWithActiveJobs = active;
    })();
    await Promise.all(
      byWriter.map((ids) =>
        inParallel(ids, 1, async (documentId, round) => {
          const operation = published.has(documentId) ? 'unpublish' : 'publish';
          const status = await scenario.change(api, documentId, operation, `kill ${documentId} ${round}`);
          statuses.push(status);
          if (status < 300) {
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

    await scenario.startWorker();
    await scenario.expectConvergedWith(published, 90_000);
  });
});
