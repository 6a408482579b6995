import { Client, errors, type estypes } from '@elastic/elasticsearch';

export type SearchClient = Client;

export function createSearchClient(url: string): SearchClient {
  return new Client({ node: url, maxRetries: 3, requestTimeout: 30_000 });
}

/**
 * A search whose answer stays bytes (see raw-hits.ts for why). An error status still throws the client's
 * ResponseError, with the parsed error body, as a plain `search` would.
 */
export async function searchBytes(search: SearchClient, request: estypes.SearchRequest): Promise<Buffer> {
  const response = await search.search(request, { asStream: true, meta: true });
  const chunks: Buffer[] = [];
  for await (const chunk of response.body as unknown as AsyncIterable<Buffer>) chunks.push(chunk);
  const bytes = Buffer.concat(chunks);
  if (response.statusCode !== null && response.statusCode >= 400) {
    let body: unknown = bytes.toString('utf8');
    try {
      body = JSON.parse(bytes.toString('utf8'));
    } catch {
      // Not JSON: keep the text.
    }
    throw new errors.ResponseError({ ...response, body });
  }
  return bytes;
}
