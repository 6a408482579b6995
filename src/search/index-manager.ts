import type { estypes } from '@elastic/elasticsearch';
import type pg from 'pg';
import type { Queryable } from '../db/pool';
import { indexSourceQueries, type DocumentKey } from '../db/queries/index-sources';
import { indexRejectionQueries, type IndexRejection } from '../db/queries/index-rejections';
import { indexVerificationQueries } from '../db/queries/index-verifications';
import { queueJobQueries } from '../db/queries/queue-jobs';
import { searchDocumentQueries } from '../db/queries/search-documents';
import { queueStatus, type Boss, type QueueStatus } from '../jobs/boss';
import { QUEUES } from '../jobs/queues';
import type { Logger } from '../logger';
import { slicesOf } from '../slices';
import type { SearchClient } from './client';
import { SEARCH_DOCUMENT_VERSION, searchDocumentId } from './document-builder';
import {
  BulkBuffers,
  indexDocuments,
  isTrimmedReason,
  operationsFor,
  prepareBulkWrite,
  saveRejections,
  storeBuilt,
  type IndexOperation,
} from './indexer';
import {
  bulkLoadSettings,
  ensurePublicationsIndex,
  indicesBehind,
  publicationsIndexDefinition,
  rebuildingAlias,
} from './index-aliases';
import type { PublicationsIndex } from './index-names';
import { inWriteWindow } from './visibility';
import { rebuildBatchSizeProblem } from './rebuild-batch-size';

export interface RebuildProgress {
  done: number;
  total: number;
}

/** The largest page a rebuild reads and writes at once: ten times the default, far inside a bulk request. */
export { MAX_REBUILD_BATCH_SIZE, rebuildBatchSizeProblem } from './rebuild-batch-size';

export interface RebuildOptions {
  /** Documents per Postgres page and bulk request (see rebuildBatchSizeProblem); default 1000. */
  batchSize?: number;
  /** Bulk requests in flight at once while Postgres reads the next page. */
  concurrency?: number;
  onStart?(total: number, target: string): void;
  /** Awaited before the batch counts as done, so a caller can pace or observe the rebuild. */
  onProgress?(progress: RebuildProgress): void | Promise<void>;
  logger?: Logger;
  /**
   * Stops the rebuild (the CLI's Ctrl-C): the pages in flight finish, the half-built index is dropped and the
   * live one is left as it was, and the rebuild rejects with the signal's reason.
   */
  signal?: AbortSignal;
}

export interface RebuildResult {
  index: string;
  /** The indices the alias pointed at before the swap, dropped after it. */
  previous: string[];
  /** Those of `previous` Elasticsearch failed to drop: no longer searched, the next rebuild drops them. */
  undropped: string[];
  indexed: number;
  rejected: number;
  seconds: number;
}

/** A rebuild of the same alias is running (in this process or another): this one did not start. */
export class RebuildRunningError extends Error {
  constructor(alias: string) {
    super(`Another index rebuild of ${alias} is running; run this one again once it has finished`);
    this.name = 'RebuildRunningError';
  }
}

/**
 * One rebuild of an alias at a time, whatever process runs it: a session advisory lock, held on a connection
 * of its own for the whole rebuild, which Postgres releases when that connection ends, so a rebuild killed
 * midway does not keep the next one out. Answers the function that lets it go.
 */
async function lockRebuild(db: Pick<pg.Pool, 'connect'>, alias: string): Promise<() => Promise<void>> {
  const client = await db.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>(
      `SELECT pg_try_advisory_lock(hashtext('index_rebuild'), hashtext($1)) AS locked`,
      [alias],
    );
    if (!rows[0]?.locked) throw new RebuildRunningError(alias);
  } catch (error) {
    client.release();
    throw error;
  }
  // Unlocked before it returns, so a rebuild started right after is not refused; a connection that cannot
  // unlock is closed instead, which ends the lock too.
  return async () => {
    try {
      await client.query(`SELECT pg_advisory_unlock(hashtext('index_rebuild'), hashtext($1))`, [alias]);
      client.release();
    } catch {
      client.release(true);
    }
  };
}

/**
 * Drops what earlier rebuilds left: indices of the alias's pattern that the alias does not point at (the
 * target of a rebuild that was killed, still behind the rebuilding alias and taking every live write). Only
 * called under the rebuild lock, so no running rebuild owns any of them.
 */
