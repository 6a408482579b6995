import { execFile, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { startMetricsServer } from '../../src/metrics/server';
import { healthReads } from '../../src/reads/health';
import { createSearchClient } from '../../src/search/client';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { API_SCRIPT, NODE, WORKERS_SCRIPT } from '../helpers/compiled';
import { envelope } from '../helpers/http';
import { killHard, startWorkerProcess } from '../helpers/worker-process';
import { dripBody, dripHeaders } from '../helpers/slow-client';

jest.setTimeout(120_000);

const METRICS_TOKEN = 'worker-probes-token-0123456789';

/** A port nothing listens on now: bound on 0 and let go. */
async function freePort(): Promise<number> {
  const probe: Server = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * The worker process (README, Operations) has no HTTP API of its own, so an orchestrator (a Kubernetes liveness
 * or readiness probe, a compose healthcheck) had nothing to ask whether it lives: its optional metrics port
 * answered /metrics only, behind METRICS_TOKEN, and a 404 elsewhere. With WORKER_METRICS_PORT set it now answers
 * GET /health and GET /health/ready there, without a token, as the API does.
 */
describe("the workers' probes", () => {
  let app: TestApp;
  let worker: ChildProcess | undefined;
  let url: string;

  beforeAll(async () => {
    // A database of its own, so this worker takes no other file's jobs.
    const env = await isolatedEnv('probes');
    app = await startTestApp({ env });
    const port = await freePort();
    worker = await startWorkerProcess({
      ...env,
      HOST: '127.0.0.1',
      WORKER_METRICS_PORT: String(port),
      METRICS_TOKEN,
    });
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    if (worker) await killHard(worker);
    await app.close();
  });

  it('when an orchestrator probes liveness and readiness without a token, then 200 with the states; metrics keep their token', async () => {
    const live = await fetch(`${url}/health`);
    expect({ status: live.status, body: await live.json() }).toEqual({ status: 200, body: { status: 'ok' } });
    const ready = await fetch(`${url}/health/ready`);
    expect({ status: ready.status, body: await ready.json() }).toEqual({
      status: 200,
      body: { status: 'ok', postgres: 'ok', elasticsearch: 'ok' },
    });
    expect((await fetch(`${url}/health`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
  });

  it('when a probe path is asked with another method, then 405 with Allow in the envelope', async () => {
    const response = await fetch(`${url}/health/ready`, { method: 'POST' });
    expect({ status: response.status, allow: response.headers.get('allow') }).toEqual({
      status: 405,
      allow: 'GET, HEAD',
    });
    expect(await response.json()).toEqual(envelope(405, 'Method Not Allowed', { name: 'MethodNotAllowed' }));
  });

  it('when Elasticsearch cannot be reached, then readiness is 503 NotReady with Retry-After, within seconds', async () => {
    const search = createSearchClient(['http://127.0.0.1:1']);
    const server = await startMetricsServer(app.ctx.metrics, {
      host: '127.0.0.1',
      port: 0,
      token: METRICS_TOKEN,
      health: healthReads({ db: app.ctx.pool, search }),
    });
    try {
      const { port } = server.address() as AddressInfo;
      const started = Date.now();
      const response = await fetch(`http://127.0.0.1:${port}/health/ready`);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect({ status: response.status, retryAfter: response.headers.get('retry-after') }).toEqual({
        status: 503,
        retryAfter: expect.stringMatching(/^\d+$/),
      });
      expect(await response.json()).toEqual(
        envelope(503, 'Service Unavailable', {
          name: 'NotReady',
          postgres: 'ok',
          elasticsearch: 'unavailable',
        }),
      );
      // Liveness touches nothing: the process answers.
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await search.close();
    }
  });

  it('when a client sends its headers a byte a second, then 408 and the connection closes within 25 s, as on the API', async () => {
    // The server kept Node's defaults (60 s for the headers, checked every 30 s): such a connection was held
    // for up to 90 s, and a few hundred of them used up the worker's file descriptors.
    const server = await startMetricsServer(app.ctx.metrics, {
      host: '127.0.0.1',
      port: 0,
      token: undefined,
    });
    try {
      const { port } = server.address() as AddressInfo;
      const dripped = await dripHeaders('127.0.0.1', port, '/metrics');
      expect(dripped.seconds).toBeLessThan(25);
      expect(dripped.text.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }, 60_000);
});

/**
 * A probe or a scraper sends no body, and the server reads none; but Node read a body that came with a
 * request, after its answer, to keep the connection for the next one: a client dripping one held a
 * connection of the workers for the 300 s of the requestTimeout.
 */
describe("the workers' probe server and request bodies", () => {
  let app: TestApp;
  let server: Server;
  let port: number;
  beforeAll(async () => {
    app = await startTestApp();
    server = await startMetricsServer(app.ctx.metrics, { host: '127.0.0.1', port: 0, token: undefined });
    ({ port } = server.address() as AddressInfo);
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await app.close();
  });

  it.each([
    ['POST', '/metrics', 'HTTP/1.1 405 Method Not Allowed'],
    ['GET', '/health', 'HTTP/1.1 404 Not Found'],
    ['GET', '/metrics', 'HTTP/1.1 200 OK'],
  ])(
    'when a client sends %s %s with a body it drips on after the answer, then it is answered and its connection closes at once',
    async (method, path, status) => {
      const dripped = await dripBody('127.0.0.1', port, {
        head: `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 200\r\n\r\n`,
        pieces: Array.from({ length: 200 }, () => Buffer.from('a')),
        everyMs: 200,
        giveUpMs: 15_000,
        ignoreAnswer: true,
      });
      const [head = ''] = dripped.text.split('\r\n\r\n');
      expect(head.split('\r\n')[0]).toBe(status);
      expect(head.toLowerCase()).toContain('connection: close');
      expect(dripped.seconds).toBeLessThan(3);
    },
    30_000,
  );

  it('when a client sends a body it drips without an end (chunked), then it is answered and its connection closes at once', async () => {
    const dripped = await dripBody('127.0.0.1', port, {
      head: 'GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n',
      pieces: Array.from({ length: 100 }, () => Buffer.from('1\r\na\r\n')),
      everyMs: 200,
      giveUpMs: 15_000,
      ignoreAnswer: true,
    });
    expect(dripped.text.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(dripped.seconds).toBeLessThan(3);
  }, 30_000);
});

/**
 * A port already taken stopped the API and the workers with `listen EADDRINUSE: address already in use
 * 127.0.0.1:9464`, naming no variable: for the workers, not even that it was their metrics port.
 */
describe('a port already in use at start', () => {
  let taken: Server;
  let port: number;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    ({ port } = taken.address() as AddressInfo);
  });
  afterAll(() => new Promise((resolve) => taken.close(resolve)));

  const start = (script: string, env: Record<string, string>) =>
    promisify(execFile)(NODE, [script], {
      env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env },
      timeout: 60_000,
    });

  it('when PORT is taken, then the API exits 1 naming HOST and PORT', async () => {
    await expect(start(API_SCRIPT, { PORT: String(port) })).rejects.toMatchObject({
      code: 1,
      stderr: `cannot listen on 127.0.0.1:${port} (HOST, PORT): another process is listening on that port (EADDRINUSE)\n`,
    });
  });

  it('when WORKER_METRICS_PORT is taken, then the workers exit 1 naming it', async () => {
    await expect(start(WORKERS_SCRIPT, { WORKER_METRICS_PORT: String(port) })).rejects.toMatchObject({
      code: 1,
      stderr: `cannot listen on 127.0.0.1:${port} (HOST, WORKER_METRICS_PORT): another process is listening on that port (EADDRINUSE)\n`,
    });
  });
});
