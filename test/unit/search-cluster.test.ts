import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errors } from '@elastic/elasticsearch';
import {
  createSearchClient,
  SEARCH_PATIENCE_MS,
  searchBytes,
  searchReadOptions,
} from '../../src/search/client';
import { publicationsIndexDefinition } from '../../src/search/index-aliases';

describe('the publications index definition: replicas', () => {
  it('when no replicas are configured, then the mapping file auto-expands them (0-1)', () => {
    const { settings } = publicationsIndexDefinition();
    expect(settings.index).toMatchObject({ number_of_replicas: 0, auto_expand_replicas: '0-1' });
  });

  it('when ELASTICSEARCH_REPLICAS is 1, then the index gets exactly one replica and no auto-expansion', () => {
    const { settings } = publicationsIndexDefinition(1);
    expect(settings.index).toMatchObject({ number_of_replicas: 1, auto_expand_replicas: 'false' });
  });
});

describe('searchReadOptions: how a search tries again', () => {
  it('when there is one node, then one immediate retry of a failed connection and none of a timeout', () => {
    expect(searchReadOptions(1)).toMatchObject({
      requestTimeout: SEARCH_PATIENCE_MS,
      maxRetries: 1,
      retryOnTimeout: false,
    });
  });

  it('when there are two nodes, then a retry per node, and a timed-out search is tried again', () => {
    expect(searchReadOptions(2)).toMatchObject({
      requestTimeout: SEARCH_PATIENCE_MS,
      maxRetries: 2,
      retryOnTimeout: true,
    });
  });
});

describe('searchBytes in a cluster: a node that does not answer in time', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  /** A fake node: answers a search with `{"took":1}`, or never when `stuck`. */
  async function node(stuck: boolean): Promise<{ url: string; searches: () => number }> {
    let searches = 0;
    const server = createServer((request, response) => {
      searches += 1;
      request.resume();
      if (stuck) return;
      response.writeHead(200, { 'content-type': 'application/json', 'x-elastic-product': 'Elasticsearch' });
      response.end('{"took":1}');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, searches: () => searches };
  }

  it('when the first node times out, then the search is answered by the other one', async () => {
    const stuck = await node(true);
    const healthy = await node(false);
    const search = createSearchClient([stuck.url, healthy.url]);
    const options = { ...searchReadOptions(2), requestTimeout: 200 };
    const bytes = await searchBytes(search, 'publications', '{}', options);
    expect(JSON.parse(bytes.toString('utf8'))).toEqual({ took: 1 });
    expect(stuck.searches()).toBe(1);
    expect(healthy.searches()).toBe(1);
    await search.close();
  });

  it('when there is one node and it times out, then the search fails with the timeout (no second wait)', async () => {
    const stuck = await node(true);
    const search = createSearchClient(stuck.url);
    const options = { ...searchReadOptions(1), requestTimeout: 200 };
    await expect(searchBytes(search, 'publications', '{}', options)).rejects.toBeInstanceOf(
      errors.TimeoutError,
    );
    expect(stuck.searches()).toBe(1);
    await search.close();
  });
});
