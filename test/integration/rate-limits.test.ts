import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createApiClient } from '../../src/commands/api-clients';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestProject, READ } from '../helpers/factories';
import { apiClient, envelope, eventually, type ApiResponse } from '../helpers/http';
import { CLI_SCRIPT, NODE } from '../helpers/compiled';

const run = promisify(execFile);
const cli = (...args: string[]) =>
  run(NODE, [CLI_SCRIPT, ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent' },
    timeout: 60_000,
  });

/**
 * Windows of a day (aligned to UTC midnight) so that no test straddles the start of a new window; two API
 * processes on one database, as behind a load balancer.
 */
describe('rate limits per API client', () => {
  let first: TestApp;
  let second: TestApp;
  let projectId: number;

  beforeAll(async () => {
    first = await startTestApp();
    second = await startTestApp();
    ({ projectId } = await createTestProject(first.ctx));
  });
  afterAll(async () => {
    await first.close();
    await second.close();
  });

  async function clientWith(rateLimit?: { requests: number; periodSeconds: number } | 'none') {
    const { token, client } = await createApiClient(first.ctx.pool, first.ctx.config.auth.jwtSecret, {
      projectId,
      name: 'rate limited',
      scopes: READ,
      ...(rateLimit === undefined ? {} : { rateLimit }),
    });
    return { token, clientId: client.id };
  }

  /** An authenticated read that touches little: one publication event. */
  const read = (app: TestApp, token: string): Promise<ApiResponse> =>
    apiClient(app.url, token).get('publicationEvents?limit=1');

  it('when a client makes more requests than its limit across two processes, then 429 with Retry-After', async () => {
    const { token } = await clientWith({ requests: 5, periodSeconds: 86_400 });
    const answers: ApiResponse[] = [];
    for (let n = 0; n < 5; n += 1) answers.push(await read(n % 2 === 0 ? first : second, token));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.map((a) => a.headers.get('ratelimit-remaining'))).toEqual(['4', '3', '2', '1', '0']);
    expect(answers[0]!.headers.get('ratelimit-limit')).toBe('5');
    const reset = Number(answers[0]!.headers.get('ratelimit-reset'));
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(86_400);

    for (const app of [first, second]) {
      const refused = await read(app, token);
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(
        envelope(429, 'Too Many Requests', {
          name: 'TooManyRequests',
          message: expect.stringContaining('5 requests'),
        }),
      );
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(86_400);
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
      expect(refused.headers.get('ratelimit-limit')).toBe('5');
      expect(Number(refused.headers.get('ratelimit-reset'))).toBe(retryAfter);
    }
  });

  it('when one client is refused, then another client of the same project is not', async () => {
    const limited = await clientWith({ requests: 1, periodSeconds: 86_400 });
    const other = await clientWith({ requests: 1, periodSeconds: 86_400 });
    expect((await read(first, limited.token)).status).toBe(200);
    expect((await read(second, limited.token)).status).toBe(429);
    expect((await read(second, other.token)).status).toBe(200);
  });

  it('when a client has no limit (and the default is none), then no RateLimit headers and no refusals', async () => {
    const { token } = await clientWith();
    for (let n = 0; n < 8; n += 1) {
      const answer = await read(n % 2 === 0 ? first : second, token);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('ratelimit-limit')).toBeNull();
    }
  });

  it('when a token is missing or invalid, then 401 as before: limits count authenticated clients only', async () => {
    const answer = await apiClient(first.url).get('publicationEvents?limit=1');
    expect(answer.status).toBe(401);
    expect(answer.headers.get('ratelimit-limit')).toBeNull();
  });

  it("when a limited client asks the planner for tokens (HTTP Basic, no bearer), then none counts, as the operation's description says", async () => {
    const planner = await createTestProject(first.ctx, {
      config: { planner: { integration: { enabled: true } } },
    });
    const { client, secret } = await createApiClient(first.ctx.pool, first.ctx.config.auth.jwtSecret, {
      projectId: planner.projectId,
      name: 'limited planning tool',
      scopes: ['planner'],
      withSecret: true,
      rateLimit: { requests: 1, periodSeconds: 86_400 },
    });
    const answers = [];
    for (let n = 0; n < 3; n += 1) {
      answers.push(
        await fetch(`${first.url}/api/2026-03/planner-integration/oauth/token`, {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`${client.id}:${secret!}`).toString('base64')}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: 'grant_type=client_credentials',
        }),
      );
    }
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(answers.map((answer) => answer.headers.get('ratelimit-limit'))).toEqual([null, null, null]);

    const description = (await (await fetch(`${first.url}/api/2026-03/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: object }> }>>;
    };
    const token = description.paths['/planner-integration/oauth/token']!.post!.responses;
    // Its 429 is the failed-login limit's (README, "Rate limits"), not the client's request limit.
    expect(token['429']).toMatchObject({
      description: expect.stringContaining('Too many failed logins'),
      headers: { 'Retry-After': expect.anything() },
    });
    expect(token['429']!.headers).not.toHaveProperty('RateLimit-Limit');
    expect(token['200']!.headers ?? {}).not.toHaveProperty('RateLimit-Limit');
    // A bearer operation keeps both.
    const events = description.paths['/publicationEvents']!.get!.responses;
    expect(Object.keys(events)).toContain('429');
    expect(events['200']!.headers).toHaveProperty('RateLimit-Limit');
  });

  it('when an operator changes the limit with the CLI, then both processes apply it from the next request', async () => {
    const { token, clientId } = await clientWith({ requests: 2, periodSeconds: 86_400 });
    await read(first, token);
    await read(second, token);
    expect((await read(first, token)).status).toBe(429);
    const { stderr } = await cli('client', 'set-rate-limit', clientId, '10/day');
    expect(stderr).toContain('rate limit: 10/86400s');
    for (const app of [first, second]) {
      const answer = await eventually(async () => {
        const response = await read(app, token);
        return response.status === 200 ? response : undefined;
      }, 5000);
      expect(answer.headers.get('ratelimit-limit')).toBe('10');
    }
    await cli('client', 'set-rate-limit', clientId, 'none');
    const unlimited = await eventually(async () => {
      const response = await read(second, token);
      return response.headers.get('ratelimit-limit') === null ? response : undefined;
    }, 5000);
    expect(unlimited.status).toBe(200);
  });

  it('when the CLI is given a malformed limit, then it names what it expected and changes nothing', async () => {
    const { clientId } = await clientWith({ requests: 3, periodSeconds: 60 });
    await expect(cli('client', 'set-rate-limit', clientId, '10 per minute')).rejects.toMatchObject({
      stderr: expect.stringContaining('expected N/period'),
    });
    await expect(
      cli('client', 'create', '--project', String(projectId), '--name', 'x', '--rate-limit', '5/fortnight'),
    ).rejects.toMatchObject({ stderr: expect.stringContaining("unknown period unit 'fortnight'") });
    const stored = await first.ctx.pool.query(
      'SELECT rate_limit_requests, rate_limit_period_seconds FROM api_clients WHERE id = $1',
      [clientId],
    );
    expect(stored.rows[0]).toEqual({ rate_limit_requests: 3, rate_limit_period_seconds: 60 });
  });

  it('when a client is created with --rate-limit, then the API applies it', async () => {
    const { stdout, stderr } = await cli(
      'client',
      'create',
      '--project',
      String(projectId),
      '--name',
      'cli limited',
      '--rate-limit',
      '3/day',
    );
    expect(stderr).toContain('rate limit: 3/86400s');
    const token = stdout.trim();
    const statuses = [];
    for (let n = 0; n < 4; n += 1) statuses.push((await read(n % 2 === 0 ? first : second, token)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('when RATE_LIMIT_DEFAULT is set, then clients without a limit of their own get it, and none means none', async () => {
    const limited = await startTestApp({ env: { RATE_LIMIT_DEFAULT: '2/day' } });
    try {
      const byDefault = await clientWith();
      const unlimited = await clientWith('none');
      const statuses = [];
      for (let n = 0; n < 3; n += 1) statuses.push((await read(limited, byDefault.token)).status);
      expect(statuses).toEqual([200, 200, 429]);
      for (let n = 0; n < 3; n += 1) {
        const answer = await read(limited, unlimited.token);
        expect(answer.status).toBe(200);
        expect(answer.headers.get('ratelimit-limit')).toBeNull();
      }
    } finally {
      await limited.close();
    }
  });

  it('when many requests race through two processes, then the limit holds within its documented margin', async () => {
    const limit = 600;
    const { token } = await clientWith({ requests: limit, periodSeconds: 86_400 });
    const statuses: number[] = [];
    let next = 0;
    const total = 700;
    const agents = Array.from({ length: 16 }, async (_unused, agent) => {
      while (next < total) {
        next += 1;
        statuses.push((await read(agent % 2 === 0 ? first : second, token)).status);
      }
    });
    await Promise.all(agents);
    const allowed = statuses.filter((status) => status === 200).length;
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    // Never fewer than the limit; at most the exact margin (a tenth, at least 50) more.
    expect(allowed).toBeGreaterThanOrEqual(limit);
    expect(allowed).toBeLessThanOrEqual(limit + 60);
    // The shared count saw every request each process let through.
    await first.ctx.rateLimits.flush();
    await second.ctx.rateLimits.flush();
    const counted = await first.ctx.pool.query<{ requests: number }>(
      `SELECT requests FROM api_client_request_windows w JOIN api_clients c ON c.id = w.client_id
       WHERE c.rate_limit_requests = $1 AND c.project_id = $2`,
      [limit, projectId],
    );
    expect(counted.rows[0]!.requests).toBeGreaterThanOrEqual(allowed);
  });
});
