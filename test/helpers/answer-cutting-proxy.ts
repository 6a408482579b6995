import net from 'node:net';
import type { AddressInfo } from 'node:net';

const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * How the proxy passes the server's answers on: all of them; none (connections are taken and never answered: a
 * hung store); each answer's head and its first `bodyBytes` body bytes, then nothing more with the connection
 * kept open (`stall`: a store stuck mid-answer) or the connection closed (`drop`: a store that dies mid-answer);
 * or all of it, slowly (`trickle`: `bytes` every `everyMs`, so an answer of some size is a while in flight);
 * or the proxy answers every request itself with `status` and an S3 error body (`fail`: a store that is up
 * but cannot serve, 500 InternalError or 503 SlowDown). Requests are taken to have no body (GET, HEAD).
 * `ignore-range` takes the Range header out of each request (a store, or a proxy before it, that serves the
 * whole object whatever was asked).
 */
export type AnswerMode =
  | { kind: 'forward' }
  | { kind: 'hang' }
  | { kind: 'cut'; bodyBytes: number; then: 'stall' | 'drop' }
  | { kind: 'trickle'; bytes: number; everyMs: number }
  | { kind: 'fail'; status: number }
  | { kind: 'ignore-range' };

/**
 * A TCP proxy in front of an HTTP/1.1 server (s3mock), to fail the server's answers the ways a remote store
 * fails, at the byte where a test wants, without touching the server. A new mode applies to connections made
 * after it: the open ones are closed when it is set (the client's kept-alive connections then turn out closed,
 * as after a store's restart). `connections()` counts the client's connections still open.
 */
export interface AnswerCuttingProxy {
  url: string;
  /** Sets the mode; resolves once the connections open until then are closed. */
  mode(next: AnswerMode): Promise<void>;
  connections(): number;
  /**
   * The client's connections (trickle mode) with an answer still being passed on: not an idle kept-alive one,
   * nor one whose answer its client let go (closed).
   */
  trickling(): number;
  close(): Promise<void>;
}

export async function startAnswerCuttingProxy(targetUrl: string): Promise<AnswerCuttingProxy> {
  const target = new URL(targetUrl);
  const clients = new Set<net.Socket>();
  const all = new Set<net.Socket>();
  let current: AnswerMode = { kind: 'forward' };
  /** The bytes still to pass on, per client connection of the trickle mode. */
  const trickling = new Map<net.Socket, Buffer[]>();
  const track = (socket: net.Socket) => {
    all.add(socket);
    socket.on('close', () => all.delete(socket));
    socket.on('error', () => socket.destroy());
  };

  const server = net.createServer((client) => {
    track(client);
    clients.add(client);
    client.on('close', () => clients.delete(client));
    const mode = current;
    if (mode.kind === 'hang') return;
    if (mode.kind === 'fail') {
      const body = `<?xml version="1.0"?><Error><Code>${mode.status === 503 ? 'SlowDown' : 'InternalError'}</Code></Error>`;
      let received = '';
      client.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
        for (let end = received.indexOf('\r\n\r\n'); end >= 0; end = received.indexOf('\r\n\r\n')) {
          const head = received.slice(0, end);
          received = received.slice(end + 4);
          client.write(
            `HTTP/1.1 ${mode.status} Failing\r\ncontent-type: application/xml\r\n` +
              `content-length: ${body.length}\r\n\r\n${head.startsWith('HEAD ') ? '' : body}`,
          );
        }
      });
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    track(upstream);
    if (mode.kind === 'ignore-range') {
      client.on('data', (chunk: Buffer) =>
        upstream.write(chunk.toString('latin1').replace(/\r\nrange:[^\r]*/gi, ''), 'latin1'),
      );
    } else {
      client.pipe(upstream);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    if (mode.kind === 'forward' || mode.kind === 'ignore-range') {
      upstream.pipe(client);
    } else if (mode.kind === 'trickle') {
      const pending: Buffer[] = [];
      trickling.set(client, pending);
      client.on('close', () => trickling.delete(client));
      upstream.on('data', (chunk: Buffer) => pending.push(chunk));
      const timer = setInterval(() => {
        let budget = mode.bytes;
        while (budget > 0 && pending.length > 0) {
          const chunk = pending.shift()!;
          const part = chunk.subarray(0, budget);
          if (part.length < chunk.length) pending.unshift(chunk.subarray(part.length));
          budget -= part.length;
          client.write(part);
        }
      }, mode.everyMs);
      client.on('close', () => clearInterval(timer));
    } else {
      // The answer's head (up to the blank line), then bodyBytes more: the rest is held back.
      let seen = Buffer.alloc(0);
      let headEnd = -1;
      let passed = 0;
      let done = false;
      upstream.on('data', (chunk: Buffer) => {
        if (done) return;
        let allowed: number;
        if (headEnd < 0) {
          seen = Buffer.concat([seen, chunk]);
          const at = seen.indexOf(HEAD_END);
          if (at < 0) {
            client.write(chunk);
            passed += chunk.length;
            return;
          }
          headEnd = at + HEAD_END.length;
          allowed = headEnd + mode.bodyBytes - passed;
        } else {
          allowed = headEnd + mode.bodyBytes - passed;
        }
        const part = chunk.subarray(0, Math.max(0, allowed));
        if (part.length > 0) client.write(part);
        passed += part.length;
        if (part.length < chunk.length || passed === headEnd + mode.bodyBytes) {
          done = true;
          if (mode.then === 'drop') client.destroy();
          else upstream.pause();
        }
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async mode(next) {
      current = next;
      const closed = [...all].map((socket) => new Promise((resolve) => socket.once('close', resolve)));
      for (const socket of all) socket.destroy();
      await Promise.all(closed);
    },
    connections: () => clients.size,
    trickling: () => [...trickling.values()].filter((pending) => pending.length > 0).length,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of all) socket.destroy();
      await closed;
    },
  };
}
