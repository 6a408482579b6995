import type { ChildProcess } from 'node:child_process';
import { QUEUES } from '../../src/jobs/queues';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument } from '../helpers/documents';
import { ALL_SCOPES, createTestProject, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';
import {
  expectConverged,
  failedJobs,
  killHard,
  startWorkerProcess,
  waitForDrainedQueues,
} from './convergence';

jest.setTimeout(180_000);

/**
 * Index jobs duplicated and reordered, sent straight through pg-boss's API as a crashed sender, a replayed
 * outbox or a slow queue would deliver them: several copies of each document's job, sent in reverse order,
 * some due seconds after the document's last change, taken by two workers at once (the API process's and a
 * worker process). Jobs carry ids only and the index writes at the document's external version, so whatever
 * order they run in, the index ends equal to Postgres.
 */
describe('when index jobs are duplicated and reordered', () => {
  let app: TestApp;
  let env: Record<string, string>;
  let projectId: number;
  const children: ChildProcess[] = [];
  const documents: number[] = [];

  beforeAll(async () => {
    env = await isolatedEnv('chaos_dup');
    app = await startTestApp({ workers: true, env });
    ({ projectId } = await createTestProject(app.ctx));
    for (let i = 0; i < 30; i += 1) {
      documents.push(
        (await createPublishedDocument(app.ctx, projectId, { metadata: { title: `dup ${i}` } })).documentId,
      );
    }
    children.push(await startWorkerProcess({ ...env, INDEXER_BATCH_SIZE: '7' }));
    await waitForDrainedQueues(app.ctx, 60_000);
  });
  afterAll(async () => {
    for (const child of children) await killHard(child);
    await app.close();
  });

  it('then the index converges with Postgres exactly, with no unpublished document brought back', async () => {
    const api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ALL_SCOPES)).token);
    const published = new Set(documents);
    const send = (documentId: number, startAfter?: Date) =>
      app.ctx.boss.send(
        QUEUES.indexDocument.name,
        { projectId, documentId },
        { ...QUEUES.indexDocument.options, ...(startAfter ? { startAfter } : {}) },
      );
    // Three rounds of changes; after each, stale copies of every document's job in reverse order.
    for (let round = 0; round < 3; round += 1) {
      await Promise.all(
        documents.map(async (documentId, index) => {
          // Every other document flips each round; the rest get a new publication (republished).
          const flip = (index + round) % 2 === 0;
          const operation = flip && published.has(documentId) ? 'unpublish' : 'publish';
          const response = await api.patch(`documents/${documentId}/commands`, {
            commands: [
              {
                operation: 'setMetadataProperty',
                propertyName: 'title',
                value: `dup ${documentId} r${round}`,
              },
              { operation },
            ],
          });
          expect({ documentId, status: response.status }).toEqual({ documentId, status: 204 });
          if (operation === 'publish') published.add(documentId);
          else published.delete(documentId);
        }),
      );
      for (const documentId of [...documents].reverse()) {
        for (let copy = 0; copy < 3; copy += 1) await send(documentId);
        // Late arrivals: due after every change of this test is made and its own jobs have run.
        await send(documentId, new Date(Date.now() + 2_000 + (documentId % 5) * 500));
      }
    }
    await waitForDrainedQueues(app.ctx, 90_000);
    expect(await failedJobs(app.ctx)).toBe(0);
    await expectConverged(app.ctx, projectId, {
      published,
      unpublished: documents.filter((id) => !published.has(id)),
    });
  });
});
