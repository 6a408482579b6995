import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the fake service answers one request. */
export interface FakeReply {
  status?: number;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as it is (nonsense, truncated JSON, huge bodies). */
  raw?: string;
  /** Waits this long before answering (a slow service). */
  delayMs?: number;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface FakeService {
  url: string;
  /** Every request received so far, oldest first. */
  received: ReceivedRequest[];
  /** Decides the next answers; the default answers 200 `{entities: []}`. */
  answer(reply: (request: ReceivedRequest) => FakeReply): void;
  close(): Promise<void>;
}

/**
 * A local HTTP server playing an external service the app calls (the enrichment service): it records what it
 * is sent and answers what the test says, as slowly or as wrongly as the test wants.
 */
export async function startFakeService(): Promise<FakeService> {
  const received: ReceivedRequest[] = [];
  let reply: (request: ReceivedRequest) => FakeReply = () => ({ json: { entities: [] } });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Kept as text.
      }
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      received.push(request);
      const answer = reply(request);
      const send = () => {
        if (res.destroyed) return;
        const payload = answer.raw ?? JSON.stringify(answer.json ?? {});
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
        res.end(payload);
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/enrich`,
    received,
    answer(next) {
      reply = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
