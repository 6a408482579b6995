import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { loadConfig } from '../../src/config';
import { createContext, type AppContext } from '../../src/context';
import { createApp } from '../../src/http/app';
import { listen } from '../../src/http/server';
import { createTestProject, tokenFor } from '../helpers/factories';

/**
 * The real app with its log captured: whatever credentials a request carries (a token in the query string,
 * which is refused, a bearer token, Basic credentials, cookies) never reach a log line.
 */
const lines: string[] = [];
let ctx: AppContext;
let url: string;
let close: () => Promise<void>;
let projectId: number;
let token: string;

beforeAll(async () => {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'info' }, { server: true });
  ctx = await createContext(config, { supervise: false });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  ctx.logger = pino({ level: 'info' }, sink);
  const server = await listen(createApp(ctx), 0, '127.0.0.1', config);
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/2026-03`;
  close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await ctx.close();
  };
  ({ projectId } = await createTestProject(ctx));
  ({ token } = await tokenFor(ctx, projectId, ['public-api:config:read']));
});
afterAll(async () => {
  await close();
});

const logged = async (count: number) => {
  for (let i = 0; i < 100 && lines.length < count; i++) await new Promise((r) => setTimeout(r, 10));
  return lines.join('');
};

describe('credentials in the log', () => {
  it('when a token or a secret is sent in the query string, then it is refused and its value is not logged', async () => {
    lines.length = 0;
    const secret = 'Sup3rSecretValue-1234';
    const response = await fetch(
      `${url}/projectConfig?access_token=${token}&client_secret=${secret}&Token=${secret}x&lang=en`,
    );
    expect(response.status).toBe(401);
    const log = await logged(1);
    expect(log).toContain('/projectConfig?');
    expect(log).toContain('lang=en');
    expect(log).not.toContain(token);
    expect(log).not.toContain(token.split('.')[1]);
    expect(log).not.toContain(secret);
  });

  it('when credentials come in headers and cookies, then none of them is logged', async () => {
    lines.length = 0;
    const basic = Buffer.from('client-id:Basic-Secret-9876').toString('base64');
    await fetch(`${url}/projectConfig`, {
      headers: { authorization: `Bearer ${token}`, cookie: 'sid=Cookie-Value-42' },
    });
    await fetch(`${url}/planner-integration/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_secret=Body-Secret-55',
    });
    const log = await logged(2);
    for (const secret of [token, basic, 'Basic-Secret-9876', 'Cookie-Value-42', 'Body-Secret-55']) {
      expect(log).not.toContain(secret);
    }
  });
});
