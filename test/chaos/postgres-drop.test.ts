import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument } from '../helpers/documents';
import { createTestProject, tokenFor, WRITE } from '../helpers/factories';
import { eventually } from '../helpers/http';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

jest.setTimeout(180_000);

/**
 * Postgres connections dropped under load, through a TCP proxy in front of the run's Postgres (which keeps
 * running for everyone else): cut with a reset, stuck (accepting and never answering), and the app's
 * backends terminated by the server (pg_terminate_backend). Requests in flight and new ones fail with the
 * 503 envelope within the pool's timeouts, none hangs, and the same process answers 200 again by itself
 * once Postgres is reachable.
 */
describe('when Postgres connections are dropped under load', () => {
  let proxy: TcpProxy;
  let app: TestApp;
  let token: string;
  const documents: number[] = [];
  let applicationName: string;
  /** A client's patience: no answer may take longer (connect timeout 5 s, query timeout 10 s, plus slack). */
  const PATIENCE_MS = 14_000;

  beforeAll(async () => {
    const target = new URL(process.env.DATABASE_URL ?? '');
    proxy = await startTcpProxy(`http://${target.hostname}:${target.port || 5432}`);
    const proxied = new URL(target.toString());
    proxied.host = new URL(proxy.url).host;
    applicationName = `chaos-pg-${process.pid}`;
    proxied.searchParams.set('application_name', applicationName);
    app = await startTestApp({ env: { DATABASE_URL: proxied.toString() } });
    const { projectId } = await createTestProject(app.ctx);
    token = (await tokenFor(app.ctx, projectId, [...WRITE, 'public-api:drafts:read'])).token;
    for (let i = 0; i < 10; i += 1) {
      documents.push(
        (await createPublishedDocument(app.ctx, projectId, { metadata: { title: `pg chaos ${i}` } }))
          .documentId,
      );
    }
  });
  afterAll(async () => {
    await proxy.up();
    await app.close();
    await proxy.close();
  });

  interface Outcome {
    what: string;
    status: number;
    ms: number;
    retryAfter: string | null;
    body: unknown;
  }

  /** One request of the mix; a request with no answer within PATIENCE_MS is recorded as status 0. */
  async function request(i: number): Promise<Outcome> {
    const documentId = documents[i % documents.length]!;
    const calls: [string, string, unknown?][] = [
      ['GET', `/api/2026-03/documents/${documentId}/latestPublication`],
      ['GET', `/api/2026-03/documents/${documentId}/latestDraft`],
      ['GET', '/api/2026-03/publicationEvents?limit=5'],
      [
        'PATCH',
        `/api/2026-03/documents/${documentId}/commands`,
        { commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: `pg chaos ${i}` }] },
      ],
      ['GET', '/api/2026-03/categories'],
    ];
    const [method, path, body] = calls[i % calls.length]!;
    const started = Date.now();
    try {
      const response = await fetch(`${app.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(PATIENCE_MS),
      });
      const text = await response.text();
      return {
        what: `${method} ${path}`,
        status: response.status,
        ms: Date.now() - started,
        retryAfter: response.headers.get('retry-after'),
        body: text.startsWith('{') ? (JSON.parse(text) as unknown) : text,
      };
    } catch (error) {
      return {
        what: `${method} ${path}`,
        status: 0,
        ms: Date.now() - started,
        retryAfter: null,
        body: String(error),
      };
    }
  }

  /** `concurrency` loops of requests until `stop` resolves; every outcome is kept. */
  async function load(concurrency: number, stop: Promise<void>): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    let stopped = false;
    void stop.then(() => (stopped = true));
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (!stopped) outcomes.push(await request((next += 1)));
      }),
    );
    return outcomes;
  }

  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

  /** Only success or the 503 envelope with Retry-After; never a hang, another 5xx or a connection error. */
  function expectOnly200or503(outcomes: Outcome[]) {
    const wrong = outcomes.filter(
      (o) =>
        !(
          o.status === 200 ||
          o.status === 204 ||
          (o.status === 503 &&
            o.retryAfter === '5' &&
            JSON.stringify(o.body) ===
              JSON.stringify({
                status: 503,
                error: 'Service Unavailable',
                error_details: {
                  name: 'DatabaseUnavailable',
                  message: 'The database is unavailable right now; try again in a few seconds',
                },
              }))
        ),
    );
    expect(wrong.slice(0, 5)).toEqual([]);
  }

  async function recovers() {
    const started = Date.now();
    let last: Outcome[] = [];
    await eventually(
      async () => {
        last = await Promise.all([0, 1, 2, 3, 4].map((i) => request(i)));
        if (process.env.CHAOS_DEBUG)
          console.log(JSON.stringify(last.filter((o) => o.status !== 200)).slice(0, 1500));
        return last.every((o) => o.status === 200 || o.status === 204);
      },
      20_000,
      200,
    );
    return Date.now() - started;
  }

  it.each(['refuse', 'hang'] as const)(
    'when the connection is cut (%s) for 10 s under load, then requests fail with 503 envelopes in time and the process recovers by itself',
    async (mode) => {
      expect((await request(0)).status).toBe(200);
      let end!: () => void;
      const stop = new Promise<void>((resolve) => (end = resolve));
      const running = load(8, stop);
      await sleep(1_000);
      await proxy.down(mode);
      await sleep(10_000);
      await proxy.up();
      const recoveredInMs = await recovers();
      end();
      const outcomes = await running;
      expectOnly200or503(outcomes);
      expect(outcomes.filter((o) => o.status === 503).length).toBeGreaterThan(0);
      expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(PATIENCE_MS);
      expect(recoveredInMs).toBeLessThan(20_000);
    },
  );

  it("when the server terminates the app's connections under load, then at most 503s and the process recovers by itself", async () => {
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    try {
      let end!: () => void;
      const stop = new Promise<void>((resolve) => (end = resolve));
      const running = load(8, stop);
      let terminated = 0;
      for (let round = 0; round < 5; round += 1) {
        await sleep(500);
        const { rowCount } = await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
          [applicationName],
        );
        terminated += rowCount ?? 0;
      }
      await sleep(500);
      await recovers();
      end();
      const outcomes = await running;
      expect(terminated).toBeGreaterThan(0);
      expectOnly200or503(outcomes);
      expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(PATIENCE_MS);
    } finally {
      await admin.end();
    }
  });
});
