import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { runImportJob } from '../../src/commands/import-documents';
import { importJobQueries } from '../../src/db/queries/import-jobs';
import { ImportWebhookPayloadSchema } from '../../src/domain/import-request';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { createTestProject, tokenFor, WRITE } from '../helpers/factories';
import { startFakeService, type FakeService } from '../helpers/fake-service';
import { apiClient, eventually } from '../helpers/http';

interface WebhookRow {
  webhook_state: string | null;
  webhook_attempts: number;
  webhook_error: string | null;
  webhook_delivered_at: Date | null;
}

describe('import/documents webhooks', () => {
  let app: TestApp;
  let receiver: FakeService;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    // A database of its own: other files' workers (which refuse loopback webhooks) must not take its jobs.
    const env = await isolatedEnv('webhooks');
    app = await startTestApp({
      workers: true,
      env: {
        ...env,
        WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
        WEBHOOK_TIMEOUT_MS: '500',
        WEBHOOK_ATTEMPTS: '3',
        WEBHOOK_RETRY_DELAY_MS: '200',
      },
    });
    receiver = await startFakeService();
    const { projectId } = await createTestProject(app.ctx);
    api = apiClient(app.url, (await tokenFor(app.ctx, projectId, WRITE)).token);
  });
  afterAll(async () => {
    await receiver.close();
    await app.close();
  });
  beforeEach(() => {
    receiver.received.length = 0;
    receiver.answer(() => ({ status: 200, json: {} }));
  });

  async function importWithWebhook(
    client: ReturnType<typeof apiClient>,
    webhook: string,
    extra: Record<string, unknown> = {},
  ): Promise<string> {
    const started = await client.post('import/documents', {
      systemName: 'wire',
      webhook,
      documents: [
        { id: 'ok-1', contentType: 'regular', title: 'Imported' },
        { id: 'bad-1', contentType: 'no-such-type' },
      ],
      ...extra,
    });
    expect(started.status).toBe(200);
    return started.body.id as string;
  }

  async function settled(target: TestApp, id: string): Promise<WebhookRow> {
    return eventually(async () => {
      const result = await target.ctx.pool.query<WebhookRow>(
        `SELECT webhook_state, webhook_attempts, webhook_error, webhook_delivered_at
         FROM import_jobs WHERE id = $1`,
        [id],
      );
      const row = result.rows[0];
      return row && row.webhook_state !== 'pending' && row.webhook_state !== null ? row : undefined;
    }, 30_000);
  }

  it('when the import finishes, then the webhook is POSTed its outcome once, as documented', async () => {
    const id = await importWithWebhook(api, `${receiver.url}?source=wire`, { context: { batch: 42 } });
    const row = await settled(app, id);
    expect(row).toMatchObject({ webhook_state: 'delivered', webhook_attempts: 1, webhook_error: null });
    expect(row.webhook_delivered_at).toBeInstanceOf(Date);
    expect(receiver.received).toHaveLength(1);
    const [call] = receiver.received;
    expect(call!.method).toBe('POST');
    expect(call!.path).toBe('/enrich?source=wire');
    expect(call!.headers['content-type']).toBe('application/json');
    expect(call!.headers['x-broadsheet-event']).toBe('import.finished');
    expect(call!.headers['x-broadsheet-delivery']).toBe(id);
    expect(call!.body).toEqual({
      event: 'import.finished',
      id,
      finished: true,
      state: 'success',
      systemName: 'wire',
      context: { batch: 42 },
      finishedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      counts: { imported: 1, published: 0, failed: 1 },
      logs: [
        { state: 'imported', external_id: 'ok-1', document_id: expect.any(Number) },
        { state: 'failed', external_id: 'bad-1', document_id: null, reason: expect.any(String) },
      ],
    });
    // The payload is what the OpenAPI description's webhook (generated from this schema) says.
    expect(ImportWebhookPayloadSchema.safeParse(call!.body).error).toBeUndefined();
    // What the status route says is what the webhook was told.
    const status = await api.get(`import/documents/status?id=${id}`);
    const body = call!.body as { logs: unknown; state: unknown };
    expect(status.body).toEqual({ finished: true, state: body.state, id, logs: body.logs });
  });

  it('when the webhook carries credentials, then the receiver gets them but the worker log does not', async () => {
    // The worker logged the webhook as sent: a receiver's password or token stood in every line about it.
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = app.ctx.logger;
    app.ctx.logger = pino({ level: 'info' }, sink);
    try {
      const webhook = new URL(receiver.url);
      webhook.username = 'hook';
      webhook.password = 'pw-Secret-1';
      webhook.search = '?token=tok-Secret-2&batch=7';
      const id = await importWithWebhook(api, webhook.href);
      expect(await settled(app, id)).toMatchObject({ webhook_state: 'delivered' });
      expect(receiver.received[0]!.headers.authorization).toBe(
        `Basic ${Buffer.from('hook:pw-Secret-1').toString('base64')}`,
      );
      const log = lines.join('');
      expect(log).toContain('import webhook delivered');
      expect(log).toContain('[REDACTED]@127.0.0.1');
      expect(log).toContain('token=[REDACTED]&batch=7');
      expect(log).not.toMatch(/Secret-1|Secret-2/);
    } finally {
      app.ctx.logger = logger;
    }
  });

  it('when the receiver fails twice, then it is called again with growing delays until it answers 2xx', async () => {
    const times: number[] = [];
    receiver.answer(() => {
      times.push(Date.now());
      return times.length <= 2 ? { status: 503 } : { status: 204 };
    });
    const id = await importWithWebhook(api, receiver.url);
    const row = await settled(app, id);
    expect(row).toMatchObject({
      webhook_state: 'delivered',
      webhook_attempts: 3,
      webhook_error: null,
    });
    expect(receiver.received).toHaveLength(3);
    // The same delivery id on every call; 200 ms, then 400 ms between them.
    expect(new Set(receiver.received.map((r) => r.headers['x-broadsheet-delivery']))).toEqual(new Set([id]));
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(190);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(390);
  });

  it('when the receiver keeps failing, then it gives up after WEBHOOK_ATTEMPTS calls and says why', async () => {
    receiver.answer(() => ({ status: 500 }));
    const id = await importWithWebhook(api, receiver.url);
    const row = await settled(app, id);
    expect(row).toMatchObject({
      webhook_state: 'failed',
      webhook_attempts: 3,
      webhook_error: 'answered HTTP 500',
    });
    expect(row.webhook_delivered_at).toBeNull();
    // Given up for good: nothing more arrives.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.received).toHaveLength(3);
  });

  it('when the receiver answers 404 or a redirect, then it is not called again', async () => {
    receiver.answer(() => ({ status: 404 }));
    const notFound = await settled(app, await importWithWebhook(api, receiver.url));
    expect(notFound).toMatchObject({
      webhook_state: 'failed',
      webhook_attempts: 1,
      webhook_error: 'answered HTTP 404',
    });
    receiver.answer(() => ({ status: 302 }));
    const redirected = await settled(app, await importWithWebhook(api, receiver.url));
    expect(redirected).toMatchObject({ webhook_state: 'failed', webhook_attempts: 1 });
    expect(redirected.webhook_error).toContain('not redirected');
    expect(receiver.received).toHaveLength(2);
  });

  it('when the receiver hangs, then each call times out and the delivery gives up in bounded time', async () => {
    receiver.answer(() => ({ status: 200, delayMs: 20_000 }));
    const started = Date.now();
    const id = await importWithWebhook(api, receiver.url);
    const row = await settled(app, id);
    expect(row).toMatchObject({
      webhook_state: 'failed',
      webhook_attempts: 3,
      webhook_error: 'no answer within 500 ms',
    });
    expect(receiver.received).toHaveLength(3);
    // 3 × 500 ms timeouts + 200 + 400 ms delays, plus the import itself: well under the receiver's 20 s.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('when the receiver answers 2xx but its body stalls past the timeout, then it is delivered and not called again', async () => {
    // The stalled body ended the call as a timeout: the receiver, which had said 200, got the import again.
    let calls = 0;
    const stalling = createServer((req, res) => {
      calls += 1;
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('accepted');
      const trickle = setInterval(() => (res.destroyed ? clearInterval(trickle) : res.write('.')), 100);
    });
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = stalling.address() as AddressInfo;
      const id = await importWithWebhook(api, `http://127.0.0.1:${port}/hook`);
      const row = await settled(app, id);
      expect(row).toMatchObject({ webhook_state: 'delivered', webhook_attempts: 1, webhook_error: null });
      // Past the timeout and the first retry delay (500 + 200 ms): no second call came.
      await new Promise((resolve) => setTimeout(resolve, 1200));
      expect(calls).toBe(1);
    } finally {
      stalling.closeAllConnections();
      await new Promise((resolve) => stalling.close(resolve));
    }
  });

  it('when the webhook is not an http(s) URL, then 400 names it and no job is stored', async () => {
    const count = async () =>
      (await app.ctx.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM import_jobs')).rows[0]!.n;
    const before = await count();
    for (const webhook of ['ftp://example.com/hook', 'javascript:alert(1)', 'file:///etc/passwd', 'hook']) {
      const response = await api.post('import/documents', {
        systemName: 'wire',
        webhook,
        documents: [{ id: 'x', contentType: 'regular' }],
      });
      expect(response.status).toBe(400);
      expect(response.body.error_details).toEqual({
        name: 'ValidationError',
        webhook: 'must be an http or https URL',
      });
    }
    expect(await count()).toBe(before);
  });

  it('when one import job is run twice at once (pg-boss retried it while it still ran), then it finishes once and its webhook is sent and called once', async () => {
    const { projectId } = await createTestProject(app.ctx);
    const id = randomUUID();
    await importJobQueries(app.ctx.pool).insert({
      id,
      projectId,
      systemName: 'wire',
      request: {
        systemName: 'wire',
        webhook: receiver.url,
        documents: [{ id: 'twice', contentType: 'regular', title: 'Twice' }],
      },
      apiVersion: '2026-03',
    });
    await Promise.all([runImportJob(app.ctx, id), runImportJob(app.ctx, id)]);
    const row = await settled(app, id);
    expect(row).toMatchObject({ webhook_state: 'delivered', webhook_attempts: 1 });
    const jobs = await app.ctx.pool.query(
      `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'import-webhook' AND data->>'importJobId' = $1`,
      [id],
    );
    expect(jobs.rows[0].n).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.received).toHaveLength(1);
    expect((await settled(app, id)).webhook_state).toBe('delivered');
  });

  it('when an import has no webhook, then nothing is called', async () => {
    const started = await api.post('import/documents', {
      systemName: 'wire',
      documents: [{ id: 'quiet', contentType: 'regular' }],
    });
    await eventually(async () => {
      const status = await api.get(`import/documents/status?id=${started.body.id}`);
      return status.body.finished;
    }, 20_000);
    const result = await app.ctx.pool.query<WebhookRow>(
      'SELECT webhook_state, webhook_attempts FROM import_jobs WHERE id = $1',
      [started.body.id],
    );
    expect(result.rows[0]).toEqual({ webhook_state: null, webhook_attempts: 0 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(0);
  });

  describe('when private addresses are not allowed (the default)', () => {
    let strict: TestApp;
    let strictApi: ReturnType<typeof apiClient>;
    beforeAll(async () => {
      strict = await startTestApp({ workers: true, env: await isolatedEnv('webhooks_strict') });
      const { projectId } = await createTestProject(strict.ctx);
      strictApi = apiClient(strict.url, (await tokenFor(strict.ctx, projectId, WRITE)).token);
    });
    afterAll(async () => {
      await strict.close();
    });

    it('then a loopback address, by number or by name, is refused without a call', async () => {
      const port = new URL(receiver.url).port;
      for (const webhook of [receiver.url, `http://localhost:${port}/hook`, `http://[::1]:${port}/hook`]) {
        const row = await settled(strict, await importWithWebhook(strictApi, webhook));
        expect(row).toMatchObject({ webhook_state: 'failed' });
        expect(row.webhook_error).toContain('not a public address');
      }
      expect(receiver.received).toHaveLength(0);
    });
  });
});
