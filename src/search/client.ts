import { Client, errors, type TransportRequestOptions } from '@elastic/elasticsearch';

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
  return new Client({ nodes, maxRetries: Math.max(3, nodes.length), requestTimeout: 30_000 });
}

/**
 * Per-request options of the API's searches (built once per process, src/context.ts): a client waits for an
 * answer, so a search fails within seconds when Elasticsearch is down or stuck. One immediate retry per node
 * (at least one) covers a kept-alive connection that was closed under us and, in a cluster, a node that has
 * just died: the retry goes to the next node. In a cluster a search that timed out is tried once more
 * (searchBytes does it: the client's transport ignores retryOnTimeout per request): searches in flight at the
 * instant a node was SIGKILLed waited out their 3 s on the surviving node, busy failing over, and answered
 * 503 (the scale-out chaos test, 2 kills of 3). A search is idempotent; the cost is a longer wait before the
 * 503 when the whole cluster is stuck (3 s more). The defaults'
 * backoff made a refused connection take 6-10 s. The slowest searches of the bench take ~0.2 s: 3 s is a
 * stuck node, not a slow query.
 */
export function searchReadOptions(nodeCount = 1): TransportRequestOptions {
  return {
    requestTimeout: 3_000,
    maxRetries: Math.max(1, nodeCount),
    retryOnTimeout: nodeCount > 1,
    retryBackoff: () => 0,
  };
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
  try {
    return await searchBytesOnce(search, index, body, options);
  } catch (error) {
    // The client never hands retryOnTimeout to its transport, which reads only its own: honoured here, with
    // one more attempt. The transport marked the node that timed out dead, so it goes to the next node.
    if (options.retryOnTimeout === true && error instanceof errors.TimeoutError) {
      return searchBytesOnce(search, index, body, options);
    }
    throw error;
  }
}

async function searchBytesOnce(
  search: SearchClient,
  index: string,
  body: string,
  options: TransportRequestOptions,
): Promise<Buffer> {
  const response = await search.transport.request(
    { method: 'POST', path: `/${encodeURIComponent(index)}/_search`, body },
    { ...options, asStream: true, meta: true, headers: { 'content-type': 'application/json' } },
  );
  const chunks: Buffer[] = [];
  for await (const chunk of response.body as AsyncIterable<Buffer>) chunks.push(chunk);
  const bytes = Buffer.concat(chunks);
  if (response.statusCode !== null && response.statusCode >= 400) {
    let parsed: unknown = bytes.toString('utf8');
    try {
      parsed = JSON.parse(bytes.toString('utf8'));
    } catch {
      // Not JSON: keep the text.
    }
    throw new errors.ResponseError({ ...response, body: parsed });
  }
  return bytes;
}
