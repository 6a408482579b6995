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

describe('searchBytes in a cluster: nodes that fail or do not answer in time', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  /**
   * A fake node: answers a search with `{"took":1}`, never when `stuck`, or with `status` and an error body
   * like Elasticsearch's.
   */
  async function node(stuck: boolean, status = 200): Promise<{ url: string; searches: () => number }> {
    let searches = 0;
    const server = createServer((request, response) => {
      searches += 1;
      request.resume();
      if (stuck) return;
      response.writeHead(status, {
        'content-type': 'application/json',
        'x-elastic-product': 'Elasticsearch',
      });
      response.end(
        status === 200
          ? '{"took":1}'
          : JSON.stringify({ error: { type: 'search_phase_execution_exception' }, status }),
      );
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

  /** A URL nothing listens on: a closed server's port. */
  async function refusingUrl(): Promise<string> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    return `http://127.0.0.1:${port}`;
  }

  it('when the first node refuses the connection, then the search is answered by the other one', async () => {
    const healthy = await node(false);
    const search = createSearchClient([await refusingUrl(), healthy.url]);
    const bytes = await searchBytes(search, 'publications', '{}', searchReadOptions(2));
    expect(JSON.parse(bytes.toString('utf8'))).toEqual({ took: 1 });
    expect(healthy.searches()).toBe(1);
    await search.close();
  });

  it('when the only node refuses the connection, then the search fails with a ConnectionError', async () => {
    const search = createSearchClient(await refusingUrl());
    await expect(searchBytes(search, 'publications', '{}', searchReadOptions(1))).rejects.toBeInstanceOf(
      errors.ConnectionError,
    );
    await search.close();
  });

  it('when the first node answers 503, then the search is answered by the other one', async () => {
    const unavailable = await node(false, 503);
    const healthy = await node(false);
    const search = createSearchClient([unavailable.url, healthy.url]);
    const bytes = await searchBytes(search, 'publications', '{}', searchReadOptions(2));
    expect(JSON.parse(bytes.toString('utf8'))).toEqual({ took: 1 });
    expect(unavailable.searches()).toBe(1);
    expect(healthy.searches()).toBe(1);
    await search.close();
  });

  it('when the only node answers 503, then it is tried once more and the search fails with its 503', async () => {
    const unavailable = await node(false, 503);
    const search = createSearchClient(unavailable.url);
    await expect(searchBytes(search, 'publications', '{}', searchReadOptions(1))).rejects.toMatchObject({
      meta: { statusCode: 503 },
    });
    expect(unavailable.searches()).toBe(2);
    await search.close();
  });

  it('when a node answers 400, then the search fails at once with its status and parsed error body', async () => {
    const refusing = await node(false, 400);
    const healthy = await node(false);
    const search = createSearchClient([refusing.url, healthy.url]);
    const failure = searchBytes(search, 'publications', '{}', searchReadOptions(2));
    await expect(failure).rejects.toBeInstanceOf(errors.ResponseError);
    await expect(failure).rejects.toMatchObject({
      meta: { statusCode: 400, body: { error: { type: 'search_phase_execution_exception' } } },
    });
    expect(refusing.searches()).toBe(1);
    expect(healthy.searches()).toBe(0);
    await search.close();
  });

  it('when the read is aborted before it starts, then nothing is sent and it fails as aborted', async () => {
    const healthy = await node(false);
    const search = createSearchClient(healthy.url);
    const controller = new AbortController();
    controller.abort();
    await expect(
      searchBytes(search, 'publications', '{}', { ...searchReadOptions(1), signal: controller.signal }),
    ).rejects.toBeInstanceOf(errors.RequestAbortedError);
    expect(healthy.searches()).toBe(0);
    await search.close();
  });
});
