import type { ChildProcess } from 'node:child_process';
import type { AppContext } from '../../src/context';
import { QUEUES } from '../../src/jobs/queues';
import { verifyIndex } from '../../src/search/index-manager';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument } from '../helpers/documents';
import { ALL_SCOPES, createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, eventually } from '../helpers/http';
import { killHard, startWorkerProcess } from '../helpers/worker-process';

/**
 * What every chaos scenario ends with: the queues drained, then the index compared with Postgres exactly.
 * `index verify` (verifyIndex) must report zero drift, and, independently of it, the set of documents in
 * the index with their publication and external version must be exactly the published documents of
 * Postgres with theirs: nothing lost (published but missing or stale), nothing resurrected (unpublished
 * but still there).
 */

const INDEX_QUEUES = [QUEUES.indexDocument.name, QUEUES.indexDocuments.name, QUEUES.importDocuments.name];

/** Jobs of the index and import queues still to run (created, waiting for a retry, or running). */
export async function pendingJobs(ctx: AppContext): Promise<number> {
  const { rows } = await ctx.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pgboss.job WHERE name = ANY($1) AND state IN ('created', 'retry', 'active')`,
    [INDEX_QUEUES],
  );
  return rows[0]?.n ?? 0;
}

/** Jobs of the index and import queues that gave up for good. */
export async function failedJobs(ctx: AppContext): Promise<number> {
  const { rows } = await ctx.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pgboss.job WHERE name = ANY($1) AND state = 'failed'`,
    [INDEX_QUEUES],
  );
  return rows[0]?.n ?? 0;
}

export async function waitForDrainedQueues(ctx: AppContext, timeoutMs: number): Promise<number> {
  const started = Date.now();
  await eventually(async () => (await pendingJobs(ctx)) === 0, timeoutMs, 500);
  return Date.now() - started;
}

interface Entry {
  documentId: number;
  publicationId: number;
  version: number;
}

/** The project's documents in the index: id, publication and the external version they were written at. */
async function indexedEntries(ctx: AppContext, projectId: number): Promise<Entry[]> {
  await ctx.search.indices.refresh({ index: ctx.index.alias });
  const response = await ctx.search.search<{ documentId: number; publicationId: number }>({
    index: ctx.index.alias,
    size: 10_000,
    version: true,
    query: { term: { projectId } },
    _source: ['documentId', 'publicationId'],
  });
  return response.hits.hits
    .map((hit) => ({
      documentId: hit._source!.documentId,
      publicationId: hit._source!.publicationId,
      version: hit._version ?? -1,
    }))
    .sort((x, y) => x.documentId - y.documentId);
}

/** The project's published documents in Postgres, with the version their index entry must have. */
async function publishedEntries(ctx: AppContext, projectId: number): Promise<Entry[]> {
  const { rows } = await ctx.pool.query<Entry>(
    `SELECT id AS "documentId", latest_publication_id AS "publicationId", index_version AS "version"
     FROM documents WHERE project_id = $1 AND latest_publication_id IS NOT NULL ORDER BY id`,
    [projectId],
  );
  return rows;
}

/**
 * Asserts zero drift: verifyIndex clean, the index equal to Postgres for the project, and the documents the
 * scenario last published / unpublished (as the API confirmed) on the right side.
 */
export async function expectConverged(
  ctx: AppContext,
  projectId: number,
  expected: { published: Iterable<number>; unpublished: Iterable<number> },
): Promise<void> {
  // What the last jobs wrote becomes searchable at the next refresh (1 s); verify reads what is searchable.
  await ctx.search.indices.refresh({ index: ctx.index.alias });
  const report = await verifyIndex({ db: ctx.pool, search: ctx.search, index: ctx.index });
  expect({
    missing: report.missing,
    stale: report.stale,
    extra: report.extra,
    rejected: report.rejected,
  }).toEqual({ missing: [], stale: [], extra: [], rejected: [] });
  const indexed = await indexedEntries(ctx, projectId);
  const published = await publishedEntries(ctx, projectId);
  expect(indexed).toEqual(published);
  const inIndex = new Set(indexed.map((entry) => entry.documentId));
  const lost = [...expected.published].filter((id) => !inIndex.has(id));
  const resurrected = [...expected.unpublished].filter((id) => inIndex.has(id));
  expect({ lost, resurrected }).toEqual({ lost: [], resurrected: [] });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `task` in `concurrency` loops over the items, in order; each result is kept. */
export async function inParallel<T, R>(
  items: readonly T[],
  concurrency: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next;
        next += 1;
        results[index] = await task(items[index]!, index);
      }
    }),
  );
  return results;
}

