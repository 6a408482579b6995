import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnswerTooLarge, postToClientUrl, type ClientPostOptions } from '../../src/commands/client-post';
import { publicAddressPolicy } from '../../src/domain/public-addresses';
import { AddressRefused } from '../../src/commands/public-lookup';

/**
 * The POST to a client's URL shared by import webhooks and the enrichment service, against a local server:
 * its address is private, so the calls that reach it allow private addresses, as the tests of both callers do.
 */
describe('postToClientUrl', () => {
  let server: Server;
  let base: string;
  const received: { url: string | undefined; headers: IncomingMessage['headers']; body: string }[] = [];
  let answer: (res: ServerResponse) => void = (res) => res.end();

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        answer(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    received.length = 0;
  });

  const options = (extra: Partial<ClientPostOptions> = {}): ClientPostOptions => ({
    addresses: publicAddressPolicy(),
    allowPrivate: true,
    drainBytes: 0,
    ...extra,
  });
  const post = (path: string, extra?: Partial<ClientPostOptions>, signal = AbortSignal.timeout(5000)) =>
    postToClientUrl(
      new URL(path, base),
      '{"a":1}',
      { 'content-type': 'application/json', 'x-k': 'v' },
      signal,
      options(extra),
    );

  it('when the URL is a private IP address and private ones are not allowed, then it is refused before anything is sent', async () => {
    await expect(post('/hook', { allowPrivate: false })).rejects.toThrow(AddressRefused);
    await expect(post('/hook', { allowPrivate: false })).rejects.toThrow('127.0.0.1 is not a public address');
    expect(received).toEqual([]);
  });

  it('when the host is a name that resolves to a private address, then it is refused at its lookup', async () => {
    const url = base.replace('127.0.0.1', 'localhost');
    const refused = postToClientUrl(
      new URL('/hook', url),
      '{}',
      {},
      AbortSignal.timeout(5000),
      options({ allowPrivate: false }),
    );
    await expect(refused).rejects.toThrow(/^localhost resolves to .*, which is not a public address$/);
    expect(received).toEqual([]);
  });

  it('when the body is not read, then the status comes back alone, with the headers and body sent as given', async () => {
    answer = (res) => res.writeHead(202).end('thanks');
    await expect(post('/hook')).resolves.toEqual({ status: 202 });
    expect(received).toEqual([
      {
        url: '/hook',
        headers: expect.objectContaining({
          'content-type': 'application/json',
          'x-k': 'v',
          'content-length': '7',
        }),
        body: '{"a":1}',
      },
    ]);
  });

  it('when the answer is a redirect, then it is not followed: its status comes back', async () => {
    answer = (res) => res.writeHead(307, { location: `${base}/elsewhere` }).end();
    await expect(post('/hook', { read: { when: () => true, maxBytes: 100 } })).resolves.toEqual({
      status: 307,
      body: Buffer.alloc(0),
    });
    expect(received.map((request) => request.url)).toEqual(['/hook']);
  });

  it('when the body is read, then it comes back up to the cap; past it the call fails', async () => {
    answer = (res) => res.writeHead(200).end('x'.repeat(100));
    const read = { when: (status: number) => status === 200, maxBytes: 100 };
    expect((await post('/hook', { read })).body?.toString()).toBe('x'.repeat(100));
    await expect(post('/hook', { read: { ...read, maxBytes: 99 } })).rejects.toThrow(AnswerTooLarge);
    await expect(post('/hook', { read: { ...read, maxBytes: 99 } })).rejects.toThrow(
      'answered more than 99 bytes',
    );
  });

  it('when the body of another status is not read, then only the status comes back', async () => {
    answer = (res) => res.writeHead(500).end('boom');
    await expect(
      post('/hook', { read: { when: (status) => status === 200, maxBytes: 100 }, drainBytes: 10 }),
    ).resolves.toEqual({
      status: 500,
    });
  });

  it('when the answer does not come before the signal, then the call fails with the abort', async () => {
    answer = () => undefined;
    const signal = AbortSignal.timeout(100);
    await expect(post('/hook', {}, signal)).rejects.toThrow();
    expect(signal.aborted).toBe(true);
  });
});