async function dropLeftovers(search: SearchClient, index: PublicationsIndex): Promise<string[]> {
  // Listed before the alias is read: the first index, which an API process or a worker may be creating
  // right now (created with the alias in one call), is either not listed yet or already behind the alias.
  const existing = Object.keys(
    await search.indices.get({
      index: index.physicalPattern,
      expand_wildcards: 'all',
      allow_no_indices: true,
    }),
  );
  const live = new Set(await indicesBehind(search, index.alias));
  const leftovers = existing.filter((name) => !live.has(name));
  if (leftovers.length > 0) await search.indices.delete({ index: leftovers });
  return leftovers;
}

/**
 * Builds a fresh physical index from Postgres and swaps the alias to it in one atomic call. Searches keep
 * reading the old index throughout; live writes reach the new one through the rebuilding alias, with the
 * same external versions, so neither a publish during the rebuild nor a stale page can win wrongly. One at a
 * time per alias (RebuildRunningError otherwise); it first drops the indices a killed rebuild left.
 */
export async function rebuildIndex(
  deps: { db: Queryable & Pick<pg.Pool, 'connect'>; search: SearchClient; index: PublicationsIndex },
  options: RebuildOptions = {},
): Promise<RebuildResult> {
  const unlock = await lockRebuild(deps.db, deps.index.alias);
  try {
    await dropLeftovers(deps.search, deps.index);
    return await rebuildLocked(deps, options);
  } finally {
    await unlock();
  }
}

