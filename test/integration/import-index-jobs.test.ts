import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { importDocumentsNow } from '../../src/commands/import-documents';
import { loadConfig } from '../../src/config';
import { createContext, type AppContext } from '../../src/context';
import { withTransaction } from '../../src/db/pool';
import { ApiVersion } from '../../src/domain/api-versions';
import { ImportRequestSchema } from '../../src/domain/import-request';
import { QUEUES } from '../../src/jobs/queues';
import type { SearchClient } from '../../src/search/client';
import { searchDocumentId } from '../../src/search/document-builder';
import { indexDocumentsHandler } from '../../workers/index-documents';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { startIndexWorker } from '../helpers/documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, eventually } from '../helpers/http';
import { nestedArrays } from '../helpers/json';
import { CLI_SCRIPT, NODE } from '../helpers/compiled';

jest.setTimeout(90_000);

const run = promisify(execFile);

/**
 * The search client, except that bulk requests answer 429 for the given documents' items (every attempt),
 * as a busy Elasticsearch does; the other items go to Elasticsearch. Bulk requests are caught where the
 * indexer sends them, at the transport, as the NDJSON bytes it wrote.
 */
function refusingFor(search: SearchClient, documentIds: ReadonlySet<number>): SearchClient {
  const refused = (id: unknown) => documentIds.has(Number(String(id).split(':').pop()));
  type Params = Parameters<SearchClient['transport']['request']>[0];
  type Options = Parameters<SearchClient['transport']['request']>[1];
  const request = async (params: Params, options?: Options): Promise<unknown> => {
    if (!params.path.endsWith('/_bulk') || params.bulkBody === undefined) {
      return search.transport.request(params, options);
    }
    const body = params.bulkBody;
    if (!Buffer.isBuffer(body)) throw new Error('the indexer sends its bulk requests as NDJSON bytes');
    const lines = body
      .toString('utf8')
      .split('\n')
      .filter((line) => line !== '');
    // An action line, and after an `index` action its document's line.
    const pairs: { lines: string[]; id: string | undefined }[] = [];
    for (let at = 0; at < lines.length;) {
      const action = JSON.parse(lines[at]!) as { index?: { _id?: string }; delete?: { _id?: string } };
      const size = action.index ? 2 : 1;
      pairs.push({ lines: lines.slice(at, at + size), id: (action.index ?? action.delete)?._id });
      at += size;
    }
    const passed = pairs.filter((pair) => !refused(pair.id));
    const answered =
      passed.length === 0
        ? { items: [] }
        : await search.transport.request<{ items: unknown[] }>(
            { ...params, bulkBody: `${passed.flatMap((pair) => pair.lines).join('\n')}\n` },
            options,
          );
    const items = [...answered.items];
    return {
      errors: true,
      items: pairs.map((pair) =>
        refused(pair.id)
          ? { index: { status: 429, error: { type: 'es_rejected_execution_exception', reason: 'busy' } } }
          : items.shift(),
      ),
    };
  };
  const transport = new Proxy(search.transport, {
    get: (target, property, receiver) =>
      property === 'request' ? request : (Reflect.get(target, property, receiver) as unknown),
  });
  return new Proxy(search, {
    get: (target, property, receiver) =>
      property === 'transport' ? transport : (Reflect.get(target, property, receiver) as unknown),
  });
}

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
  let busyProjectId: number;
  let busyIds: number[] = [];

  const cli = async (...args: string[]) =>
    run(NODE, [CLI_SCRIPT, ...args], {
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
  /** The busy project's documents in the index (Elasticsearch directly: the API token is the first project's). */
  const busyFound = async () => {
    const response = await app.ctx.search.search<{ documentId: number }>({
      index: app.ctx.index.alias,
      size: 100,
      query: { term: { projectId: busyProjectId } },
      _source: ['documentId'],
    });
    return response.hits.hits.map((hit) => hit._source!.documentId).sort();
  };
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
    // The second batch's third document (doc-7): by input order, since the batches in flight commit in either
    // order and the ids of the last, two-document batch may come first (then batchIds[1] had two entries, this
    // was undefined, nothing was refused and the third test failed under load).
    refusedId = ids[7]!;
    expect(batchIds.find((documentIds) => documentIds.includes(refusedId))).toHaveLength(5);
    const updated = await withTransaction(app.ctx.pool, async (tx) => {
      await tx.query('SET LOCAL session_replication_role = replica');
      return tx.query(
        `UPDATE publications SET metadata = $1
         WHERE id = (SELECT latest_publication_id FROM documents WHERE id = $2)`,
        [JSON.stringify({ title: `Refused ${term}`, deep: nestedArrays(1200) }), refusedId],
      );
    });
    expect(updated.rowCount).toBe(1);

    const waiting = await status();
    expect(waiting.pendingDocuments).toEqual({ queued: 12, active: 0 });
    expect(waiting.batchQueue).toMatchObject({ queued: 3, ready: 3, active: 0, failed: 0 });
    expect(waiting.queue).toMatchObject({ queued: 0, active: 0 });
    expect(waiting.oldestPendingJobSeconds).toEqual(expect.any(Number));
    expect(waiting.oldestPendingJobSeconds).toBeGreaterThanOrEqual(0);
    expect(waiting.oldestPendingJobSeconds).toBeLessThan(60);
  });

  it('when Elasticsearch keeps refusing some documents of a batch for now, then the rest is written and only those go on to a new job', async () => {
    // Another project, so its jobs and documents stay apart from the first test's.
    busyProjectId = (await createTestProject(app.ctx)).projectId;
    const job = await importDocumentsNow(
      app.ctx,
      busyProjectId,
      ApiVersion.latest(),
      ImportRequestSchema.parse({
        systemName: 'busy',
        documents: Array.from({ length: 5 }, (_, i) => ({
          id: `busy-${i}`,
          contentType: 'regular',
          title: `Busy ${term} ${i}`,
          flags: { autoPublish: true },
        })),
      }),
      { batchSize: 5 },
    );
    busyIds = job.logs.map((log) => log.document_id!);
    const [sent] = await app.ctx.boss.findJobs(QUEUES.indexDocuments.name, {
      data: { projectId: busyProjectId },
    });
    // No worker runs yet: the job runs here, by hand, as Elasticsearch answering 429 for two of its documents
    // at every attempt would have it run; in bulk requests of 2, both in the second, so one request waits out
    // the indexer's retries, not two.
    const refusedForNow = new Set([busyIds[2]!, busyIds[3]!]);
    const busy: AppContext = { ...app.ctx, search: refusingFor(app.ctx.search, refusedForNow) };
    await indexDocumentsHandler(2).handle(busy, [
      {
        id: sent!.id,
        data: QUEUES.indexDocuments.payload.parse(sent!.data),
        createdOn: sent!.createdOn,
      },
    ]);
    await app.ctx.boss.deleteJob(QUEUES.indexDocuments.name, sent!.id);
    await app.ctx.search.indices.refresh({ index: app.ctx.index.alias });
    expect(await busyFound()).toEqual([busyIds[0], busyIds[1], busyIds[4]].sort());
    const handedOn = await app.ctx.boss.findJobs(QUEUES.indexDocuments.name, {
      data: { projectId: busyProjectId },
    });
    expect(handedOn.map((item) => [item.state, item.data])).toEqual([
      [
        'created',
        {
          projectId: busyProjectId,
          documentIds: [busyIds[2], busyIds[3]],
          sentAt: sent!.createdOn.toISOString(),
        },
      ],
    ]);
    expect(handedOn[0]!.startAfter.getTime()).toBeGreaterThan(sent!.createdOn.getTime());
  });

  it('when the workers run the jobs and Elasticsearch refuses one document for good, then the rest of every batch is searchable, the refusal is recorded, and no job is retried or handed on; a handed-on job runs like any other', async () => {
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
    // The refused document is in no index, and the refusal is listed with Elasticsearch's reason (one
    // assertion for both fields, so a failure shows what was recorded).
    const refusedInIndex = await app.ctx.search.exists({
      index: app.ctx.index.alias,
      id: searchDocumentId(projectId, refusedId),
    });
    expect(refusedInIndex).toBe(false);
    expect(drained.rejected).toEqual({
      count: 1,
      latest: [
        expect.objectContaining({
          projectId,
          documentId: refusedId,
          reason: expect.stringMatching(/depth|nest/i),
        }),
      ],
    });
    // The job the busy batch handed on ran too: its two documents are searchable with the rest.
    await eventually(async () => (await busyFound()).length === busyIds.length, 10_000, 200);
    expect(await busyFound()).toEqual([...busyIds].sort());
    // Then only the refused document is published and not indexed. (Asked before the handed-on job ran, which
    // waits out its startAfter, the lag also counted its two documents: 3.)
    expect((await status()).lag).toBe(1);
  });
});
