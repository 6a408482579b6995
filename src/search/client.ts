import { Client } from '@elastic/elasticsearch';

export type SearchClient = Client;

export function createSearchClient(url: string): SearchClient {
  return new Client({ node: url, maxRetries: 3, requestTimeout: 30_000 });
}
