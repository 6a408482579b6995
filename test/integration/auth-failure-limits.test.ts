import { createApiClient } from '../../src/commands/api-clients';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestProject } from '../helpers/factories';
import { envelope } from '../helpers/http';

/**
 * Failed client-credential logins (planner-integration/oauth/token) are limited per client address and per
 * API client, across API processes. Windows of a day, so that no test straddles the start of a new one; every
 * test uses addresses and clients of its own.
 */
describe('failed secret checks: limited per client address and per client', () => {
  /** Two API processes behind a proxy on loopback that says the client's address in X-Forwarded-For. */
  let first: TestApp;
  let second: TestApp;
  let projectId: number;

  beforeAll(async () => {
    const env = {
      TRUST_PROXY: 'loopback',
      AUTH_FAILURE_LIMIT: '3/day',
      AUTH_FAILURE_LIMIT_PER_CLIENT: '5/day',
    };
    first = await startTestApp({ env });
    second = await startTestApp({ env });
    ({ projectId } = await createTestProject(first.ctx, {
      config: { planner: { integration: { enabled: true } } },
    }));
  });
  afterAll(async () => {
    await first.close();
    await second.close();
  });

  /** A planning tool's client (or one with other scopes): its id and secret. */
  async function plannerClient(scopes = ['planner']): Promise<{ id: string; secret: string }> {
    const { client, secret } = await createApiClient(first.ctx.pool, first.ctx.config.auth.jwtSecret, {
      projectId,
      name: 'planning tool',
      scopes,
      withSecret: true,
    });
    return { id: client.id, secret: secret! };
  }

  /** A token request as the tool sends it, from `address` (X-Forwarded-For) when given. */
  async function login(
    app: TestApp,
    credentials: { id: string; secret: string },
    address?: string,
  ): Promise<{ status: number; headers: Headers; body: unknown }> {
    const basic = Buffer.from(`${credentials.id}:${credentials.secret}`).toString('base64');
    const response = await fetch(`${app.url}/api/2026-03/planner-integration/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
        ...(address === undefined ? {} : { 'x-forwarded-for': address }),
      },
      body: 'grant_type=client_credentials',
    });
    return { status: response.status, headers: response.headers, body: await response.json() };
  }

  const wrong = (client: { id: string }) => ({ id: client.id, secret: 'not-the-secret' });

  function expectRefused(answer: { status: number; headers: Headers; body: unknown }, limit: string): void {
    expect(answer.status).toBe(429);
    expect(answer.body).toEqual(
      envelope(429, 'Too Many Requests', {
        name: 'TooManyRequests',
        message: expect.stringContaining(limit),
      }),
    );
    const retryAfter = Number(answer.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(answer.headers.get('www-authenticate')).toBeNull();
  }

  it('when an address fails N times across processes, then its next attempt is 429 with Retry-After, even with the right secret, and another address still logs in', async () => {
    const tool = await plannerClient();
    const attacker = '203.0.113.7';
    const statuses = [];
    for (let n = 0; n < 3; n += 1) {
      statuses.push((await login(n % 2 === 0 ? first : second, wrong(tool), attacker)).status);
    }
    expect(statuses).toEqual([401, 401, 401]);

    for (const app of [first, second]) {
      expectRefused(await login(app, wrong(tool), attacker), '3 per 86400 s from this address');
      // Refused before the secret is looked at: the right one does not get through either.
      expectRefused(await login(app, tool, attacker), 'from this address');
    }
    // A client cannot pick another address by prepending one: the proxy appends the address it saw.
    expectRefused(await login(first, tool, `198.51.100.200, ${attacker}`), 'from this address');

    const elsewhere = await login(second, tool, '203.0.113.8');
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body).toMatchObject({ token_type: 'Bearer', scope: 'planner' });
  });

  it('when logins succeed, or check no secret, then they are not counted: only failures use up the limit', async () => {
    const tool = await plannerClient();
    const reader = await plannerClient(['public-api:read']);
    const address = '203.0.113.20';
    expect((await login(first, wrong(tool), address)).status).toBe(401);
    expect((await login(second, wrong(tool), address)).status).toBe(401);
    for (let n = 0; n < 6; n += 1) {
      const app = n % 2 === 0 ? first : second;
      expect((await login(app, tool, address)).status).toBe(200);
      // The right secret of a client without the planner scope: refused, but not a failed secret check.
      expect((await login(app, reader, address)).status).toBe(403);
      // Credentials that name no client (not a uuid): 401 without any secret checked.
      expect((await login(app, { id: 'not-a-client', secret: 'x' }, address)).status).toBe(401);
    }
    expect((await login(first, wrong(tool), address)).status).toBe(401);
    expectRefused(await login(second, tool, address), 'from this address');
  });

  it('when one client fails N times from many addresses, then it is refused from any address, and another client is not', async () => {
    const tool = await plannerClient();
    const other = await plannerClient();
    for (let n = 0; n < 5; n += 1) {
      expect((await login(n % 2 === 0 ? first : second, wrong(tool), `198.51.100.${n + 1}`)).status).toBe(
        401,
      );
    }
    expectRefused(await login(first, tool, '198.51.100.50'), '5 per 86400 s for this client');
    expect((await login(second, other, '198.51.100.50')).status).toBe(200);
  });

  it('when many wrong attempts arrive at once on both processes, then no more than the limit get their secret checked', async () => {
    const tool = await plannerClient();
    const address = '203.0.113.30';
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, n) => login(n % 2 === 0 ? first : second, wrong(tool), address)),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array<number>(3).fill(401), ...Array<number>(9).fill(429)]);
  });

  it('when IPv6 attempts come from one /64, then they count as one address', async () => {
    const tool = await plannerClient();
    for (const host of ['1', 'a', 'ffff']) {
      expect((await login(first, wrong(tool), `2001:db8:1:2::${host}`)).status).toBe(401);
    }
    expectRefused(await login(second, tool, '2001:db8:1:2:abcd::9'), 'from this address');
    expect((await login(second, tool, '2001:db8:1:3::1')).status).toBe(200);
  });

  it('when TRUST_PROXY is off (the default), then X-Forwarded-For is ignored: every attempt counts for the socket address', async () => {
    const direct = await startTestApp({ env: { AUTH_FAILURE_LIMIT: '2/day' } });
    try {
      const tool = await plannerClient();
      expect((await login(direct, wrong(tool), '192.0.2.1')).status).toBe(401);
      expect((await login(direct, wrong(tool), '192.0.2.2')).status).toBe(401);
      expectRefused(await login(direct, tool, '192.0.2.3'), '2 per 86400 s from this address');
    } finally {
      await direct.close();
    }
  });
});
