import { randomUUID } from 'node:crypto';
import { isDatabaseUnavailable, withTransaction, type Pool } from '../db/pool';
import { designQueries } from '../db/queries/designs';
import type { ImportedDraft } from '../db/queries/documents';
import { importJobQueries } from '../db/queries/import-jobs';
import { projectQueries, type ProjectRow } from '../db/queries/projects';
import { ApiVersion } from '../domain/api-versions';
import type { Content } from '../domain/content';
import type { Design } from '../domain/design';
import { validateContentAgainstDesign } from '../domain/design-validation';
import { AppError } from '../domain/errors';
import { quoted } from '../domain/shown-input';
import { DEFAULT_IMPORT_BATCH_SIZE, DEFAULT_IMPORT_CONCURRENCY } from '../domain/import-limits';
import {
  finalImportState,
  ImportRequestSchema,
  type ImportDocument,
  type ImportLog,
  type ImportRequest,
} from '../domain/import-request';
import { findDocumentProblem, formatJsonPath } from '../domain/json-limits';
import { findContentType } from '../domain/project-config';
import { extractReferences } from '../domain/references';
import { enqueue, type Boss } from '../jobs/boss';
import { cutImportBatches, importTargetKey, writeImportBatch, type PreparedImport } from './import-batch';

export interface ImportDeps {
  pool: Pool;
  boss: Boss;
}

/**
 * At least how many documents the worker writes between two saves of the job's logs (progress for status
 * readers), and at least what share of the logs saved so far: saving every 500 documents rewrote the whole
 * growing log each time (Postgres rewrites a jsonb value whole), a cost that grew with the square of the
 * import's size (200 saves of ~4 MB on average for 100,000 documents). Growing by a quarter each time, the
 * saves of an import of any size write at most ~5 times its final log.
 */
const LOG_SAVE_EVERY = 500;
const LOG_SAVE_GROWTH = 0.25;
/** A failed document's reason lists at most this many design problems; the rest are counted. */
const MAX_REASONS = 5;

/**
 * `POST import/documents`: stores the job and enqueues it in one transaction (the outbox), so a job exists
 * exactly when its queue entry does. The request is validated before anything is stored.
 */
export async function startImportJob(
  deps: ImportDeps,
  projectId: number,
  apiVersion: ApiVersion,
  body: ImportRequest,
): Promise<{ id: string }> {
  const id = randomUUID();
  await withTransaction(deps.pool, async (tx) => {
    await importJobQueries(tx).insert({
      id,
      projectId,
      systemName: body.systemName,
      request: body,
      apiVersion: apiVersion.label,
    });
    await enqueue(deps.boss, tx, 'importDocuments', { importJobId: id });
  });
  return { id };
}

export { DEFAULT_IMPORT_BATCH_SIZE, DEFAULT_IMPORT_CONCURRENCY } from '../domain/import-limits';

/** A batch being written: what it targets, so that no other batch writing the same documents runs beside it. */
interface InFlightBatch {
  keys: ReadonlySet<string>;
  /** It names documents by id, which may be the ones other batches name by external id: it runs alone. */
  exclusive: boolean;
  done: Promise<void>;
}

/**
 * Whether a batch must wait for one in flight: when they share a target, or either names documents by id.
 * Two batches writing one document at once could apply its writes out of order (and the later one would
 * fail on the unique key when both create it).
 */
function conflicts(other: InFlightBatch, keys: ReadonlySet<string>, exclusive: boolean): boolean {
  if (exclusive || other.exclusive) return true;
  for (const key of keys) if (other.keys.has(key)) return true;
  return false;
}

export interface ImportRunOptions {
  /** Documents per transaction (DEFAULT_IMPORT_BATCH_SIZE). */
  batchSize?: number;
  /** Batches written at once (DEFAULT_IMPORT_CONCURRENCY). */
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
  /**
   * Stops the run (the CLI's Ctrl-C): no batch starts after it, the ones in flight finish and stay, and the job
   * ends failed with a line saying it was interrupted and how far it got.
   */
  signal?: AbortSignal;
}

/**
 * The CLI's synchronous import: the same engine without the queue, recorded as a job row like an HTTP
 * import (state and logs). The row's request names the system and counts the documents instead of holding
 * them: the CLI has them in memory already, and storing then re-reading every document's JSON cost an
 * archive import a fifth of its time.
 */
