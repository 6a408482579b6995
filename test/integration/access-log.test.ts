import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import pino from 'pino';
import { accessLog } from '../../src/http/middleware/access-log';

describe('access log', () => {
  const lines: Record<string, unknown>[] = [];
  let url: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    const app = express();
    app.use(accessLog(pino({ level: 'info' }, sink)));
    app.get('/ok', (_req, res) => {
      res.json({ ok: true });
    });
    app.get('/broken', (_req, res) => {
      res.status(500).json({ broken: true });
    });
    app.get('/health', (_req, res) => {
      res.json({ status: 'ok' });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise((resolve) => server.close(() => resolve()));
  });

  afterAll(async () => {
    await close();
  });

  const until = async (count: number) => {
    for (let i = 0; i < 50 && lines.length < count; i++) await new Promise((r) => setTimeout(r, 10));
  };

  it('when a request is answered, then one line names method, url, status and time, with the request id sent back', async () => {
    lines.length = 0;
    const response = await fetch(`${url}/ok?x=1`, { headers: { 'x-request-id': 'trace-7' } });
    expect(response.headers.get('x-request-id')).toBe('trace-7');
    await until(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      msg: 'request completed',
      reqId: 'trace-7',
      req: { method: 'GET', url: '/ok?x=1' },
      res: { statusCode: 200 },
    });
    expect(typeof lines[0]!.responseTime).toBe('number');
  });

  it('when no request id is sent, then a UUID is made up; a 5xx is logged as an error; liveness is not logged', async () => {
    lines.length = 0;
    const response = await fetch(`${url}/broken`);
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    await fetch(`${url}/health`);
    await until(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, res: { statusCode: 500 } });
  });
});
