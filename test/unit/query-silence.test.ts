import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { boundQuerySilence, isDatabaseUnavailable } from '../../src/db/pool';

/**
 * DATABASE_QUERY_TIMEOUT_MS is a bound on a query's connection staying silent, not on the query's length
 * (boundQuerySilence): here a stand-in client whose "connection" is a real local socket, and a "server" end
 * the test writes to.
 */
describe('boundQuerySilence', () => {
  const silenceMs = 200;
  let server: net.Server;
  let serverEnd: net.Socket;
  let clientEnd: net.Socket;
  let finish: () => void;
  let client: pg.Client;

  beforeEach(async () => {
    const accepted = new Promise<net.Socket>((resolve) => {
      server = net.createServer(resolve);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    clientEnd = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
    clientEnd.on('error', () => undefined);
    serverEnd = await accepted;
    serverEnd.on('error', () => undefined);
    // Like pg: the query settles when the test says so, and fails with the connection's error; a promise,
    // or its callback called (pg-pool's form).
    // A class, as pg.Client is: the bound wraps the class's query method.
    class Stand {
      connection = { stream: clientEnd };
      query(...args: unknown[]) {
        const answer = new Promise<string>((resolve, reject) => {
          finish = () => resolve('answer');
          clientEnd.on('data', () => undefined);
          clientEnd.once('error', reject);
        });
        const callback = args.at(-1);
        if (typeof callback !== 'function') return answer;
        answer.then(
          (rows) => callback(undefined, rows),
          (error: unknown) => callback(error),
        );
        return undefined;
      }
    }
    client = new Stand() as unknown as pg.Client;
    boundQuerySilence(client, silenceMs);
  });
  afterEach(async () => {
    clientEnd.destroy();
    serverEnd.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const ask = () => (client.query('SELECT') as unknown as Promise<string>).catch((error: unknown) => error);

  it('when bytes keep arriving for several times the bound, then the query is not cut', async () => {
    const answer = ask();
    const ticker = setInterval(() => serverEnd.write('x'), silenceMs / 4);
    await new Promise((resolve) => setTimeout(resolve, silenceMs * 4));
    clearInterval(ticker);
    finish();
    expect(await answer).toBe('answer');
    expect(clientEnd.destroyed).toBe(false);
  });

  it('when bytes arrived while this process was too busy to read them (past the bound), then the query is not cut', async () => {
    const answer = ask();
    await new Promise((resolve) => setTimeout(resolve, silenceMs / 2));
    // Bytes arrive and wait in the socket while the event loop is blocked past the bound; blocked in the
    // loop's last phase, so the timer comes due before the loop reads the socket again.
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        serverEnd.write('x');
        const until = performance.now() + silenceMs * 2;
        while (performance.now() < until);
        resolve();
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, silenceMs / 2));
    finish();
    expect(await answer).toBe('answer');
    expect(clientEnd.destroyed).toBe(false);
  });

  it('when no byte arrives for the bound, then the query fails as the database being unavailable and the connection is destroyed', async () => {
    const started = performance.now();
    const error = await ask();
    expect(performance.now() - started).toBeGreaterThanOrEqual(silenceMs - 5);
    expect((error as Error).message).toBe(`Query read timeout: no answer from Postgres for ${silenceMs} ms`);
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(clientEnd.destroyed).toBe(true);
  });

  it('when a callback is given (as pg-pool does) and the answer comes, then the callback gets it and the bound stops', async () => {
    const answers: unknown[][] = [];
    (client as unknown as { query: (...args: unknown[]) => unknown }).query(
      'SELECT',
      undefined,
      (...answer: unknown[]) => answers.push(answer),
    );
    finish();
    await new Promise((resolve) => setTimeout(resolve, silenceMs * 2));
    expect(answers).toEqual([[undefined, 'answer']]);
    expect(clientEnd.destroyed).toBe(false);
  });

  it('when a callback is given and no byte arrives for the bound, then the callback gets the timeout', async () => {
    const answer = new Promise<unknown[]>((resolve) =>
      (client as unknown as { query: (...args: unknown[]) => unknown }).query(
        'SELECT',
        (...args: unknown[]) => resolve(args),
      ),
    );
    const [error] = await answer;
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(clientEnd.destroyed).toBe(true);
  });
});
