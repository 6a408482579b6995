import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { importDocumentsNow } from '../../src/commands/import-documents';
import { ApiVersion } from '../../src/domain/api-versions';
import { ImportRequestSchema } from '../../src/domain/import-request';
import { QUEUE_NAMES, QUEUES } from '../../src/jobs/queues';
import { startMetricsServer } from '../../src/metrics/server';
import { searchDocumentId } from '../../src/search/document-builder';
import { verifyIndex } from '../../src/search/index-manager';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument } from '../helpers/documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, envelope, eventually } from '../helpers/http';

const METRICS_TOKEN = 'metrics-token-for-the-test-0123456789';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus's text exposition format, as a scraper reads it: one sample per line, comments skipped. */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[label[1]!] = label[2]!.replace(/\\(.)/g, (_all, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

describe('GET /metrics', () => {
  let app: TestApp;
  let projectId: number;
  let token: string;

  beforeAll(async () => {
    const env = await isolatedEnv('metrics');
    app = await startTestApp({ workers: true, env: { ...env, METRICS_TOKEN } });
    ({ projectId } = await createTestProject(app.ctx));
    ({ token } = await tokenFor(app.ctx, projectId));
  });
  afterAll(async () => {
    await app.close();
  });

  async function scrape(url = `${app.url}/metrics`): Promise<Sample[]> {
    const response = await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseExposition(await response.text());
  }

  it('when the metrics token is missing or wrong, then 401 in the envelope and no metrics', async () => {
    const missing = await apiClient(app.url).get('/metrics');
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual(envelope(401, 'Unauthorized', { name: 'Unauthorized' }));
    expect(missing.text).not.toContain('broadsheet_');
    // RFC 6750 §3.1: no token, a bare challenge; a wrong one, invalid_token (as the API's own 401s say).
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    const wrong = await apiClient(app.url, 'not-the-metrics-token').get('/metrics');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe(
      'Bearer realm="metrics", error="invalid_token", error_description="The metrics token is invalid."',
    );
    // An API client's token is not the metrics token either.
    expect((await apiClient(app.url, token).get('/metrics')).status).toBe(401);
  });

  it('when the bearer scheme is written in another case or with several spaces, then the token is read as the API reads its own', async () => {
    for (const authorization of [`bearer ${METRICS_TOKEN}`, `BEARER   ${METRICS_TOKEN}`]) {
      const response = await fetch(`${app.url}/metrics`, { headers: { authorization } });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('broadsheet_');
    }
    for (const authorization of [`Basic ${METRICS_TOKEN}`, 'Bearer', `Bearer ${METRICS_TOKEN} extra`]) {
      const response = await fetch(`${app.url}/metrics`, { headers: { authorization } });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual(
        envelope(401, 'Unauthorized', { name: 'Unauthorized', message: 'The metrics token is invalid.' }),
      );
    }
  });

  it('when METRICS_TOKEN is not set, then there is no /metrics route at all', async () => {
    const plain = await startTestApp();
    try {
      const response = await apiClient(plain.url).get('/metrics');
      expect(response.status).toBe(404);
    } finally {
      await plain.close();
    }
  });

  it('when requests were answered, then they are counted by route template, never by raw URL', async () => {
    const api = apiClient(app.url, token);
    expect((await api.get('documents/987654/latestPublication')).status).toBe(404);
    expect((await api.get('documents/123456/latestPublication')).status).toBe(404);
    expect((await apiClient(app.url).get('documents/5/latestPublication')).status).toBe(401);
    expect((await api.get('/no/such/path/4242')).status).toBe(404);
    expect((await api.withVersion('1999-01').get('health')).status).toBe(404);
    expect((await api.get('health')).status).toBe(200);

    const samples = await scrape();
    const requests = samples.filter((s) => s.name === 'broadsheet_http_requests_total');
    const route = '/api/:apiVersion/documents/:documentId/latestPublication';
    expect(requests).toContainEqual({
      name: 'broadsheet_http_requests_total',
      labels: { method: 'GET', route, status: '404', process: 'api' },
      value: 2,
    });
    expect(requests).toContainEqual(
      expect.objectContaining({ labels: { method: 'GET', route, status: '401', process: 'api' }, value: 1 }),
    );
    expect(requests).toContainEqual(
      expect.objectContaining({
        labels: { method: 'GET', route: '/api/:apiVersion/health', status: '200', process: 'api' },
      }),
    );
    const unmatched = requests.filter((s) => s.labels.route === 'unmatched' && s.labels.status === '404');
    expect(unmatched.reduce((sum, s) => sum + s.value, 0)).toBeGreaterThanOrEqual(2);
    // Every route label is a template or `unmatched`: no document id, no unknown path, no version.
    for (const sample of requests) {
      expect(sample.labels.route).toMatch(/^(unmatched|\/metrics|\/api\/:apiVersion(\/[A-Za-z:.-]+)*)$/);
    }
    const durations = samples.filter(
      (s) => s.name === 'broadsheet_http_request_duration_seconds_count' && s.labels.route === route,
    );
    expect(durations.map((s) => s.labels.status).sort()).toEqual(['401', '404']);
    const buckets = samples.filter(
      (s) =>
        s.name === 'broadsheet_http_request_duration_seconds_bucket' &&
        s.labels.route === route &&
        s.labels.status === '404',
    );
    expect(buckets.find((s) => s.labels.le === '+Inf')?.value).toBe(2);
  });

  it('when scraped, then queues, the pool, Elasticsearch and process memory are reported', async () => {
    const samples = await scrape();
    const value = (name: string, labels: Record<string, string> = {}) =>
      samples.find((s) => s.name === name && Object.entries(labels).every(([key, v]) => s.labels[key] === v))
        ?.value;
    for (const queue of QUEUE_NAMES) {
      expect(value('broadsheet_queue_depth', { queue })).toBeGreaterThanOrEqual(0);
      expect(value('broadsheet_queue_failed_jobs', { queue })).toBeGreaterThanOrEqual(0);
      expect(value('broadsheet_queue_active_jobs', { queue })).toBeGreaterThanOrEqual(0);
    }
    expect(value('broadsheet_postgres_up')).toBe(1);
    expect(value('broadsheet_pg_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    expect(value('broadsheet_pg_pool_connections', { state: 'waiting' })).toBe(0);
    expect(value('broadsheet_pg_pool_max_connections')).toBe(app.ctx.config.database.poolSize);
    expect(value('broadsheet_elasticsearch_up')).toBe(1);
    const statuses = samples.filter((s) => s.name === 'broadsheet_elasticsearch_cluster_status');
    expect(statuses.filter((s) => s.value === 1)).toHaveLength(1);
    expect(value('process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
    expect(value('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it("when scraped while the pool is idle, then the scrape's own queries are not counted as waiting", async () => {
    // Idle connections in the pool, and no probe of an earlier scrape to share (they are kept for a second).
    await Promise.all([app.ctx.pool.query('SELECT 1'), app.ctx.pool.query('SELECT 1')]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const samples = await scrape();
    const pool = (state: string) =>
      samples.find((s) => s.name === 'broadsheet_pg_pool_connections' && s.labels.state === state)?.value;
    expect(pool('idle')).toBeGreaterThanOrEqual(1);
    expect(pool('waiting')).toBe(0);
  });

  it('when a queue has waiting and failed jobs, then depth and failures are counted per queue', async () => {
    const queue = 'scheduled-publish';
    const before = await scrape();
    const of = (samples: Sample[], name: string) =>
      samples.find((s) => s.name === name && s.labels.queue === queue)?.value ?? 0;
    // A job for later waits; a job failed for good stays failed.
    await app.ctx.boss.send(
      queue,
      { projectId, documentId: 1, at: new Date().toISOString() },
      {
        startAfter: new Date(Date.now() + 3_600_000),
      },
    );
    const failing = await app.ctx.boss.send(
      queue,
      { projectId, documentId: 2, at: new Date().toISOString() },
      { retryLimit: 0, startAfter: new Date(Date.now() + 3_600_000) },
    );
    await app.ctx.boss.fail(queue, failing!, { reason: 'test' });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const after = await scrape();
    expect(of(after, 'broadsheet_queue_depth')).toBe(of(before, 'broadsheet_queue_depth') + 1);
    expect(of(after, 'broadsheet_queue_failed_jobs')).toBe(of(before, 'broadsheet_queue_failed_jobs') + 1);
  });

  it('when a document is published, then the indexer observes its index lag', async () => {
    const lagCount = async () =>
      (await scrape()).find((s) => s.name === 'broadsheet_index_lag_seconds_count')?.value ?? 0;
    const before = await lagCount();
    await createPublishedDocument(app.ctx, projectId, { metadata: { title: 'Lagging behind' } });
    await eventually(async () => (await lagCount()) > before, 15_000, 300);
    const samples = await scrape();
    const sum = samples.find((s) => s.name === 'broadsheet_index_lag_seconds_sum')!.value;
    // Published and indexed by the workers in this process: seconds, not minutes.
    expect(sum / (await lagCount())).toBeLessThan(30);
  });

  it('when an import batch job waits beside a publish job, then pending documents count the documents, not the jobs', async () => {
    const pending = async () =>
      (await scrape()).find(
        (s) => s.name === 'broadsheet_index_pending_documents' && s.labels.state === 'queued',
      )?.value;
    const before = (await pending()) ?? 0;
    // Due in an hour, so the workers of this process leave them waiting.
    const later = { startAfter: new Date(Date.now() + 3_600_000) };
    const batch = await app.ctx.boss.send(
      QUEUES.indexDocuments.name,
      { projectId, documentIds: [901, 902, 903] },
      later,
    );
    const single = await app.ctx.boss.send(QUEUES.indexDocument.name, { projectId, documentId: 904 }, later);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await pending()).toBe(before + 4);
    await app.ctx.boss.deleteJob(QUEUES.indexDocuments.name, batch!);
    await app.ctx.boss.deleteJob(QUEUES.indexDocument.name, single!);
  });

  it('when an import publishes documents, then the index lag is observed once per publication its batch job writes', async () => {
    const lagCount = async () =>
      (await scrape()).find((s) => s.name === 'broadsheet_index_lag_seconds_count')?.value ?? 0;
    const before = await lagCount();
    const job = await importDocumentsNow(
      app.ctx,
      projectId,
      ApiVersion.latest(),
      ImportRequestSchema.parse({
        systemName: 'metrics-import',
        documents: Array.from({ length: 7 }, (_, i) => ({
          id: `lag-${i}`,
          contentType: 'regular',
          title: `Imported lag ${i}`,
          flags: { autoPublish: true },
        })),
      }),
      { batchSize: 4 },
    );
    expect(job.logs.map((log) => log.state)).toEqual(Array.from({ length: 7 }, () => 'published'));
    await eventually(async () => (await lagCount()) >= before + 7, 15_000, 300);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await lagCount()).toBe(before + 7);
  });

  it('when `index verify` ran, then the drift it found is reported until the next verify', async () => {
    const before = await scrape();
    expect(before.filter((s) => s.name === 'broadsheet_index_drift_documents')).toEqual([]);
    // Never verified: 0, so `time() - broadsheet_index_last_verify_timestamp_seconds > 86400` alerts on it too.
    expect(before.find((s) => s.name === 'broadsheet_index_last_verify_timestamp_seconds')?.value).toBe(0);
    // A published document whose index entry went away behind the indexer's back: missing.
    const { documentId } = await createPublishedDocument(app.ctx, projectId);
    const id = searchDocumentId(projectId, documentId);
    await eventually(() => app.ctx.search.exists({ index: app.ctx.index.alias, id }), 15_000);
    await app.ctx.search.delete({ index: app.ctx.index.alias, id, refresh: true });
    const report = await verifyIndex({ db: app.ctx.pool, search: app.ctx.search, index: app.ctx.index });
    expect(report.missing).toEqual([{ projectId, documentId }]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const samples = await scrape();
    const drift = Object.fromEntries(
      samples
        .filter((s) => s.name === 'broadsheet_index_drift_documents')
        .map((s) => [s.labels.kind, s.value]),
    );
    expect(drift).toEqual({ missing: 1, stale: 0, extra: 0, rejected: 0 });
    const verifiedAt = samples.find(
      (s) => s.name === 'broadsheet_index_last_verify_timestamp_seconds',
    )!.value;
    expect(Math.abs(verifiedAt - Date.now() / 1000)).toBeLessThan(60);
  });

  describe("the workers' metrics server", () => {
    let server: Server;
    let url: string;
    beforeAll(async () => {
      server = await startMetricsServer(app.ctx.metrics, {
        host: '127.0.0.1',
        port: 0,
        token: METRICS_TOKEN,
      });
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it('when scraped with the token, then it answers the registry; without, 401; elsewhere, 404', async () => {
      const samples = await scrape(`${url}/metrics`);
      expect(samples.some((s) => s.name === 'broadsheet_queue_depth')).toBe(true);
      expect(samples.some((s) => s.name === 'process_resident_memory_bytes')).toBe(true);
      expect((await fetch(`${url}/metrics`)).status).toBe(401);
      // The workers' server reads the header as the API does: the scheme in any case, several spaces.
      expect(
        (await fetch(`${url}/metrics`, { headers: { authorization: `bearer  ${METRICS_TOKEN}` } })).status,
      ).toBe(200);
      const elsewhere = await fetch(`${url}/other`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      expect(elsewhere.status).toBe(404);
      expect(await elsewhere.json()).toEqual(envelope(404, 'Not Found', { name: 'NotFound' }));
    });

    it('when /metrics is asked with another method than GET or HEAD, then 405 with Allow: GET, HEAD in the envelope', async () => {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
        const response = await fetch(`${url}/metrics`, {
          method,
          headers: { authorization: `Bearer ${METRICS_TOKEN}` },
        });
        expect({ method, status: response.status, allow: response.headers.get('allow') }).toEqual({
          method,
          status: 405,
          allow: 'GET, HEAD',
        });
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await response.json()).toEqual(
          envelope(405, 'Method Not Allowed', { name: 'MethodNotAllowed' }),
        );
      }
      // HEAD is a GET without the body.
      const head = await fetch(`${url}/metrics`, {
        method: 'HEAD',
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
    });
  });
});