async function rebuildLocked(
  deps: { db: Queryable; search: SearchClient; index: PublicationsIndex },
  options: RebuildOptions,
): Promise<RebuildResult> {
  const started = Date.now();
  const { search, index } = deps;
  const batchSize = options.batchSize ?? 1000;
  // Before anything is created: see rebuildBatchSizeProblem.
  const batchSizeProblem = rebuildBatchSizeProblem(batchSize);
  if (batchSizeProblem !== undefined) throw new RangeError(`the batch size ${batchSizeProblem}`);
  const concurrency = options.concurrency ?? 2;
  const { settings, mappings } = publicationsIndexDefinition(index.replicas);
  const target = index.newPhysicalName();
  const sources = indexSourceQueries(deps.db);
  const stored = searchDocumentQueries(deps.db);
  // The count only sizes the progress: taken while Elasticsearch creates the index. The pages are read only
  // once the index and its rebuilding alias exist, so a document published meanwhile reaches it either way.
  const counted = sources.countPublished();
  void counted.catch(() => undefined);
  await search.indices.create({
    index: target,
    settings: bulkLoadSettings(),
    mappings,
    aliases: { [rebuildingAlias(index)]: {} },
  });
  // The blocks a page's bodies are read into, given back once its write is done (see findRebuildPage).
  const bodyBlocks = new BulkBuffers();
  const readPage = (after: DocumentKey | undefined) => {
    const page = stored.findRebuildPage(after, batchSize, SEARCH_DOCUMENT_VERSION, bodyBlocks);
    // Awaited in its turn, which rethrows; until then a failure must not count as unhandled.
    void page.catch(() => undefined);
    return page;
  };
  let page = readPage(undefined);
  const inFlight = new Set<Promise<void>>();
  let result: RebuildResult;
  // The first write that failed. A write removes itself from inFlight when it settles, so one that failed
  // while nothing awaited it (the loop reading the next page) was forgotten: the rebuild swapped in an index
  // without that page's documents. Checked after every wait, and before the swap.
  let failed: { error: unknown } | undefined;
  const throwIfFailed = () => {
    if (failed) throw failed.error;
  };
  try {
    const total = await counted;
    options.onStart?.(total, target);
    let done = 0;
    let rejected = 0;
    const recorded: Promise<void>[] = [];
    const buffers = new BulkBuffers();
    for (;;) {
      options.signal?.throwIfAborted();
      const { rows, blocks } = await page;
      throwIfFailed();
      if (rows.length === 0) break;
      const last = rows[rows.length - 1]!;
      // The next page is read while this one's bulk requests are in flight: read in between, Postgres's
      // answer kept Elasticsearch at one request in flight for ~9% of a warm rebuild.
      page = readPage({ projectId: last.projectId, documentId: last.documentId });
      // A stored search document with a current stamp goes out as it is; the rest are built (and stored).
      const operations: IndexOperation[] = [];
      const stale: DocumentKey[] = [];
      for (const row of rows) {
        const key = { projectId: row.projectId, documentId: row.documentId };
        if (row.body === null) stale.push(key);
        else operations.push({ kind: 'index', key, version: row.indexVersion, document: row.body });
      }
      const built = stale.length > 0 ? operationsFor(await sources.findByKeys(stale), []) : [];
      operations.push(...built);
      // The request's bytes are built while two are in flight, so a slot that frees is refilled at once.
      const send = prepareBulkWrite(search, [target], operations, { logger: options.logger, buffers });
      if (inFlight.size >= concurrency) await Promise.race(inFlight);
      const write = Promise.all([send(), storeBuilt(deps.db, built)]).then(async ([outcome]) => {
        if (outcome.retryable.length > 0) {
          throw new Error(
            `Elasticsearch kept refusing ${outcome.retryable.length} documents; rebuild aborted`,
          );
        }
        // Recorded beside the next bulk request, not before it: the slot is Elasticsearch's again once it
        // answered (awaited before the swap, so a failure still aborts the rebuild).
        const saving = saveRejections(deps.db, operations, outcome);
        void saving.catch(() => undefined);
        recorded.push(saving);
        // Nothing reads the page's bodies any more: the request was answered and will not be sent again.
        for (const block of blocks) bodyBlocks.give(block);
        rejected += outcome.rejected.length;
        done += rows.length;
        await options.onProgress?.({ done, total: Math.max(total, done) });
      });
      inFlight.add(write);
      void write
        .catch((error: unknown) => {
          failed ??= { error };
        })
        .finally(() => inFlight.delete(write));
    }
    await Promise.allSettled(inFlight);
    throwIfFailed();
    await Promise.all(recorded);
    options.signal?.throwIfAborted();

    await search.indices.putSettings({
      index: target,
      settings: {
        index: {
          refresh_interval: settings.index.refresh_interval as string,
          number_of_replicas: settings.index.number_of_replicas as number,
          auto_expand_replicas: settings.index.auto_expand_replicas as string,
        },
      },
    });
    await search.indices.refresh({ index: target });
    const previous = await indicesBehind(search, index.alias);
    // The swap changes every project's answers at once: inside a window over all of them, closed after a
    // refresh of the new index has also shown the live writes it took since the refresh above.
    await inWriteWindow({ db: deps.db, search, alias: index.alias, logger: options.logger }, null, () =>
      search.indices.updateAliases({
        actions: [
          ...previous.map((name) => ({ remove: { index: name, alias: index.alias } })),
          { add: { index: target, alias: index.alias } },
          { remove: { index: target, alias: rebuildingAlias(index) } },
        ],
      }),
    );
    result = {
      index: target,
      previous,
      undropped: [],
      indexed: done - rejected,
      rejected,
      seconds: (Date.now() - started) / 1000,
    };
  } catch (error) {
    // Searches never read the half-built index; drop it so the next rebuild starts clean. Once the bulk
    // requests still in flight are answered: one answered after the drop would create the index again, without
    // its mappings. Until then the rebuilding alias keeps sending it every live write.
    await Promise.allSettled(inFlight);
    // Unless the swap took effect although its request failed (a timeout after Elasticsearch applied it):
    // then it is the index searches read. When that cannot be told, it stays, for the next rebuild to drop.
    const live = await indicesBehind(search, index.alias).catch(() => [target]);
    if (!live.includes(target)) await search.indices.delete({ index: target }).catch(() => undefined);
    throw error;
  }
  // Swapped: the rebuild has succeeded whatever happens to the old indices now. One Elasticsearch fails to
  // drop is left (searches no longer read it) for the next rebuild to drop, not taken for a failed rebuild:
  // the catch above dropped the new, live index, and the alias pointed at nothing.
  if (result.previous.length > 0) {
    try {
      await search.indices.delete({ index: result.previous });
    } catch (error) {
      options.logger?.warn(
        { error, indices: result.previous },
        'could not drop the indices the rebuild replaced',
      );
      result.undropped = result.previous;
    }
  }
  return result;
}

export interface VerifyReport {
  checked: number;
  missing: DocumentKey[];
  stale: DocumentKey[];
  extra: DocumentKey[];
  /**
   * Published documents whose latest write Elasticsearch refused for good (not in missing or stale), or took
   * only without the fields the index had no room for (isTrimmedReason).
   */
  rejected: IndexRejection[];
  repaired: number;
  /**
   * With repair: drifting documents (not refused ones) that still drift once the repair's writes were
   * made, found by comparing again. An index holding a newer version than Postgres (Postgres restored from
   * a backup) cannot be written over with Postgres's older one; only `index rebuild` replaces it.
   */
  unrepaired: DocumentKey[];
  /**
   * With repair: refused documents (as in rejected) that Elasticsearch refused again when the repair tried
   * them, or still holds without some fields: the repair could not fix them either.
   */
  stillRejected: IndexRejection[];
}