export async function importDocumentsNow(
  deps: ImportDeps,
  projectId: number,
  apiVersion: ApiVersion,
  body: ImportRequest,
  options: ImportRunOptions = {},
): Promise<{ id: string; state: 'success' | 'failed'; logs: ImportLog[]; outage?: ImportOutage }> {
  const id = randomUUID();
  await importJobQueries(deps.pool).insert({
    id,
    projectId,
    systemName: body.systemName,
    request: { systemName: body.systemName, source: 'cli', documentCount: body.documents.length },
    apiVersion: apiVersion.label,
  });
  try {
    return { id, ...(await runImport(deps, { id, projectId, apiVersion }, body, options)) };
  } catch (error) {
    if (!(error instanceof ImportOutage)) throw error;
    // No queue retries this run: it ends here, its job marked failed when Postgres lets it (else it stays
    // 'started'), and the caller says what was written.
    const logs = [...error.logs, jobFailure(error)];
    await finishJob(deps, id, 'failed', logs, false).catch(() => undefined);
    return { id, state: 'failed', logs, outage: error };
  }
}

/**
 * An import stopped because Postgres became unavailable (refused, cut or read-only, as a restart or a failover
 * makes it): no document is to blame, so none is logged failed for it. `logs` are those of the documents
 * decided before (written, or failed on their own), in order; the others were not written.
 */
export class ImportOutage extends Error {
  constructor(
    override readonly cause: unknown,
    readonly logs: ImportLog[],
    readonly total: number,
  ) {
    const written = logs.filter((log) => log.state !== 'failed').length;
    super(
      `the database became unavailable after ${written} of ${total} documents were written ` +
        `(${messageOf(cause)}); what was written stays, the rest was not imported`,
    );
    this.name = 'ImportOutage';
  }
}

/**
 * Runs one `POST import/documents` job from its stored request. A finished job is not run again (a
 * duplicate or retried queue entry is a no-op); a job that crashed half-way is re-run from the start, which
 * is safe because documents are matched by external id. A run that Postgres stopped (ImportOutage) leaves
 * the job started and throws, so pg-boss runs it again later: its client sees it finish, not fail.
 */
export async function runImportJob(
  deps: ImportDeps,
  jobId: string,
  options: ImportRunOptions = {},
): Promise<void> {
  const jobs = importJobQueries(deps.pool);
  const job = await jobs.findByIdAnyProject(jobId);
  if (!job || job.state !== 'started') return;
  const apiVersion = ApiVersion.parse(job.apiVersion) ?? ApiVersion.latest();
  const parsed = ImportRequestSchema.safeParse(job.request);
  if (!parsed.success) {
    await finishJob(deps, jobId, 'failed', [jobFailure(parsed.error)], hasWebhook(job.request));
    return;
  }
  await runImport(deps, { id: job.id, projectId: job.projectId, apiVersion }, parsed.data, options);
}

/**
 * The engine: every document is checked first, then each batch of the ones that pass is written in one
 * transaction (see writeImportBatch). When Postgres refuses a batch, it rolls back whole and its documents
 * are written again one per transaction, so the log names exactly the one that failed and nothing of it
 * stays. Saves the job's logs as it goes and finishes the job. When Postgres becomes unavailable, no batch
 * starts after it, the ones in flight finish, and it throws an ImportOutage naming what was written, without
 * finishing the job.
 */
