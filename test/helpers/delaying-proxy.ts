import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP proxy in front of a real service that holds back the requests `delayOf` names for that many ms
 * before forwarding them (a busy service: slow on some requests, prompt on the others); everything else is
 * forwarded at once. `requests` counts what went through, by method and path.
 */
export interface DelayingProxy {
  url: string;
  requests: { method: string; path: string }[];
  close(): Promise<void>;
}

export async function startDelayingProxy(
  targetUrl: string,
  delayOf: (request: IncomingMessage) => number,
): Promise<DelayingProxy> {
  const target = new URL(targetUrl);
  const requests: { method: string; path: string }[] = [];
  const held = new Set<NodeJS.Timeout>();
  const server = createServer((incoming, outgoing) => {
    requests.push({ method: incoming.method ?? '', path: incoming.url ?? '' });
    // A client that goes away while its request is held or answered (an API process stopping) resets its
    // socket: the request and the answer report it, which the proxy takes as the end of that exchange.
    incoming.on('error', () => outgoing.destroy());
    outgoing.on('error', () => incoming.destroy());
    const forward = () => {
      const upstream = request(
        {
          host: target.hostname,
          port: target.port,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
        },
        (answer) => {
          answer.on('error', () => outgoing.destroy());
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      upstream.on('error', () => outgoing.destroy());
      incoming.pipe(upstream);
    };
    const delay = delayOf(incoming);
    if (delay <= 0) return forward();
    const timer = setTimeout(() => {
      held.delete(timer);
      forward();
    }, delay);
    held.add(timer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        for (const timer of held) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