export interface IndexedEntry {
  projectId: number;
  documentId: number;
  publicationId: number;
  /** The document's index_version the entry was written with (its external version). */
  version: number;
}

async function readIndexedEntries(search: SearchClient, alias: string): Promise<Map<string, IndexedEntry>> {
  const entries = new Map<string, IndexedEntry>();
  const pit = await search.openPointInTime({ index: alias, keep_alive: '2m' });
  try {
    let after: estypes.SortResults | undefined;
    for (;;) {
      const response = await search.search<Omit<IndexedEntry, 'version'>>({
        size: 5000,
        pit: { id: pit.id, keep_alive: '2m' },
        sort: [{ _shard_doc: 'asc' }],
        _source: ['projectId', 'documentId', 'publicationId'],
        version: true,
        ...(after ? { search_after: after } : {}),
      });
      const hits = response.hits.hits;
      for (const hit of hits) {
        if (hit._source) {
          entries.set(searchDocumentId(hit._source.projectId, hit._source.documentId), {
            ...hit._source,
            version: hit._version ?? 0,
          });
        }
      }
      if (hits.length < 5000) break;
      after = hits[hits.length - 1]!.sort;
    }
  } finally {
    await search.closePointInTime({ id: pit.id }).catch(() => undefined);
  }
  return entries;
}

/**
 * How the index's entry of a published document differs from Postgres: none, or an entry of another
 * publication or written before the document's latest re-index (its external version is the document's
 * index_version when written).
 */
export function driftOf(
  entry: Pick<IndexedEntry, 'publicationId' | 'version'> | undefined,
  published: { publicationId: number; indexVersion: number },
): 'missing' | 'stale' | undefined {
  if (!entry) return 'missing';
  if (entry.publicationId !== published.publicationId || entry.version < published.indexVersion)
    return 'stale';
  return undefined;
}

/**
 * Compares Postgres (published documents, their latest publication ids and index versions) with the index,
 * and with `repair` re-indexes every document that differs through the normal indexer path. An entry of the
 * right publication written at an older index version is stale too: what its search document is made of
 * changed without a publish (an import's publication dates, an embargo) and that re-index never landed, so
 * search answered the old systemdata.
 */
/** One comparison of Postgres's published documents with the index's entries (see verifyIndex). */
async function compareWithIndex(deps: {
  db: Queryable;
  search: SearchClient;
  index: PublicationsIndex;
}): Promise<{ checked: number; missing: DocumentKey[]; stale: DocumentKey[]; extra: DocumentKey[] }> {
  const indexed = await readIndexedEntries(deps.search, deps.index.alias);
  const sources = indexSourceQueries(deps.db);
  const missing: DocumentKey[] = [];
  const stale: DocumentKey[] = [];
  let checked = 0;
  let after: DocumentKey | undefined;
  for (;;) {
    const rows = await sources.findPublishedKeys(after, 10_000);
    if (rows.length === 0) break;
    for (const row of rows) {
      checked += 1;
      const id = searchDocumentId(row.projectId, row.documentId);
      const entry = indexed.get(id);
      const key = { projectId: row.projectId, documentId: row.documentId };
      const drift = driftOf(entry, row);
      if (drift === 'missing') missing.push(key);
      else if (drift === 'stale') stale.push(key);
      indexed.delete(id);
    }
    const last = rows[rows.length - 1]!;
    after = { projectId: last.projectId, documentId: last.documentId };
  }
  const extra = [...indexed.values()].map(({ projectId, documentId }) => ({ projectId, documentId }));
  return { checked, missing, stale, extra };
}

