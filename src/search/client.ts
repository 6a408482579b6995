import type { Readable } from 'node:stream';
import { Client, errors, type TransportRequestOptions } from '@elastic/elasticsearch';
import { loggableUrl } from '../domain/loggable-url';

export type SearchClient = Client;

/**
 * The client's defaults suit the indexer and rebuilds, which would rather wait than fail: 30 s per request,
 * three retries of a failed connection with backoff. The API's reads pass searchReadOptions() instead.
 *
 * With several nodes (ELASTICSEARCH_URL as a comma-separated list) the client takes turns over them and
 * sends a request that could not connect, or was answered 502/503/504, to the next node at once; a node that
 * failed is asked less often until it answers again.
 */
export function createSearchClient(urls: string | readonly string[]): SearchClient {
  const nodes = typeof urls === 'string' ? [urls] : [...urls];
  return new Client({ nodes, maxRetries: clientMaxRetries(nodes.length), requestTimeout: 30_000 });
}

/** The client's retries of a request that names none: three, or one per node when there are more. */
function clientMaxRetries(nodeCount: number): number {
  return Math.max(3, nodeCount);
}

/**
 * Longest the API waits for one search while Elasticsearch keeps answering its liveness probe: busy (a load
 * spike, a bulk of index writes, a rebuild beside it), not stuck. The bench's slowest searches take ~0.2 s
 * alone; under a soak on a loaded machine a few took over 3 s, which the former flat 3 s timeout answered 503.
 */
export const SEARCH_PATIENCE_MS = 10_000;
/** A search without an answer after this long has Elasticsearch probed (its cluster health), and again while it waits. */
export const SEARCH_PROBE_AFTER_MS = 1_500;
/** What the probe may take: a stuck or cut-off node answers no probe, a busy one answers within milliseconds. */
export const SEARCH_PROBE_TIMEOUT_MS = 1_500;

/**
 * Per-request options of the API's searches (built once per process, src/context.ts). The timeout is the
 * outer bound (SEARCH_PATIENCE_MS); a stuck node is told apart sooner by searchWhileAlive's probe. One
 * immediate retry per node (at least one) covers a kept-alive connection that was closed under us and, in a
 * cluster, a node that has just died: the retry goes to the next node; the defaults' backoff made a refused
 * connection take 6-10 s. In a cluster a search that timed out is tried once more (searchBytes does it: the
 * client's transport ignores retryOnTimeout per request): searches in flight at the instant a node was
 * SIGKILLed could wait out their timeout on the surviving node, busy failing over (the scale-out chaos test).
 * A search is idempotent; the cost is a longer wait before the 503 when the whole cluster is stuck.
 */
export function searchReadOptions(nodeCount = 1): TransportRequestOptions {
  return {
    requestTimeout: SEARCH_PATIENCE_MS,
    maxRetries: Math.max(1, nodeCount),
    retryOnTimeout: nodeCount > 1,
    retryBackoff: () => 0,
  };
}

/**
 * Runs a read of Elasticsearch (given the options to pass, with an abort signal added) and watches whether
 * Elasticsearch is alive while it waits: after SEARCH_PROBE_AFTER_MS without an answer, and every
 * SEARCH_PROBE_AFTER_MS after, it is probed. A probe that fails or takes longer than SEARCH_PROBE_TIMEOUT_MS
 * aborts the read with a TimeoutError (so a stuck node is a 503 within ~3 s, as with the former flat timeout); while probes answer, the read
 * is waited for up to its own timeout. A loaded but healthy Elasticsearch is waited for, a dead one is not.
 */
export async function searchWhileAlive<T>(
  search: SearchClient,
  options: TransportRequestOptions,
  read: (options: TransportRequestOptions) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let unresponsive: string | undefined;
  let settled = false;
  let timer: NodeJS.Timeout | undefined;
  const probe = async () => {
    try {
      // Cluster health without wait parameters: answered at once from the cluster state, off the search
      // threads (the root endpoint is not there in every distribution: the integ-test zip answers it 405).
      await search.cluster.health(
        { filter_path: 'status' },
        { requestTimeout: SEARCH_PROBE_TIMEOUT_MS, maxRetries: 0 },
      );
      if (!settled) timer = setTimeout(() => void probe(), SEARCH_PROBE_AFTER_MS);
    } catch (error) {
      if (settled) return;
      unresponsive = error instanceof Error ? error.message : String(error);
      controller.abort();
    }
  };
  timer = setTimeout(() => void probe(), SEARCH_PROBE_AFTER_MS);
  try {
    return await read({ ...options, signal: controller.signal });
  } catch (error) {
    if (unresponsive === undefined) throw error;
    throw new errors.TimeoutError(
      `Elasticsearch answered no liveness probe within ${SEARCH_PROBE_TIMEOUT_MS} ms while a read waited (${unresponsive})`,
    );
  } finally {
    settled = true;
    clearTimeout(timer);
  }
}

/** How long a client is asked to wait before trying again when search is unavailable (Retry-After). */
export const SEARCH_RETRY_AFTER_SECONDS = 5;

/**
 * Whether an error means Elasticsearch could not answer now (down, stuck, overloaded), as opposed to a bug
 * in what we asked: unreachable, timed out, or answering 429, 502, 503 or 504.
 */
export function isSearchUnavailable(error: unknown): boolean {
  if (
    error instanceof errors.ConnectionError ||
    error instanceof errors.TimeoutError ||
    error instanceof errors.NoLivingConnectionsError
  ) {
    return true;
  }
  const status = error instanceof errors.ResponseError ? error.meta.statusCode : undefined;
  return status === 429 || status === 502 || status === 503 || status === 504;
}