export interface ScenarioOptions {
  /** Names the database and the alias of the scenario's own (isolatedEnv): only its workers take its jobs. */
  suffix: string;
  /** Documents published before the scenario starts, titled `<title> <n>`. */
  documents: number;
  title: string;
  /** INDEXER_BATCH_SIZE of the first worker process: small, so batches are cut into and interleave. */
  batchSize: number;
  /** The API process runs the queue handlers too, as a second worker beside the process. */
  workersInApi?: boolean;
}

export interface ConvergenceScenario {
  readonly app: TestApp;
  readonly env: Record<string, string>;
  readonly projectId: number;
  /** The documents published before the scenario, in order. */
  readonly documents: readonly number[];
  /** The worker processes started so far (the first one by the setup); each is killed after the file. */
  readonly workers: readonly ChildProcess[];
  /** Starts another worker process on the scenario's database and alias. */
  startWorker(env?: Record<string, string>): Promise<ChildProcess>;
  /** A client of the API with every scope of the project. */
  api(): Promise<ReturnType<typeof apiClient>>;
  /** Sets a document's title and publishes or unpublishes it through the API, as an editor does: the status. */
  change(
    api: ReturnType<typeof apiClient>,
    documentId: number,
    operation: 'publish' | 'unpublish',
    title: string,
  ): Promise<number>;
  /**
   * The end of every scenario: the queues drained within `timeoutMs`, no job given up for good, and the index
   * equal to Postgres, with exactly `published` of the scenario's documents in it.
   */
  expectConvergedWith(published: ReadonlySet<number>, timeoutMs: number): Promise<void>;
}

/**
 * The setup every convergence scenario shares, as jest hooks of the calling file: beforeAll makes a database
 * and an alias of the scenario's own, starts the API (with its workers when asked), publishes the documents,
 * starts a worker process and waits until the index has them all; afterAll kills the worker processes and
 * closes the API. The fields are there from beforeAll on.
 */
export function convergenceScenario(options: ScenarioOptions): ConvergenceScenario {
  let app: TestApp | undefined;
  let env: Record<string, string> | undefined;
  let projectId: number | undefined;
  const documents: number[] = [];
  const workers: ChildProcess[] = [];
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('convergenceScenario: used before its beforeAll ran');
    return value;
  };
  const scenario: ConvergenceScenario = {
    get app() {
      return ready(app);
    },
    get env() {
      return ready(env);
    },
    get projectId() {
      return ready(projectId);
    },
    documents,
    workers,
    async startWorker(extra = {}) {
      const child = await startWorkerProcess({ ...scenario.env, ...extra });
      workers.push(child);
      return child;
    },
    async api() {
      return apiClient(
        scenario.app.url,
        (await tokenFor(scenario.app.ctx, scenario.projectId, ALL_SCOPES)).token,
      );
    },
    async change(api, documentId, operation, title) {
      const response = await api.patch(`documents/${documentId}/commands`, {
        commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: title }, { operation }],
      });
      return response.status;
    },
    async expectConvergedWith(published, timeoutMs) {
      await waitForDrainedQueues(scenario.app.ctx, timeoutMs);
      expect(await failedJobs(scenario.app.ctx)).toBe(0);
      await expectConverged(scenario.app.ctx, scenario.projectId, {
        published,
        unpublished: documents.filter((id) => !published.has(id)),
      });
    },
  };

  beforeAll(async () => {
    env = await isolatedEnv(options.suffix);
    app = await startTestApp({ workers: options.workersInApi ?? false, env });
    ({ projectId } = await createTestProject(app.ctx));
    for (let i = 0; i < options.documents; i += 1) {
      documents.push(
        (await createPublishedDocument(app.ctx, projectId, { metadata: { title: `${options.title} ${i}` } }))
          .documentId,
      );
    }
    await scenario.startWorker({ INDEXER_BATCH_SIZE: String(options.batchSize) });
    await waitForDrainedQueues(app.ctx, 60_000);
  });
  afterAll(async () => {
    for (const child of workers) await killHard(child);
    await app?.close();
  });
  return scenario;
}