async function runImport(
  deps: ImportDeps,
  job: { id: string; projectId: number; apiVersion: ApiVersion },
  request: ImportRequest,
  options: ImportRunOptions,
): Promise<{ state: 'success' | 'failed'; logs: ImportLog[] }> {
  const jobs = importJobQueries(deps.pool);
  const logs: ImportLog[] = [];
  // The stored request of a POST import names the webhook; the CLI's names none.
  const webhook = request.webhook !== undefined;
  let state: 'success' | 'failed';
  try {
    const project = await projectQueries(deps.pool).findById(job.projectId);
    if (!project) throw new Error(`project ${job.projectId} no longer exists`);
    const designs = new DesignCache(deps.pool, project);
    const total = request.documents.length;
    const batches = cutImportBatches(
      request.documents,
      options.batchSize ?? DEFAULT_IMPORT_BATCH_SIZE,
      importTargetKey,
    );
    const results: ImportLog[][] = [];
    const inFlight = new Map<number, InFlightBatch>();
    const concurrency = options.concurrency ?? DEFAULT_IMPORT_CONCURRENCY;
    let next = 0;
    let reported = 0;
    let savedAt = 0;
    let failure: { error: unknown } | undefined;
    const stop = (error: unknown) => void (failure ??= { error });
    const starting = () => next < batches.length && !failure && options.signal?.aborted !== true;
    while (starting() || inFlight.size > 0) {
      const batch = starting() ? batches[next]! : undefined;
      if (batch && inFlight.size < concurrency) {
        const keys = new Set(batch.map(importTargetKey));
        const exclusive = batch.some((document) => document.documentId !== undefined);
        if (![...inFlight.values()].some((other) => conflicts(other, keys, exclusive))) {
          const index = next++;
          const done = importBatch(deps, project, designs, job.apiVersion, request.systemName, batch)
            .then((written) => {
              results[index] = written.logs;
              if (written.outage !== undefined) stop(written.outage);
            }, stop)
            .finally(() => inFlight.delete(index));
          inFlight.set(index, { keys, exclusive, done });
          continue;
        }
      }
      await Promise.race([...inFlight.values()].map((entry) => entry.done));
      // Logs, progress and saves in document order, whichever batch finished first.
      while (results[reported] !== undefined) logs.push(...results[reported++]!);
      options.onProgress?.(logs.length, total);
      const unsaved = logs.length - savedAt;
      if (unsaved >= Math.max(LOG_SAVE_EVERY, savedAt * LOG_SAVE_GROWTH) && logs.length < total && !failure) {
        // Only the new entries are sent; the first save of a run replaces what an earlier run left. Postgres
        // away, the batches in flight are still waited for: their documents are written or not, and logged.
        try {
          await jobs.saveLogs(job.id, logs.slice(savedAt), { append: savedAt > 0 });
          savedAt = logs.length;
        } catch (error) {
          if (!isDatabaseUnavailable(error)) throw error;
          stop(error);
        }
      }
    }
    // A batch that finished during the last save has not been taken yet; after a failure, every batch that
    // finished is (those after the one that failed were written too).
    for (; reported < results.length; reported += 1) logs.push(...(results[reported] ?? []));
    if (failure) throw failure.error;
    if (options.signal?.aborted && logs.length < total) {
      throw new Error(
        `interrupted after ${logs.length} of ${total} documents; what was written stays, the rest was not ` +
          'imported (import the file again: documents are matched by external id)',
      );
    }
    if (logs.length !== total) throw new Error(`${total - logs.length} documents were left unwritten`);
    options.onProgress?.(logs.length, total);
    state = finalImportState(logs);
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw new ImportOutage(error, logs, request.documents.length);
    state = 'failed';
    logs.push(jobFailure(error));
  }
  await finishJob(deps, job.id, state, logs, webhook);
  return { state, logs };
}

function jobFailure(error: unknown): ImportLog {
  return {
    state: 'failed',
    external_id: '',
    document_id: null,
    reason: `The import job failed: ${messageOf(error)}`,
  };
}

/**
 * One batch: prepare every document (a document that fails a check fails alone, before anything is written),
 * write the rest in one transaction, and when that is refused write them one per transaction. Postgres
 * unavailable is no document's fault: the batch is tried once more whole (a backend cut by a restart or
 * pg_terminate_backend, the next connection takes it); still unavailable, the batch answers the logs of what
 * it wrote and the `outage` that stopped it (before, every document after an outage was logged failed with
 * 'connect ECONNREFUSED', one connection attempt each, and the run went on through the whole file).
 */
async function importBatch(
  deps: ImportDeps,
  project: ProjectRow,
  designs: DesignCache,
  version: ApiVersion,
  systemName: string,
  documents: readonly ImportDocument[],
): Promise<{ logs: ImportLog[]; outage?: unknown }> {
  const logs: (ImportLog | undefined)[] = [];
  const prepared: { index: number; item: PreparedImport }[] = [];
  for (const [index, document] of documents.entries()) {
    try {
      const draft = await prepareDraft(project, designs, version, document);
      const references = extractReferences(draft.metadata, draft.content).rows;
      prepared.push({ index, item: { document, draft, references } });
      logs.push(undefined);
    } catch (error) {
      if (isDatabaseUnavailable(error)) return { logs: [], outage: error };
      logs.push(failedLog(document, error));
    }
  }
  const items = prepared.map((entry) => entry.item);
  const { written, outage } =
    items.length === 0 ? { written: [] } : await writeBatch(deps, project.id, systemName, items);
  for (const [position, { index }] of prepared.entries()) logs[index] = written[position];
  return { logs: logs.filter((log) => log !== undefined), outage };
}

/** A batch's writes (see importBatch): its logs in order, fewer than its documents when `outage` stopped it. */
async function writeBatch(
  deps: ImportDeps,
  projectId: number,
  systemName: string,
  items: readonly PreparedImport[],
): Promise<{ written: ImportLog[]; outage?: unknown }> {
  const now = new Date();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return { written: await writeImportBatch(deps, projectId, systemName, items, now) };
    } catch (error) {
      if (!isDatabaseUnavailable(error)) break;
      if (attempt === 2) return { written: [], outage: error };
    }
  }
  // Which document Postgres refused, the error does not say reliably: one transaction each tells.
  const written: ImportLog[] = [];
  for (const item of items) {
    try {
      written.push(...(await writeImportBatch(deps, projectId, systemName, [item], now)));
    } catch (error) {
      if (isDatabaseUnavailable(error)) return { written, outage: error };
      written.push(failedLog(item.document, error));
    }
  }
  return { written };
}

