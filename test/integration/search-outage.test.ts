import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument, indexNow } from '../helpers/documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { eventually } from '../helpers/http';
import { startDelayingProxy } from '../helpers/delaying-proxy';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

/**
 * Elasticsearch going away, seen through a proxy the test takes down (the run's Elasticsearch is shared
 * and keeps running): reads fail fast with a 503 a client can act on, readiness answers within its
 * timeout, and everything answers again as soon as Elasticsearch is back.
 */
describe('when Elasticsearch is unavailable', () => {
  let proxy: TcpProxy;
  let app: TestApp;
  let token: string;
  let documentId: number;

  beforeAll(async () => {
    proxy = await startTcpProxy(process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9200');
    // The path that asks Elasticsearch: with the search answer cache on, a kept answer is served through an
    // outage (the last test).
    app = await startTestApp({ env: { ELASTICSEARCH_URL: proxy.url, SEARCH_CACHE: 'off' } });
    const { projectId } = await createTestProject(app.ctx);
    token = (await tokenFor(app.ctx, projectId, ['public-api:read'])).token;
    ({ documentId } = await createPublishedDocument(app.ctx, projectId, { metadata: { title: 'Outage' } }));
    await indexNow(app.ctx, projectId, [documentId]);
  });
  afterEach(async () => {
    await proxy.up();
  });
  afterAll(async () => {
    await app.close();
    await proxy.close();
  });

  /** A client that gives up after `patienceMs`: the API must have answered by then. */
  async function get(path: string, patienceMs: number) {
    const response = await fetch(`${app.url}${path}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(patienceMs),
    });
    return { status: response.status, headers: response.headers, body: await response.json() };
  }

  const SEARCHES = [
    '/api/2026-03/publications/search?search=outage',
    '/api/2026-03/documents/latestPublications',
  ];

  describe.each(['refuse', 'hang'] as const)('because it %ss connections', (mode) => {
    it.each(SEARCHES)('then %s answers 503 with the envelope and Retry-After within 5 s', async (path) => {
      expect((await get(path, 10_000)).status).toBe(200);
      await proxy.down(mode);
      const response = await get(path, 5_000);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(response.body).toEqual({
        status: 503,
        error: 'Service Unavailable',
        error_details: {
          name: 'SearchUnavailable',
          message: 'Search is unavailable right now; try again in a few seconds',
        },
      });
    });

    it('then /health/ready answers 503 naming Elasticsearch, not its error, within its 2 s timeout', async () => {
      await proxy.down(mode);
      const response = await get('/api/2026-03/health/ready', 3_000);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      // Anonymous callers learn which dependency, not its error (hosts, ports: 'connect ECONNREFUSED ...').
      expect(response.body).toEqual({
        status: 503,
        error: 'Service Unavailable',
        error_details: {
          name: 'NotReady',
          message: 'A dependency is not ready',
          postgres: 'ok',
          elasticsearch: 'unavailable',
        },
      });
      // The OpenAPI description says so: the Retry-After header, and an example with the same keys.
      const description = (await (await fetch(`${app.url}/api/2026-03/openapi.json`)).json()) as {
        paths: Record<string, { get: { responses: Record<string, Record<string, unknown>> } }>;
      };
      const described = description.paths['/health/ready']!.get.responses['503']! as {
        headers?: Record<string, unknown>;
        content: { 'application/json': { example: { error_details: Record<string, unknown> } } };
      };
      expect(Object.keys(described.headers ?? {})).toContain('Retry-After');
      expect(Object.keys(described.content['application/json'].example.error_details).sort()).toEqual(
        Object.keys((response.body as { error_details: object }).error_details).sort(),
      );
    });

    it('then the reads that Postgres answers alone keep working', async () => {
      await proxy.down(mode);
      const response = await get(`/api/2026-03/documents/${documentId}/latestPublication`, 4_000);
      expect(response.status).toBe(200);
    });
  });

  it('when the search answer cache holds an answer, then it is served through an outage, and an answer it does not hold is 503', async () => {
    const cached = await startTestApp({ env: { ELASTICSEARCH_URL: proxy.url } });
    try {
      const ask = async (path: string) => {
        const response = await fetch(`${cached.url}${path}`, {
          headers: { authorization: `Bearer ${token}` },
          signal: AbortSignal.timeout(5_000),
        });
        return { status: response.status, body: await response.json() };
      };
      const path = '/api/2026-03/documents/latestPublications';
      const before = await ask(path);
      expect(before.status).toBe(200);
      // Kept once the cache listens (it starts at the first search).
      await eventually(
        async () => {
          const hits = cached.ctx.searchAnswers.stats().hits;
          await ask(path);
          return cached.ctx.searchAnswers.stats().hits > hits;
        },
        5_000,
        50,
      );
      await proxy.down('refuse');
      // Nothing can have changed in the index meanwhile without a write window telling this process.
      expect(await ask(path)).toEqual(before);
      expect((await ask('/api/2026-03/publications/search?search=outage')).status).toBe(503);
    } finally {
      await proxy.up();
      await cached.close();
    }
  });

  it('when Elasticsearch is busy (searches take 4 s) but answers, then searches wait for it and answer 200', async () => {
    // Past the former flat 3 s timeout, within the patience (SEARCH_PATIENCE_MS); Elasticsearch itself answers
    // its liveness probe at once, as a loaded node does.
    const slow = await startDelayingProxy(
      process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9200',
      (request) => (request.url?.includes('/_search') ? 4_000 : 0),
    );
    const busy = await startTestApp({ env: { ELASTICSEARCH_URL: slow.url, SEARCH_CACHE: 'off' } });
    try {
      for (const path of SEARCHES) {
        const response = await fetch(`${busy.url}${path}`, {
          headers: { authorization: `Bearer ${token}` },
          signal: AbortSignal.timeout(15_000),
        });
        expect(response.status).toBe(200);
        const { results } = (await response.json()) as { results: { systemdata: { documentId: number } }[] };
        expect(results.map((item) => item.systemdata.documentId)).toContain(documentId);
      }
      // The searches went through the delay, and Elasticsearch was probed while they waited.
      expect(slow.requests.filter((request) => request.path.includes('/_search'))).toHaveLength(2);
      expect(
        slow.requests.filter((request) => request.path.startsWith('/_cluster/health')).length,
      ).toBeGreaterThan(0);
    } finally {
      await busy.close();
      await slow.close();
    }
  });

  it('when Elasticsearch comes back, then searches and readiness answer 200 again without a restart', async () => {
    await proxy.down('refuse');
    expect((await get(SEARCHES[0]!, 4_000)).status).toBe(503);
    await proxy.up();
    await eventually(async () => (await get(SEARCHES[0]!, 4_000)).status === 200, 5_000, 100);
    expect((await get('/api/2026-03/health/ready', 3_000)).status).toBe(200);
  });
});
