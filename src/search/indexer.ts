import type { estypes } from '@elastic/elasticsearch';
import type { Queryable } from '../db/pool';
import { isRecord } from '../domain/content';
import { indexRejectionQueries } from '../db/queries/index-rejections';
import { indexSourceQueries, type DocumentKey, type IndexSourceRow } from '../db/queries/index-sources';
import type { Logger } from '../logger';
import type { SearchClient } from './client';
import { searchDocumentQueries, type StoredSearchDocument } from '../db/queries/search-documents';
import {
  buildSearchDocument,
  BatchConfigs,
  SEARCH_DOCUMENT_VERSION,
  searchDocumentId,
} from './document-builder';
import { writeTargets } from './index-aliases';
import type { PublicationsIndex } from './index-names';
import { inWriteWindow, type WindowSettler } from './visibility';

/**
 * One write for one document: its current search document (as JSON text, serialised once for Elasticsearch
 * and search_documents alike, or the UTF-8 bytes of a stored one), or its removal, at its external version.
 */
export type IndexOperation =
  | { kind: 'index'; key: DocumentKey; version: number; document: string | Buffer }
  | { kind: 'delete'; key: DocumentKey; version: number | undefined };

/** An index operation built here, with the config revision it was built from, so it can be stored. */
type BuiltOperation =
  | (Extract<IndexOperation, { kind: 'index' }> & { document: string; projectRevision: number })
  | Extract<IndexOperation, { kind: 'delete' }>;

export interface BulkOutcome {
  written: number;
  /** Keys whose write failed for good in at least one target (mapping errors and the like). */
  rejected: { key: DocumentKey; reason: string }[];
  /** Keys still failing with 429/5xx after the in-process retries: the job should be retried later. */
  retryable: DocumentKey[];
  /**
   * Keys written without some of their fields, since the index's mapping had no room left for them (see
   * withoutNewFields): searchable, yet recorded in index_rejections with the reason. Absent: none.
   */
  trimmed?: { key: DocumentKey; reason: string }[];
}

export interface BulkOptions {
  /** In-process attempts for 429/5xx items and requests before giving up on them. */
  attempts?: number;
  baseDelayMs?: number;
  logger?: Logger;
  /** Stops the write between requests and aborts the one in flight (a queue job past its expiry). */
  signal?: AbortSignal;
  /** Most bytes of documents per bulk request; more are split over several requests. */
  maxRequestBytes?: number;
  /** Where the requests' bodies are encoded, for a caller sending many bulk writes in a row (a rebuild). */
  buffers?: BulkBuffers;
  /**
   * The targets are aliases, and a write must only ever reach an index behind one (`require_alias`): an
   * alias gone by the time the request arrives (a rebuild swapped meanwhile) is an item answered
   * index_not_found, instead of Elasticsearch creating an index of that name with a guessed mapping.
   */
  requireAlias?: boolean;
}

/** How much larger than the request that needs it a reusable buffer is made, so the next one fits too. */
const BUFFER_SLACK = 1.25;

/**
 * Request buffers reused from one bulk write to the next: a rebuild sends ~3.4 MB per 1000 documents, and a
 * fresh buffer per request is memory outside V8's heap that makes it collect its whole heap (the pages of
 * text read from Postgres) far more often: reusing them took the rebuilding process's CPU from 11.2-13.0 to
 * 8.8-9.3 ms per 1000 documents. Holds at most as many buffers as were in use at once. A rebuild also reads
 * its pages' bodies into blocks from a pool of its own (see findRebuildPage).
 */
export class BulkBuffers {
  private readonly free: Buffer[] = [];

  /** A buffer of at least `bytes`, the caller's until it gives it back. */
  take(bytes: number): Buffer {
    const fits = this.free.findIndex((buffer) => buffer.length >= bytes);
    if (fits >= 0) return this.free.splice(fits, 1)[0]!;
    // None is large enough: a smaller one is dropped for the larger one made now.
    this.free.pop();
    return Buffer.allocUnsafe(Math.ceil(bytes * BUFFER_SLACK));
  }