function failedLog(document: ImportDocument, error: unknown): ImportLog {
  return { state: 'failed', external_id: document.id, document_id: null, reason: messageOf(error) };
}

/** Whether the stored request names a webhook (read without the full schema: a job that failed it has one too). */
function hasWebhook(request: unknown): boolean {
  return typeof (request as { webhook?: unknown } | null)?.webhook === 'string';
}

/**
 * Ends the job and, when its request named a webhook, sends the job that calls it, in one transaction: the
 * webhook is called exactly for the imports that finished, however the worker fares afterwards. A job ends
 * once: a second run of it (pg-boss retried it while the first was still running) that finishes later
 * changes nothing, so the webhook is not sent twice nor a delivered one made pending again.
 */
async function finishJob(
  deps: ImportDeps,
  jobId: string,
  state: 'success' | 'failed',
  logs: ImportLog[],
  webhook: boolean,
): Promise<void> {
  await withTransaction(deps.pool, async (tx) => {
    const finished = await importJobQueries(tx).finish(jobId, state, logs, { webhook });
    if (finished && webhook) await enqueue(deps.boss, tx, 'importWebhook', { importJobId: jobId });
  });
}

function messageOf(error: unknown): string {
  if (error instanceof AppError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

class ImportFailure extends Error {}

/** Designs by name@version, read once per job. */
class DesignCache {
  private readonly cache = new Map<string, Promise<Design | undefined>>();
  private current: Promise<Design | undefined> | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly project: ProjectRow,
  ) {}

  find(name: string, version: string): Promise<Design | undefined> {
    const key = `${name}@${version}`;
    let design = this.cache.get(key);
    if (!design) {
      design = designQueries(this.pool).findByVersion(this.project.id, version, name);
      this.cache.set(key, design);
    }
    return design;
  }

  /** The project's current design, else the one its config names. */
  async projectDesign(): Promise<{ name: string; version: string } | undefined> {
    this.current ??= designQueries(this.pool).findCurrent(this.project.id);
    const current = await this.current;
    return current ? { name: current.name, version: current.version } : this.project.config.design;
  }
}

/** The draft a document import writes, or an ImportFailure saying why the document cannot be imported. */
async function prepareDraft(
  project: ProjectRow,
  designs: DesignCache,
  version: ApiVersion,
  document: ImportDocument,
): Promise<ImportedDraft> {
  const contentType = findContentType(project.config, document.contentType);
  if (!contentType) {
    const known = project.config.contentTypes.map((type) => type.handle).join(', ');
    throw new ImportFailure(
      `unknown content type ${quoted(document.contentType)} (the project has: ${known || 'none'})`,
    );
  }
  const content = document.content as Content;
  const metadata = { ...document.metadata };
  if (document.title !== undefined && metadata.title === undefined) metadata.title = document.title;
  // The same bounds as document commands, before anything walks the content: whatever is stored can be
  // published and indexed.
  const problem = findDocumentProblem({ metadata, content });
  if (problem) throw new ImportFailure(`${formatJsonPath(problem.path)} ${problem.message}`);
  const designRef = document.design ?? (await designs.projectDesign());
  // From 2026-01 content that breaks its design fails (api-spec §9); earlier versions store it as sent.
  if (version.atLeast('2026-01')) {
    if (!designRef) throw new ImportFailure('the document names no design and the project has none');
    const design = await designs.find(designRef.name, designRef.version);
    if (!design) throw new ImportFailure(`unknown design ${designRef.name}@${designRef.version}`);
    const problems = validateContentAgainstDesign(content, design);
    if (problems.length > 0) {
      const more = problems.length > MAX_REASONS ? ` (and ${problems.length - MAX_REASONS} more)` : '';
      throw new ImportFailure(
        `content does not match design ${design.name}@${design.version}: ${problems.slice(0, MAX_REASONS).join('; ')}${more}`,
      );
    }
  }
  return {
    projectId: project.id,
    channelId: project.defaultChannelId,
    documentType: contentType.documentType,
    contentType: contentType.handle,
    designName: designRef?.name ?? null,
    designVersion: designRef?.version ?? null,
    metadata,
    content,
  };
}
