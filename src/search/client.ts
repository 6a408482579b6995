import { Client, errors } from '@elastic/elasticsearch';

export type SearchClient = Client;

export function createSearchClient(url: string): SearchClient {
  return new Client({ node: url, maxRetries: 3, requestTimeout: 30_000 });
}

/**
 * A search whose answer stays bytes (see raw-hits.ts for why), sent as an already serialised body so a
 * repeated search is not serialised again. An error status still throws the client's ResponseError, with the
 * parsed error body, as a plain `search` would.
 */
export async function searchBytes(search: SearchClient, index: string, body: string): Promise<Buffer> {
  const response = await search.transport.request(
    { method: 'POST', path: `/${encodeURIComponent(index)}/_search`, body },
    { asStream: true, meta: true, headers: { 'content-type': 'application/json' } },
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
