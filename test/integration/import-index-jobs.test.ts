import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { importDocumentsNow } from '../../src/commands/import-documents';
import { loadConfig } from '../../src/config';
import { createContext, type AppContext } from '../../src/context';
import { withTransaction } from '../../src/db/pool';
import { ApiVersion } from '../../src/domain/api-versions';
import { ImportRequestSchema } from '../../src/domain/import-request';
import { QUEUES } from '../../src/jobs/queues';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { startIndexWorker } from '../helpers/documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, eventually } from '../helpers/http';
import { nestedArrays } from '../helpers/json';

jest.setTimeout(90_000);

const run = promisify(execFile);

/**
 * The index jobs of an import: one per batch, naming the batch's published documents, sent in the batch's
 * transaction and run by the workers in bulk requests. A database and an alias of its own, so the queue
 * counts are this file's alone, and no worker runs until the second test starts one: the first sees the jobs
 * as the import left them.
 */
describe('import batches indexed by one job per batch', () => {
  let app: TestApp;
  let workers: AppContext | undefined;
  let env: Record<string, string>;
  let projectId: number;
  let api: ReturnType<typeof apiClient>;
  const term = `w${randomBytes(5).toString('hex')}`;
  let batchIds: number[][] = [];
  let refusedId: number;

  const cli = async (...args: string[]) =>
    run(path.resolve('node_modules/.bin/tsx'), ['src/cli/main.ts', ...args], {
      env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
      timeout: 60_000,
    });
  const status = async () => JSON.parse((await cli('index', 'status')).stdout);
  const found = async () => {
    const response = await api.get(`publications/search?search=${term}&fields=id&limit=100`);
    expect(response.status).toBe(200);
    return (response.body.results as { documentId: number }[]).map((item) => item.documentId).sort();
  };
  /** This project's import batch jobs, by their first document (two batches in flight send in either order). */
  const batchJobs = async () =>
    (await app.ctx.boss.findJobs(QUEUES.indexDocuments.name, { data: { projectId } }))
      .map((job) => ({
        state: job.state,
        retryCount: job.retryCount,
        data: QUEUES.indexDocuments.payload.parse(job.data),
      }))
      .sort((x, y) => x.data.documentIds[0]! - y.data.documentIds[0]!);

  beforeAll(async () => {
    env = await isolatedEnv('importjobs');
    app = await startTestApp({ env });
    projectId = (await createTestProject(app.ctx)).projectId;
    api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
  });
  afterAll(async () => {
    await workers?.close();
    await app.close();
  });

  it('when an import publishes 12 documents in batches of 5, then each batch sends one job naming its documents, and index status counts the documents waiting', async () => {
    const job = await importDocumentsNow(
      app.ctx,
      projectId,
      ApiVersion.latest(),
      ImportRequestSchema.parse({
        systemName: 'archive',
        documents: Array.from({ length: 12 }, (_, i) => ({
          id: `doc-${i}`,
          contentType: 'regular',
          title: `Archive ${term} ${i}`,
          flags: { autoPublish: true },
        })),
      }),
      { batchSize: 5 },
    );
    expect(job.logs.map((log) => log.state)).toEqual(Array.from({ length: 12 }, () => 'published'));
    const ids = job.logs.map((log) => log.document_id!);
    batchIds = [ids.slice(0, 5), ids.slice(5, 10), ids.slice(10)].sort((x, y) => x[0]! - y[0]!);
    const jobs = await batchJobs();
    expect(jobs.map((item) => [item.state, item.data])).toEqual(
      batchIds.map((documentIds) => ['created', { projectId, documentIds }]),
    );
    // Not one job per document any more: the publish queue holds none of them.
    expect(await app.ctx.boss.findJobs(QUEUES.indexDocument.name, { data: { projectId } })).toEqual([]);

    // What Elasticsearch will refuse for good: metadata nested deeper than it parses, as in a publication
    // written before the import's limits were (the import itself refuses it now). Publications are immutable
    // to the app: the trigger that says so is bypassed for this one statement.
    refusedId = batchIds[1]![2]!;
    await withTransaction(app.ctx.pool, async (tx) => {
      await tx.query('SET LOCAL session_replication_role = replica');
      await tx.query(
        `UPDATE publications SET metadata = $1
         WHERE id = (SELECT latest_publication_id FROM documents WHERE id = $2)`,
        [JSON.stringify({ title: `Refused ${term}`, deep: nestedArrays(1200) }), refusedId],
      );
    });

    const waiting = await status();
    expect(waiting.pendingDocuments).toEqual({ queued: 12, active: 0 });
    expect(waiting.batchQueue).toMatchObject({ queued: 3, ready: 3, active: 0, failed: 0 });
    expect(waiting.queue).toMatchObject({ queued: 0, active: 0 });
    expect(waiting.oldestPendingJobSeconds).toEqual(expect.any(Number));
    expect(waiting.oldestPendingJobSeconds).toBeGreaterThanOrEqual(0);
    expect(waiting.oldestPendingJobSeconds).toBeLessThan(60);
  });

  it('when the workers run the jobs and Elasticsearch refuses one document for good, then the rest of every batch is searchable, the refusal is recorded, and no job is retried or handed on', async () => {
    workers = await createContext(loadConfig({ ...process.env, ...env }), { supervise: true });
    await startIndexWorker(workers);
    const searchable = batchIds.flat().filter((id) => id !== refusedId);
    await eventually(async () => (await found()).length === searchable.length, 20_000, 200);
    expect(await found()).toEqual([...searchable].sort());

    const jobs = await eventually(async () => {
      const all = await batchJobs();
      return all.every((item) => item.state === 'completed') ? all : undefined;
    }, 10_000);
    // The three jobs the import sent, each completed at its first attempt: a refusal for good is not retried.
    expect(jobs.map((item) => [item.data.documentIds, item.retryCount])).toEqual(
      batchIds.map((documentIds) => [documentIds, 0]),
    );

    let drained = await status();
    await eventually(
      async () => {
        drained = await status();
        return drained.pendingDocuments.queued === 0 && drained.pendingDocuments.active === 0;
      },
      10_000,
      200,
    );
    expect(drained.pendingDocuments).toEqual({ queued: 0, active: 0 });
    expect(drained.oldestPendingJobSeconds).toBeNull();
    expect(drained.rejected.count).toBe(1);
    expect(drained.rejected.latest).toEqual([
      expect.objectContaining({
        projectId,
        documentId: refusedId,
        reason: expect.stringMatching(/depth|nest/i),
      }),
    ]);
    expect(drained.lag).toBe(1);
  });
});