const TOO_MANY_CLAUSES = new Set(['too_many_nested_clauses', 'too_many_clauses']);
const MAX_CLAUSE_COUNT = /maxClauseCount is set to (\d+)/;

/**
 * The clause limit Elasticsearch named when it refused a search for having more clauses than its node allows
 * (a 400 whose shard failures are caused by too_many_nested_clauses or too_many_clauses), undefined for any
 * other error. The limit is the node's own (heap MB × 64 / search threads, at least 1,024 in Elasticsearch 9),
 * so only its refusal says it. Read from the error body: `failed_shards[].reason`, `root_cause[]` and their
 * `caused_by` chains, a few dozen objects at most.
 */
export function refusedClauseLimit(error: unknown): number | undefined {
  if (!(error instanceof errors.ResponseError) || error.meta.statusCode !== 400) return undefined;
  const body: unknown = error.meta.body;
  const pending: unknown[] = [isRecord(body) ? body.error : undefined];
  for (let seen = 0; pending.length > 0 && seen < 200; seen++) {
    const cause = pending.pop();
    if (!isRecord(cause)) continue;
    if (typeof cause.type === 'string' && TOO_MANY_CLAUSES.has(cause.type)) {
      const limit = typeof cause.reason === 'string' ? MAX_CLAUSE_COUNT.exec(cause.reason) : null;
      if (limit) return Number(limit[1]);
    }
    pending.push(cause.caused_by, cause.reason);
    for (const list of [cause.root_cause, cause.failed_shards])
      if (Array.isArray(list)) pending.push(...(list as unknown[]));
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What a CLI command throws when Elasticsearch cannot be used at all: unreachable or stuck (isSearchUnavailable)
 * or refusing the credentials (401). ELASTICSEARCH_URL is named, its nodes without user and password, with why:
 * `broadsheet: connect ECONNREFUSED 10.0.0.7:9200` alone named no setting. Any other error is returned as is.
 */
export function searchStartError(urls: readonly string[], error: unknown): unknown {
  const refused = error instanceof errors.ResponseError && error.meta.statusCode === 401;
  if (!refused && !isSearchUnavailable(error)) return error;
  const reason = refused
    ? 'it refused the credentials (401): check the user and password in the URL'
    : error instanceof Error
      ? error.message
      : String(error);
  return new Error(
    `cannot use Elasticsearch at ELASTICSEARCH_URL=${urls.map(loggableUrl).join(',')}: ${reason}`,
    { cause: error },
  );
}

/**
 * A search whose answer stays bytes (see raw-hits.ts for why), sent as an already serialised body so a
 * repeated search is not serialised again. An error status still throws the client's ResponseError, with the
 * parsed error body, as a plain `search` would.
 */
export async function searchBytes(
  search: SearchClient,
  index: string,
  body: string,
  options: TransportRequestOptions = {},
): Promise<Buffer> {
  return Buffer.concat(await searchChunks(search, index, body, options));
}

/**
 * searchBytes without joining the answer: its bytes in the chunks they came off the socket in, which
 * readRawHits reads as they are (a page of 100 is ~250 kB; joining it was a copy per request to collect).
 *
 * The client's transport hands a streamed answer back before it looks at the status, so two of its rules are
 * kept here: a node that answers 502, 503 or 504 is marked dead and the search goes to the next node, up to
 * `maxRetries` more tries (a node starting up or shedding load is not the cluster's answer); any other
 * answer marks its node alive again. And the client never hands retryOnTimeout to its transport, which reads
 * only its own: honoured here, with one more attempt (the transport marked the node that timed out dead, so
 * it goes to the next node).
 */
export async function searchChunks(
  search: SearchClient,
  index: string,
  body: string,
  options: TransportRequestOptions = {},
): Promise<Buffer[]> {
  const maxRetries = options.maxRetries ?? clientMaxRetries(search.connectionPool.size);
  let timeoutRetried = false;
  for (let attempt = 0; ; attempt++) {
    try {
      const chunks = await searchChunksOnce(search, index, body, options, attempt < maxRetries);
      if (chunks) return chunks;
    } catch (error) {
      if (options.retryOnTimeout !== true || timeoutRetried || !(error instanceof errors.TimeoutError)) {
        throw error;
      }
      timeoutRetried = true;
    }
  }
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * One try of searchChunks: the answer's chunks, or undefined when the node answered 502, 503 or 504 and
 * `mayRetry` lets the search go to the next one.
 */
async function searchChunksOnce(
  search: SearchClient,
  index: string,
  body: string,
  options: TransportRequestOptions,
  mayRetry: boolean,
): Promise<Buffer[] | undefined> {
  const response = await search.transport.request(
    { method: 'POST', path: `/${encodeURIComponent(index)}/_search`, body },
    { ...options, asStream: true, meta: true, headers: JSON_HEADERS },
  );
  const chunks = await readChunks(response.body as Readable);
  const { statusCode } = response;
  const { connection } = response.meta;
  if (statusCode === 502 || statusCode === 503 || statusCode === 504) {
    if (connection) search.connectionPool.markDead(connection);
    if (mayRetry) return undefined;
  } else if (connection) {
    search.connectionPool.markAlive(connection);
  }
  if (statusCode !== null && statusCode >= 400) {
    const text = Buffer.concat(chunks).toString('utf8');
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: keep the text.
    }
    throw new errors.ResponseError({ ...response, body: parsed });
  }
  return chunks;
}

/** A stream's chunks, gathered with plain listeners (an async iterator costs a promise per chunk). */
function readChunks(stream: Readable): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolve(chunks));
    stream.once('error', reject);
  });
}
