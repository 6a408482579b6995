import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument } from '../helpers/documents';
import { ALL_SCOPES, createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, eventually, type ApiResponse } from '../helpers/http';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { expectConverged, failedJobs, sleep, waitForDrainedQueues } from './convergence';

/** The number: Elasticsearch away for 60 s. CHAOS_OUTAGE_SECONDS shortens it for a quick local run. */
const OUTAGE_MS = Number(process.env.CHAOS_OUTAGE_SECONDS ?? 60) * 1000;
jest.setTimeout(OUTAGE_MS + 240_000);

/**
 * Elasticsearch unreachable for 60 s while publishes, unpublishes and imports go on. The outage is made by
 * cutting the connection: the app and its workers reach Elasticsearch through a TCP proxy that refuses
 * connections (the shared Elasticsearch keeps running for everything else). Postgres-backed reads keep
 * answering 200, searches answer the 503 envelope with Retry-After, and once Elasticsearch is back the
 * index converges with Postgres exactly: zero drift, nothing lost, nothing resurrected.
 */
describe('when Elasticsearch is unreachable for a minute under publishing load', () => {
  let proxy: TcpProxy;
  let app: TestApp;
  let projectId: number;
  let api: ReturnType<typeof apiClient>;
  const documents: number[] = [];

  beforeAll(async () => {
    const env = await isolatedEnv('chaos_outage');
    proxy = await startTcpProxy(process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9200');
    app = await startTestApp({ workers: true, env: { ...env, ELASTICSEARCH_URL: proxy.url } });
    ({ projectId } = await createTestProject(app.ctx));
    api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ALL_SCOPES)).token);
    for (let i = 0; i < 40; i += 1) {
      const { documentId } = await createPublishedDocument(app.ctx, projectId, {
        metadata: { title: `outage ${i}` },
      });
      documents.push(documentId);
    }
    await waitForDrainedQueues(app.ctx, 60_000);
  });
  afterAll(async () => {
    await proxy.up();
    await app.close();
    await proxy.close();
  });

  it('then reads answer, searches answer 503 with Retry-After, and afterwards the index converges exactly', async () => {
    const published = new Set(documents);
    const problems: { what: string; status: number; body: unknown }[] = [];
    const counts = { commands: 0, imports: 0, reads: 0, searches: 0 };
    const expectStatus = (what: string, response: ApiResponse, allowed: number[]) => {
      if (!allowed.includes(response.status))
        problems.push({ what, status: response.status, body: response.body });
    };

    await proxy.down('refuse');
    const outageEnds = Date.now() + OUTAGE_MS;
    const imports: string[] = [];
    // Four writers, each on its own documents (no two commands race on one document), and one reader.
    const writers = [0, 1, 2, 3].map(async (writer) => {
      const mine = documents.filter((_, index) => index % 4 === writer);
      for (let round = 0; Date.now() < outageEnds; round += 1) {
        const documentId = mine[round % mine.length]!;
        const operation = published.has(documentId) ? 'unpublish' : 'publish';
        const response = await api.patch(`documents/${documentId}/commands`, {
          commands: [
            {
              operation: 'setMetadataProperty',
              propertyName: 'title',
              value: `outage ${documentId} ${round}`,
            },
            { operation },
          ],
        });
        counts.commands += 1;
        expectStatus(`${operation} ${documentId}`, response, [200, 204]);
        if (response.status < 300) {
          if (operation === 'publish') published.add(documentId);
          else published.delete(documentId);
        }
        if (round % 10 === writer) {
          const started = await api.post('import/documents', {
            systemName: 'chaos',
            documents: [0, 1, 2].map((n) => ({
              id: `outage-${writer}-${round}-${n}`,
              contentType: 'regular',
              metadata: { title: `imported ${writer} ${round} ${n}` },
              flags: { autoPublish: true },
            })),
          });
          counts.imports += 1;
          expectStatus('import', started, [200]);
          if (started.status === 200) imports.push(started.body.id as string);
        }
      }
    });
    const reader = (async () => {
      for (let round = 0; Date.now() < outageEnds; round += 1) {
        const documentId = documents[round % documents.length]!;
        expectStatus('latestDraft', await api.get(`documents/${documentId}/latestDraft`), [200]);
        expectStatus(
          'latestPublication',
          await api.get(`documents/${documentId}/latestPublication`),
          [200, 404],
        );
        expectStatus('publicationEvents', await api.get('publicationEvents?limit=20'), [200]);
        counts.reads += 3;
        const search = await api.get('publications/search?search=outage');
        counts.searches += 1;
        const isEnvelope =
          search.status === 503 &&
          search.headers.get('retry-after') === '5' &&
          search.body?.error_details?.name === 'SearchUnavailable';
        if (!isEnvelope) problems.push({ what: 'search', status: search.status, body: search.body });
        await sleep(200);
      }
    })();
    await Promise.all([...writers, reader]);
    await proxy.up();

    expect(problems.slice(0, 5)).toEqual([]);
    expect(counts.commands).toBeGreaterThan(40);
    expect(counts.imports).toBeGreaterThan(0);
    expect(counts.searches).toBeGreaterThan(10);
    // Every import finished (they write Postgres only; their index jobs wait like the others).
    for (const id of imports) {
      await eventually(
        async () => (await api.get(`import/documents/status?id=${id}`)).body?.finished,
        60_000,
        500,
      );
    }
    // Index jobs retry with backoff (1, 2, 4 ... 64 s): the last retries of the outage land within a minute.
    await waitForDrainedQueues(app.ctx, 150_000);
    expect(await failedJobs(app.ctx)).toBe(0);
    await expectConverged(app.ctx, projectId, {
      published,
      unpublished: documents.filter((id) => !published.has(id)),
    });
    expect((await api.get('publications/search?search=outage')).status).toBe(200);
  });
});
