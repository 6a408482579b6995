import { QUEUES } from '../../src/jobs/queues';
import { convergenceScenario } from './convergence';

jest.setTimeout(180_000);

/**
 * Index jobs duplicated and reordered, sent straight through pg-boss's API as a crashed sender, a replayed
 * outbox or a slow queue would deliver them: several copies of each document's job, sent in reverse order,
 * and of an import batch's job naming them all, some due seconds after the document's last change, taken by
 * two workers at once (the API process's and a worker process). Jobs carry ids only and the index writes at the document's external version, so whatever
 * order they run in, the index ends equal to Postgres.
 */
describe('when index jobs are duplicated and reordered', () => {
  const scenario = convergenceScenario({
    suffix: 'chaos_dup',
    documents: 30,
    title: 'dup',
    batchSize: 7,
    workersInApi: true,
  });

  it('then the index converges with Postgres exactly, with no unpublished document brought back', async () => {
    const { app, projectId, documents } = scenario;
    const api = await scenario.api();
    const published = new Set(documents);
    const send = (documentId: number, startAfter?: Date) =>
      app.ctx.boss.send(
        QUEUES.indexDocument.name,
        { projectId, documentId },
        { ...QUEUES.indexDocument.options, ...(startAfter ? { startAfter } : {}) },
      );
    const sendBatch = (documentIds: number[], startAfter?: Date) =>
      app.ctx.boss.send(
        QUEUES.indexDocuments.name,
        { projectId, documentIds },
        { ...QUEUES.indexDocuments.options, ...(startAfter ? { startAfter } : {}) },
      );
    // Three rounds of changes; after each, stale copies of every document's job in reverse order.
    for (let round = 0; round < 3; round += 1) {
      await Promise.all(
        documents.map(async (documentId, index) => {
          // Every other document flips each round; the rest get a new publication (republished).
          const flip = (index + round) % 2 === 0;
          const operation = flip && published.has(documentId) ? 'unpublish' : 'publish';
          const status = await scenario.change(api, documentId, operation, `dup ${documentId} r${round}`);
          expect({ documentId, status }).toEqual({ documentId, status: 204 });
          if (operation === 'publish') published.add(documentId);
          else published.delete(documentId);
        }),
      );
      for (const documentId of [...documents].reverse()) {
        for (let copy = 0; copy < 3; copy += 1) await send(documentId);
        // Late arrivals: due after every change of this test is made and its own jobs have run.
        await send(documentId, new Date(Date.now() + 2_000 + (documentId % 5) * 500));
      }
      // And as an import batch's job would name them: all of them in reverse, twice, and once late.
      for (let copy = 0; copy < 3; copy += 1) {
        await sendBatch([...documents].reverse(), copy === 2 ? new Date(Date.now() + 3_000) : undefined);
      }
    }
    await scenario.expectConvergedWith(published, 90_000);
  });
});