  give(buffer: Buffer): void {
    this.free.push(buffer);
  }
}

/**
 * Elasticsearch refuses a request over http.max_content_length (100 MB) as a whole, and recommends bulk
 * requests of a few megabytes: a batch of large documents goes out in several requests of at most this.
 */
const MAX_BULK_REQUEST_BYTES = 10 * 1024 * 1024;

/** The parts of a bulk response `bulkWrite` reads (`items[].<action>.status` and `.error`). */
export const BULK_RESPONSE_FIELDS = ['errors', 'items.*.status', 'items.*.error'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

function statusOf(error: unknown): number | undefined {
  const meta = (error as { meta?: { statusCode?: number } }).meta;
  return meta?.statusCode;
}

/**
 * Turns source rows into index operations: a published document is indexed with version = index_version
 * (external), anything else is deleted at that version, so a retried, duplicated or late write can never
 * move the index backwards or bring an unpublished document back.
 */
export function operationsFor(
  rows: readonly IndexSourceRow[],
  keys: readonly DocumentKey[],
): BuiltOperation[] {
  const configs = new BatchConfigs();
  const found = new Set(rows.map((row) => searchDocumentId(row.projectId, row.documentId)));
  const operations: BuiltOperation[] = rows.map((row) => {
    const key = { projectId: row.projectId, documentId: row.documentId };
    const document = buildSearchDocument(
      row,
      configs.get(row.projectId, row.projectRevision, row.projectConfig),
    );
    return document
      ? {
          kind: 'index',
          key,
          version: row.indexVersion,
          projectRevision: row.projectRevision,
          document: JSON.stringify(document),
        }
      : { kind: 'delete', key, version: row.indexVersion };
  });
  // A document that no longer exists at all has no version left to compare: remove it unconditionally.
  for (const key of keys) {
    if (!found.has(searchDocumentId(key.projectId, key.documentId))) {
      operations.push({ kind: 'delete', key, version: undefined });
    }
  }
  return operations;
}

/**
 * Sends the operations to every target index with the bulk API. Per-item 409 (an equal or newer version is
 * already there) and 404 on delete are success; 429/5xx items are retried with backoff; anything else is
 * rejected for that document alone, never for the batch.
 */
export async function bulkWrite(
  search: SearchClient,
  targets: readonly string[],
  operations: readonly IndexOperation[],
  options: BulkOptions = {},
): Promise<BulkOutcome> {
  return prepareBulkWrite(search, targets, operations, options)();
}

/**
 * bulkWrite in two steps: the request bodies are built now, the requests go out when the returned function
 * is called, so a caller can build the next requests while earlier ones are in flight (a rebuild).
 */
export function prepareBulkWrite(
  search: SearchClient,
  targets: readonly string[],
  operations: readonly IndexOperation[],
  options: BulkOptions = {},
): () => Promise<BulkOutcome> {
  const maxBytes = options.maxRequestBytes ?? MAX_BULK_REQUEST_BYTES;
  const pending: PendingWrite[] = targets.flatMap((index) =>
    operations.map((operation) => ({ index, operation })),
  );
  const { buffers } = options;
  const taken: Buffer[] = [];
  const allocate = (bytes: number): Buffer => {
    if (!buffers) return Buffer.allocUnsafe(bytes);
    const buffer = buffers.take(bytes);
    taken.push(buffer);
    return buffer.subarray(0, bytes);
  };
  const requireAlias = options.requireAlias ?? false;
  const first = [...chunksOf(pending, maxBytes)].map((chunk) => ({
    chunk,
    body: bulkBody(chunk, allocate, requireAlias),
  }));
  return async () => {
    try {
      const outcome = await sendBulk(search, first, maxBytes, options);
      return await withoutNewFields(search, targets, operations, outcome, maxBytes, options);
    } finally {
      // Every request of the first bodies has been answered or has failed: nothing reads them any more.
      for (const buffer of taken) buffers?.give(buffer);
    }
  };
}

async function sendBulk(
  search: SearchClient,
  first: readonly { chunk: PendingWrite[]; body: Buffer }[],
  maxBytes: number,
  options: BulkOptions,
): Promise<BulkOutcome> {
  const attempts = options.attempts ?? 5;
  const baseDelay = options.baseDelayMs ?? 200;
  const signal = options.signal;
  const rejected = new Map<string, { key: DocumentKey; reason: string }>();
  let written = 0;
  const outcome = (retryable: DocumentKey[]): BulkOutcome => ({
    written,
    rejected: [...rejected.values()],
    retryable,
  });
  let requests: Iterable<{ chunk: PendingWrite[]; body: Buffer }> = first;
  for (let attempt = 1; ; attempt += 1) {
    const retry: PendingWrite[] = [];
    for (const { chunk, body } of requests) {
      signal?.throwIfAborted();
      let items: Partial<Record<estypes.BulkOperationType, estypes.BulkResponseItem>>[];
      try {
        // Only what is read below crosses the wire and gets parsed: a full bulk answer is ~300 bytes per item.
        const response = await search.transport.request<Pick<estypes.BulkResponse, 'items'>>(
          {
            method: 'POST',
            path: '/_bulk',
            querystring: { filter_path: BULK_RESPONSE_FIELDS.join(',') },
            bulkBody: body,
          },
          signal ? { signal } : undefined,
        );
        items = response.items;
      } catch (error) {
        signal?.throwIfAborted();
        const status = statusOf(error);
        if (status !== undefined && !isRetryableStatus(status)) throw error;
        retry.push(...chunk);
        continue;
      }
      items.forEach((item, position) => {
        const entry = chunk[position];
        const result = item.index ?? item.delete;
        if (!entry || !result) return;
        const ok =
          (result.status >= 200 && result.status < 300) ||
          result.status === 409 ||
          (entry.operation.kind === 'delete' && result.status === 404);
        if (ok) {
          written += 1;
        } else if (result.error?.type === 'index_not_found_exception') {
          // The target was dropped, or the alias moved off it, after we resolved it (a rebuild just swapped,
          // or one failed and dropped its index): nothing left to keep in sync there.
          written += 1;
        } else if (isRetryableStatus(result.status)) {
          retry.push(entry);
        } else {
          const key = entry.operation.key;
          const reason = `${result.error?.type ?? result.status}: ${result.error?.reason ?? 'rejected'}`;
          rejected.set(searchDocumentId(key.projectId, key.documentId), { key, reason });
          options.logger?.error({ index: entry.index, ...key, reason }, 'search index rejected a document');
        }
      });
    }
    if (retry.length === 0) return outcome([]);
    if (attempt >= attempts) return outcome(uniqueKeys(retry.map((p) => p.operation.key)));
    await sleep(baseDelay * 2 ** (attempt - 1));
    requests = [...chunksOf(retry, maxBytes)].map((chunk) => ({
      chunk,
      body: bulkBody(chunk, (bytes) => Buffer.allocUnsafe(bytes), options.requireAlias ?? false),
    }));
  }
}

interface PendingWrite {
  index: string;
  operation: IndexOperation;
}

/** Elasticsearch's refusal of a document that would take the mapping past `index.mapping.total_fields.limit`. */
const FIELD_LIMIT_EXCEEDED = /Limit of total fields \[\d+\] has been exceeded/;

/** The objects of a search document whose keys become fields of their own (index-mappings/publications.json). */
const DYNAMIC_OBJECTS = [
  ['statistics', 'componentCount'],
  ['meta_keyword'],
  ['meta_text'],
  ['meta_integer'],
  ['meta_float'],
  ['meta_date'],
  ['meta_boolean'],
] as const;

/** How the reason recorded for a document written without some fields (BulkOutcome.trimmed) begins. */
const TRIMMED_REASON = 'indexed without ';

/** Whether a recorded refusal is of a document written without some fields: in the index, but not whole. */
export function isTrimmedReason(reason: string): boolean {
  return reason.startsWith(TRIMMED_REASON);
}

/** Most new field names a trimmed document's reason lists. */
const LISTED_FIELDS = 10;

type Mapped = Record<string, { properties?: Mapped }>;

function objectAt(value: unknown, path: readonly string[]): Record<string, unknown> | undefined {
  let at = value;
  for (const key of path) at = isRecord(at) ? at[key] : undefined;
  return isRecord(at) ? at : undefined;
}

/**
 * Every project shares one index, whose mapping takes at most total_fields.limit fields: once full,
 * Elasticsearch refuses every document that brings a field it has not mapped yet (a component or indexed
 * metadata field first seen). Such a document is sent again without its fields that some target has not
 * mapped, so it is searchable by all the rest; it is recorded (`trimmed`) so `index status` shows it until a
 * full write of it succeeds (after an operator raised the limit and rebuilt).
 */
async function withoutNewFields(
  search: SearchClient,
  targets: readonly string[],
  operations: readonly IndexOperation[],
  outcome: BulkOutcome,
  maxBytes: number,
  options: BulkOptions,
): Promise<BulkOutcome> {
  const full = outcome.rejected.filter((rejection) => FIELD_LIMIT_EXCEEDED.test(rejection.reason));
  if (full.length === 0) return outcome;
  const mappings = await search.indices.getMapping({
    index: [...targets],
    ignore_unavailable: true,
    allow_no_indices: true,
  });
  const mapped = Object.values(mappings).map((index) => (index.mappings.properties ?? {}) as Mapped);
  const known = (path: readonly string[], field: string) =>
    mapped.every((properties) => {
      let at: Mapped | undefined = properties;
      for (const key of path) at = at?.[key]?.properties;
      return at !== undefined && Object.hasOwn(at, field);
    });
  const byId = new Map(
    operations.map((operation) => [
      searchDocumentId(operation.key.projectId, operation.key.documentId),
      operation,
    ]),
  );
  const reasons = new Map<string, string>();
  const retry: PendingWrite[] = [];
  for (const { key, reason } of full) {
    const id = searchDocumentId(key.projectId, key.documentId);
    const operation = byId.get(id);
    if (operation?.kind !== 'index') continue;
    const document: unknown = JSON.parse(operation.document.toString());
    const dropped: string[] = [];
    for (const path of DYNAMIC_OBJECTS) {
      const object = objectAt(document, path);
      for (const field of Object.keys(object ?? {})) {
        if (known(path, field)) continue;
        delete object![field];
        dropped.push([...path, field].join('.'));
      }
    }
    if (dropped.length === 0) continue;
    const listed = dropped.slice(0, LISTED_FIELDS).join(', ');
    const more = dropped.length > LISTED_FIELDS ? `, and ${dropped.length - LISTED_FIELDS} more` : '';
    reasons.set(
      id,
      `${TRIMMED_REASON}${dropped.length} fields the index had no room for (${listed}${more}): ${reason}`,
    );
    const trimmed: IndexOperation = { ...operation, document: JSON.stringify(document) };
    // To every target: one that took the full document answers 409 (it holds this version) and keeps it.
    retry.push(...targets.map((index) => ({ index, operation: trimmed })));
  }
  if (retry.length === 0) return outcome;
  const requests = [...chunksOf(retry, maxBytes)].map((chunk) => ({
    chunk,
    body: bulkBody(chunk, (bytes) => Buffer.allocUnsafe(bytes), options.requireAlias ?? false),
  }));
  const again = await sendBulk(search, requests, maxBytes, options);
  const failed = new Set(
    [...again.rejected.map((rejection) => rejection.key), ...again.retryable].map((key) =>
      searchDocumentId(key.projectId, key.documentId),
    ),
  );
  const trimmed = [...reasons].flatMap(([id, reason]) =>
    failed.has(id) ? [] : [{ key: byId.get(id)!.key, reason }],
  );
  const retried = new Set(reasons.keys());
  return {
    // A trimmed document counts once (its refusal did not count), as with a single target it would.
    written: outcome.written + trimmed.length,
    rejected: [
      ...outcome.rejected.filter(
        (rejection) => !retried.has(searchDocumentId(rejection.key.projectId, rejection.key.documentId)),
      ),
      ...again.rejected,
    ],
    retryable: uniqueKeys([...outcome.retryable, ...again.retryable]),
    trimmed: [...(outcome.trimmed ?? []), ...trimmed],
  };
}

/** Consecutive runs of writes whose documents add up to at most `maxBytes` (a larger one goes alone). */
function* chunksOf(pending: readonly PendingWrite[], maxBytes: number): Generator<PendingWrite[]> {
  let chunk: PendingWrite[] = [];
  let bytes = 0;
  for (const write of pending) {
    const size = write.operation.kind === 'index' ? write.operation.document.length : 0;
    if (chunk.length > 0 && bytes + size > maxBytes) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(write);
    bytes += size;
  }
  if (chunk.length > 0) yield chunk;
}

/**
 * The request's NDJSON bytes, encoded once: each stored or built body goes in as the bytes or text it is;
 * only the action lines are written here. Each line is encoded straight into one buffer sized up front: joining them
 * into one string first made Buffer.from flatten a rope of thousands of pieces (a rebuild's page is ~3.4 MB),
 * which cost the rebuilding process ~3 ms per 1000 documents, about twice this.
 */
function bulkBody(
  chunk: readonly PendingWrite[],
  allocate: (bytes: number) => Buffer,
  requireAlias: boolean,
): Buffer {
  const lines: (string | Buffer)[] = [];
  let bytes = 0;
  for (const { index, operation } of chunk) {
    const _id = searchDocumentId(operation.key.projectId, operation.key.documentId);
    const versioning =
      operation.version === undefined ? '' : `,"version":${operation.version},"version_type":"external"`;
    // Only an index action can create an index; a delete of a missing one is index_not_found already.
    const aliasOnly = requireAlias && operation.kind === 'index' ? ',"require_alias":true' : '';
    const target = `{"_index":${JSON.stringify(index)},"_id":${JSON.stringify(_id)}${versioning}${aliasOnly}}`;
    const action = operation.kind === 'index' ? `{"index":${target}}` : `{"delete":${target}}`;
    lines.push(action);
    bytes += Buffer.byteLength(action) + 1;
    if (operation.kind === 'index') {
      lines.push(operation.document);
      bytes += byteLength(operation.document) + 1;
    }
  }
  const body = allocate(bytes);
  let at = 0;
  for (const line of lines) {
    at += typeof line === 'string' ? body.write(line, at) : line.copy(body, at);
    body[at++] = NEWLINE;
  }
  return body;
}

function byteLength(line: string | Buffer): number {
  return typeof line === 'string' ? Buffer.byteLength(line) : line.length;
}

const NEWLINE = 0x0a;

function uniqueKeys(keys: readonly DocumentKey[]): DocumentKey[] {
  const byId = new Map(keys.map((key) => [searchDocumentId(key.projectId, key.documentId), key]));
  return [...byId.values()];
}

export interface IndexerDeps {
  db: Queryable;
  search: SearchClient;
  index: PublicationsIndex;
  logger?: Logger;
  /**
   * The process's window settler (the workers'): the refresh that makes the writes visible runs after
   * indexDocuments returns. Without it, the writes are visible when it returns.
   */
  settler?: WindowSettler;
}

/**
 * Brings the index entries of these documents in line with Postgres: re-reads all of them in one query,
 * then writes to every index searches read from and to a rebuild's target, resolved after the read so a
 * rebuild that starts meanwhile cannot miss the write. The writes name the aliases, not the indices behind
 * them, so one that arrives after a swap dropped the old index reaches whatever the alias names then and
 * never re-creates the dropped index. The writes are visible to searches when it returns,
 * unless deps.settler makes them visible right after.
 */
export async function indexDocuments(
  deps: IndexerDeps,
  keys: readonly DocumentKey[],
  options: BulkOptions = {},
) {
  const unique = uniqueKeys(keys);
  const rows = await indexSourceQueries(deps.db).findByKeys(unique);
  const operations = operationsFor(rows, unique);
  const projects = [...new Set(unique.map((key) => key.projectId))];
  const targets = await writeTargets(deps.search, deps.index);
  const [outcome] = await Promise.all([
    // Inside a search write window: the API's cached answers of these projects are dropped before the writes
    // can show and cached again only once a refresh has made them visible (src/search/visibility.ts). The
    // window is kept as short as it can be: the API answers its projects uncached while it is open.
    inWriteWindow(
      { db: deps.db, search: deps.search, alias: deps.index.alias, logger: deps.logger },
      projects,
      () =>
        bulkWrite(deps.search, targets, operations, { logger: deps.logger, ...options, requireAlias: true }),
      deps.settler,
    ),
    storeBuilt(deps.db, operations),
  ]);
  await saveRejections(deps.db, operations, outcome);
  return { ...outcome, indexed: publicationsWritten(rows, operations, outcome) };
}

/** A publication whose search document was just written, with when it was published (the index lag). */
export interface IndexedPublication {
  key: DocumentKey;
  publicationId: number;
  publishedAt: Date;
}

function publicationsWritten(
  rows: readonly IndexSourceRow[],
  operations: readonly BuiltOperation[],
  outcome: BulkOutcome,
): IndexedPublication[] {
  const notWritten = new Set(
    [...outcome.rejected.map((rejection) => rejection.key), ...outcome.retryable].map((key) =>
      searchDocumentId(key.projectId, key.documentId),
    ),
  );
  const indexedIds = new Set(
    operations
      .filter((operation) => operation.kind === 'index')
      .map((operation) => searchDocumentId(operation.key.projectId, operation.key.documentId)),
  );
  return rows.flatMap((row) => {
    const id = searchDocumentId(row.projectId, row.documentId);
    if (!indexedIds.has(id) || notWritten.has(id) || row.publicationId === null || !row.publishedAt)
      return [];
    return [
      {
        key: { projectId: row.projectId, documentId: row.documentId },
        publicationId: row.publicationId,
        publishedAt: row.publishedAt,
      },
    ];
  });
}

/**
 * Keeps what Elasticsearch refused for good in index_rejections, and forgets a refusal once its document was
 * written: a refusal is the indexer's last word on a document until the next successful write.
 */
export async function saveRejections(
  db: Queryable,
  operations: readonly IndexOperation[],
  outcome: BulkOutcome,
): Promise<void> {
  const versions = new Map(
    operations.map((operation) => [
      searchDocumentId(operation.key.projectId, operation.key.documentId),
      operation.version,
    ]),
  );
  // A document written without some fields (BulkOutcome.trimmed) is recorded as a refused one is.
  const recorded = [...outcome.rejected, ...(outcome.trimmed ?? [])];
  const notWritten = new Set(
    [...recorded.map((rejection) => rejection.key), ...outcome.retryable].map((key) =>
      searchDocumentId(key.projectId, key.documentId),
    ),
  );
  const written = uniqueKeys(
    operations
      .map((operation) => operation.key)
      .filter((key) => !notWritten.has(searchDocumentId(key.projectId, key.documentId))),
  );
  await indexRejectionQueries(db).saveOutcome(
    recorded.map(({ key, reason }) => ({
      key,
      reason,
      indexVersion: versions.get(searchDocumentId(key.projectId, key.documentId)),
    })),
    written,
  );
}

/**
 * Keeps what was just built in search_documents, so the next rebuild can send it without building it again;
 * forgets what left the index.
 */
export async function storeBuilt(db: Queryable, operations: readonly BuiltOperation[]): Promise<void> {
  const stored = searchDocumentQueries(db);
  const built: StoredSearchDocument[] = [];
  const gone: { key: DocumentKey; indexVersion: number | undefined }[] = [];
  for (const operation of operations) {
    if (operation.kind === 'index') {
      built.push({
        key: operation.key,
        indexVersion: operation.version,
        projectRevision: operation.projectRevision,
        builderVersion: SEARCH_DOCUMENT_VERSION,
        body: operation.document,
      });
    } else {
      gone.push({ key: operation.key, indexVersion: operation.version });
    }
  }
  await stored.save(built);
  await stored.remove(gone);
}
