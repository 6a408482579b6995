import http from 'node:http';
import https from 'node:https';

/**
 * A GET that keeps the answer as bytes, over a kept-alive connection pool: what `broadsheet export` needs from
 * HTTP and no more. node:http rather than fetch: on the export's pages (~170 kB) fetch cost ~45% more client
 * CPU, which the exporter takes from the API and Elasticsearch when they share the machine.
 */

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface HttpGetter {
  get(url: URL, headers: Record<string, string>): Promise<HttpAnswer>;
  close(): void;
}

export function httpGetter(sockets: number, timeoutMs = 60_000): HttpGetter {
  const options = { keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets };
  const agents = { 'http:': new http.Agent(options), 'https:': new https.Agent(options) };
  return {
    get(url, headers) {
      const protocol = url.protocol === 'https:' ? https : http;
      return new Promise<HttpAnswer>((resolve, reject) => {
        const request = protocol.request(
          url,
          { method: 'GET', headers, agent: url.protocol === 'https:' ? agents['https:'] : agents['http:'] },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('error', reject);
            response.on('end', () =>
              resolve({
                status: response.statusCode ?? 0,
                headers: response.headers,
                body: Buffer.concat(chunks),
              }),
            );
          },
        );
        request.setTimeout(timeoutMs, () =>
          request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)),
        );
        request.on('error', reject);
        request.end();
      });
    },
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
