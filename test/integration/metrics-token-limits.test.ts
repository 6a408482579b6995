import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createApiClient } from '../../src/commands/api-clients';
import { startMetricsServer } from '../../src/metrics/server';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { createTestProject } from '../helpers/factories';
import { envelope } from '../helpers/http';

const METRICS_TOKEN = 'metrics-token-limits-0123456789';

interface Answer {
  status: number;
  headers: Headers;
  body: string;
}

/**
 * Wrong METRICS_TOKEN guesses are limited per client address as failed logins are (AUTH_FAILURE_LIMIT), on the
 * API and on the workers' metrics server, across processes. They were not limited at all: a guesser could try
 * tokens as fast as the server answered. Windows of a day, so that no test straddles the start of a new one;
 * every test uses addresses of its own, and the file a database of its own.
 */
describe('wrong metrics tokens: limited per client address', () => {
  /** Two API processes behind a proxy on loopback that says the client's address in X-Forwarded-For. */
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    const env = {
      ...(await isolatedEnv('metricstokens')),
      METRICS_TOKEN,
      TRUST_PROXY: 'loopback',
      AUTH_FAILURE_LIMIT: '3/day',
    };
    first = await startTestApp({ env });
    second = await startTestApp({ env });
  });
  afterAll(async () => {
    await first.close();
    await second.close();
  });

  /** A scrape with `authorization` (none when undefined), from `address` (X-Forwarded-For) when given. */
  async function scrape(url: string, authorization: string | undefined, address?: string): Promise<Answer> {
    const response = await fetch(url, {
      headers: {
        ...(authorization === undefined ? {} : { authorization }),
        ...(address === undefined ? {} : { 'x-forwarded-for': address }),
      },
    });
    return { status: response.status, headers: response.headers, body: await response.text() };
  }
  const right = `Bearer ${METRICS_TOKEN}`;
  const wrong = 'Bearer not-the-metrics-token-0123';
  const metricsOf = (app: TestApp) => `${app.url}/metrics`;

  function expectRefused(answer: Answer, limit: string): void {
    expect(answer.status).toBe(429);
    expect(JSON.parse(answer.body)).toEqual(
      envelope(429, 'Too Many Requests', {
        name: 'TooManyRequests',
        message: expect.stringContaining(limit),
      }),
    );
    expect(answer.body).not.toContain('broadsheet_');
    const retryAfter = Number(answer.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(answer.headers.get('www-authenticate')).toBeNull();
  }

  it('when an address sends N wrong metrics tokens across processes, then its next scrape is 429 with Retry-After, even with the right token, and another address still scrapes', async () => {
    const guesser = '203.0.113.7';
    const statuses = [];
    for (let n = 0; n < 3; n += 1) {
      statuses.push((await scrape(metricsOf(n % 2 === 0 ? first : second), wrong, guesser)).status);
    }
    expect(statuses).toEqual([401, 401, 401]);

    for (const app of [first, second]) {
      expectRefused(await scrape(metricsOf(app), wrong, guesser), '3 per 86400 s from this address');
      // Refused whatever the token: the right one would otherwise tell the guesser it had found it.
      expectRefused(await scrape(metricsOf(app), right, guesser), 'from this address');
    }

    const elsewhere = await scrape(metricsOf(second), right, '203.0.113.8');
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body).toContain('broadsheet_');
  });

  it('when scrapes bring the right token, no token or no bearer token, then they are not counted: only wrong tokens use up the limit', async () => {
    const address = '203.0.113.20';
    expect((await scrape(metricsOf(first), wrong, address)).status).toBe(401);
    expect((await scrape(metricsOf(second), wrong, address)).status).toBe(401);
    for (let n = 0; n < 5; n += 1) {
      const app = n % 2 === 0 ? first : second;
      expect((await scrape(metricsOf(app), right, address)).status).toBe(200);
      expect((await scrape(metricsOf(app), undefined, address)).status).toBe(401);
      expect((await scrape(metricsOf(app), `Basic ${METRICS_TOKEN}`, address)).status).toBe(401);
    }
    expect((await scrape(metricsOf(first), wrong, address)).status).toBe(401);
    expectRefused(await scrape(metricsOf(second), right, address), 'from this address');
  });

  it('when many wrong tokens arrive at once on both processes, then no more than the limit are answered 401', async () => {
    const address = '203.0.113.30';
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, n) => scrape(metricsOf(n % 2 === 0 ? first : second), wrong, address)),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array<number>(3).fill(401), ...Array<number>(9).fill(429)]);
  });

  it('when an address used up its metrics token limit, then its client-credential logins keep their own count', async () => {
    const address = '203.0.113.40';
    for (let n = 0; n < 3; n += 1) expect((await scrape(metricsOf(first), wrong, address)).status).toBe(401);
    expectRefused(await scrape(metricsOf(first), right, address), 'from this address');

    const { projectId } = await createTestProject(first.ctx, {
      config: { planner: { integration: { enabled: true } } },
    });
    const { client, secret } = await createApiClient(first.ctx.pool, first.ctx.config.auth.jwtSecret, {
      projectId,
      name: 'planning tool',
      scopes: ['planner'],
      withSecret: true,
    });
    const login = await fetch(`${first.url}/api/2026-03/planner-integration/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${client.id}:${secret!}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        'x-forwarded-for': address,
      },
      body: 'grant_type=client_credentials',
    });
    expect(login.status).toBe(200);
  });

  describe("the workers' metrics server", () => {
    let server: Server;
    let url: string;
    beforeAll(async () => {
      // As workers/main.ts starts it, with the context's counts (the workers' context is built the same way).
      server = await startMetricsServer(first.ctx.metrics, {
        host: '127.0.0.1',
        port: 0,
        token: METRICS_TOKEN,
        tokenFailures: first.ctx.metricsTokenFailures,
      });
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it('when an address sends N wrong tokens, then its next scrape is 429 with Retry-After, even with the right token; X-Forwarded-For is not read', async () => {
      expect((await scrape(url, right)).status).toBe(200);
      // This server trusts no proxy: every attempt counts for the socket's address, whatever the header says.
      const statuses = [];
      for (let n = 0; n < 3; n += 1) statuses.push((await scrape(url, wrong, `198.51.100.${n + 1}`)).status);
      expect(statuses).toEqual([401, 401, 401]);
      expectRefused(await scrape(url, wrong), '3 per 86400 s from this address');
      expectRefused(await scrape(url, right, '198.51.100.9'), 'from this address');
    });
  });
});