export async function verifyIndex(
  deps: { db: Queryable; search: SearchClient; index: PublicationsIndex; logger?: Logger },
  options: { repair?: boolean } = {},
): Promise<VerifyReport> {
  await ensurePublicationsIndex(deps.search, deps.index);
  const { checked, missing, stale, extra } = await compareWithIndex(deps);
  // A refused document is missing or stale for a reason a repair cannot fix: list it with that reason.
  const refusals = await indexRejectionQueries(deps.db).list();
  const refusedIds = new Set(refusals.map((r) => searchDocumentId(r.projectId, r.documentId)));
  const isRefused = (key: DocumentKey) => refusedIds.has(searchDocumentId(key.projectId, key.documentId));
  const drifted = new Set(
    [...missing, ...stale].map((key) => searchDocumentId(key.projectId, key.documentId)),
  );
  // So is a document written without the fields the index had no room for (isTrimmedReason).
  const rejected = refusals.filter(
    (r) => drifted.has(searchDocumentId(r.projectId, r.documentId)) || isTrimmedReason(r.reason),
  );
  let repaired = 0;
  let unrepaired: DocumentKey[] = [];
  let stillRejected: IndexRejection[] = [];
  const drift = [...missing, ...stale, ...extra];
  if (options.repair && drift.length > 0) {
    for (const slice of slicesOf(drift, 500)) {
      const outcome = await indexDocuments(deps, slice);
      repaired += outcome.written;
    }
    // `written` counts a write Elasticsearch answered 409 (it holds an equal or newer version) as done:
    // whether the drift is gone is told by comparing again (the writes are searchable by now).
    const again = await compareWithIndex(deps);
    const still = new Set(
      [...again.missing, ...again.stale, ...again.extra].map((key) =>
        searchDocumentId(key.projectId, key.documentId),
      ),
    );
    unrepaired = drift.filter(
      (key) => !isRefused(key) && still.has(searchDocumentId(key.projectId, key.documentId)),
    );
    // Refusals are recorded again (or cleared) by the repair's writes: the ones left still drift.
    stillRejected = (await indexRejectionQueries(deps.db).list()).filter(
      (r) => still.has(searchDocumentId(r.projectId, r.documentId)) || isTrimmedReason(r.reason),
    );
  }
  const report = {
    checked,
    missing: missing.filter((key) => !isRefused(key)),
    stale: stale.filter((key) => !isRefused(key)),
    extra,
    rejected,
    repaired,
    unrepaired,
    stillRejected,
  };
  // The counts found (before any repair), for the drift metric every process reports until the next verify.
  await indexVerificationQueries(deps.db).insert({
    checked,
    missing: report.missing.length,
    stale: report.stale.length,
    extra: extra.length,
    rejected: rejected.length,
    repaired,
  });
  return report;
}

export interface IndexStatus {
  alias: string;
  indices: string[];
  rebuilding: string[];
  indexedCount: number;
  publishedCount: number;
  /** Published documents not (yet) in the index: positive while the indexer is behind. */
  lag: number;
  /** The index-document queue (a job per published or unpublished document), as pg-boss counts it; null when asked without pg-boss. */
  queue: QueueStatus | null;
  /** The index-documents queue (a job per import batch, naming its documents), as pg-boss counts it. */
  batchQueue: QueueStatus | null;
  /** The documents the jobs of both queues name, waiting (`queued`) and being indexed (`active`). */
  pendingDocuments: { queued: number; active: number } | null;
  /** How long the documents of the oldest waiting index job (of either queue) have waited, or null when none waits. */
  oldestPendingJobSeconds: number | null;
  /** Documents Elasticsearch refused for good, the most recent first (see index_rejections). */
  rejected: { count: number; latest: IndexRejection[] };
}

/** How many refused documents `index status` lists by name. */
const STATUS_REJECTIONS_LISTED = 20;

export async function indexStatus(deps: {
  db: Queryable;
  search: SearchClient;
  index: PublicationsIndex;
  /** Without it, the queues, pendingDocuments and oldestPendingJobSeconds are null. */
  boss?: Boss;
}): Promise<IndexStatus> {
  const indices = await indicesBehind(deps.search, deps.index.alias);
  const rebuilding = await indicesBehind(deps.search, rebuildingAlias(deps.index));
  const indexedCount = indices.length > 0 ? (await deps.search.count({ index: deps.index.alias })).count : 0;
  const publishedCount = await indexSourceQueries(deps.db).countPublished();
  // The job counts from pg-boss's API (recounted now); the documents they name, which pg-boss does not count,
  // read from its job table.
  const queue = deps.boss ? await queueStatus(deps.boss, 'indexDocument') : null;
  const batchQueue = deps.boss ? await queueStatus(deps.boss, 'indexDocuments') : null;
  const pending = deps.boss
    ? await queueJobQueries(deps.db).countIndexDocuments([
        QUEUES.indexDocument.name,
        QUEUES.indexDocuments.name,
      ])
    : null;
  const oldest = pending?.oldestSentAt;
  const rejections = indexRejectionQueries(deps.db);
  return {
    alias: deps.index.alias,
    indices,
    rebuilding,
    indexedCount,
    publishedCount,
    lag: publishedCount - indexedCount,
    queue,
    batchQueue,
    pendingDocuments: pending ? { queued: pending.queued, active: pending.active } : null,
    oldestPendingJobSeconds: oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : null,
    rejected: { count: await rejections.count(), latest: await rejections.list(STATUS_REJECTIONS_LISTED) },
  };
}
