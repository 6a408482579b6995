import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { API_SCRIPT, NODE } from '../helpers/compiled';
import { startDelayingProxy, type DelayingProxy } from '../helpers/delaying-proxy';

/**
 * The API process (src/main.ts, as `npm start` runs it) sent SIGTERM, as an orchestrator stops it: what its
 * clients see. Elasticsearch sits behind a proxy that holds its cluster health requests for a second, so
 * GET health/ready is a request still in flight when the signal arrives.
 */
interface Api {
  child: ChildProcess;
  port: number;
  exited: Promise<number | null>;
  output: () => string;
}

const HELD_MS = 1000;
/** Below the 15 s watchdog of src/main.ts, far below the 65 s keep-alive timeout. */
const SHUTDOWN_BOUND_MS = 10_000;
let elasticsearch: DelayingProxy;
const started: ChildProcess[] = [];

beforeAll(async () => {
  elasticsearch = await startDelayingProxy(process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9200', (req) =>
    req.url?.startsWith('/_cluster/health') ? HELD_MS : 0,
  );
});

afterAll(async () => {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
  await elasticsearch.close();
});

async function startApi(): Promise<Api> {
  // Node runs the compiled API directly, so the signal reaches the API itself.
  const child = spawn(NODE, [API_SCRIPT], {
    env: { ...process.env, ELASTICSEARCH_URL: elasticsearch.url, PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(() => reject(new Error(`the API exited before listening:\n${output}`)));
  });
  return { child, port, exited, output: () => output };
}

interface Answer {
  status: number | undefined;
  connection: string | undefined;
  body: string;
}

function get(port: number, agent: http.Agent, urlPath: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: urlPath, agent }, (res) => {
        let body = '';
        res.on('error', (error) =>
          reject(Object.assign(error, { message: `GET ${urlPath}: ${error.message}` })),
        );
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode, connection: res.headers.connection, body }));
      })
      // Which request failed, when one does.
      .on('error', (error) => reject(Object.assign(error, { message: `GET ${urlPath}: ${error.message}` })));
  });
}

const since = (start: number) => Date.now() - start;

describe('when the API process is sent SIGTERM', () => {
  it('then a request in flight is answered with Connection: close, new connections are refused, and it exits 0 at once', async () => {
    const api = await startApi();
    // One kept-alive connection, as a balancer or a client library keeps one.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const warm = await get(api.port, agent, '/api/2026-03/health');
    expect(warm).toMatchObject({ status: 200, connection: 'keep-alive' });

    const inFlight = get(api.port, agent, '/api/2026-03/health/ready');
    await new Promise((resolve) => setTimeout(resolve, HELD_MS / 4));
    const signalled = Date.now();
    api.child.kill('SIGTERM');

    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ status: 'ok', postgres: 'ok', elasticsearch: 'ok' });
    // The client learns the connection ends with this answer, so its next request opens a new one.
    expect(answer.connection).toBe('close');
    await expect(get(api.port, agent, '/api/2026-03/health')).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    // Not the 65 s keep-alive timeout, nor the 15 s watchdog's exit 1 (the bound leaves room for a loaded machine).
    expect(await api.exited).toBe(0);
    expect(since(signalled)).toBeLessThan(SHUTDOWN_BOUND_MS);
    agent.destroy();
  });

  it('then an idle kept-alive connection is closed at once, and it exits 0', async () => {
    const api = await startApi();
    const socket = net.connect(api.port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write('GET /api/2026-03/health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await new Promise<void>((resolve) => {
      const check = () => (received.includes('{"status":"ok"}') ? resolve() : setTimeout(check, 20));
      check();
    });
    expect(received).toMatch(/connection: keep-alive/i);
    const signalled = Date.now();
    api.child.kill('SIGTERM');
    await closed;
    expect(await api.exited).toBe(0);
    expect(since(signalled)).toBeLessThan(SHUTDOWN_BOUND_MS);
  });
});
