import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { Pool } from 'undici';
import { untilServing } from './bench';

/**
 * The bound of any API in front of Elasticsearch on these cores: a bare Node HTTP server, one process like the
 * API, that answers each of the bench's list queries by sending the same Elasticsearch request over a kept-alive
 * undici pool and passing Elasticsearch's bytes back as they came. No auth, no validation, no reshaping, no
 * headers beyond the length, no framework: what is left is the hop itself (a second HTTP server and client
 * on the same two cores). The bench runs it beside the API and raw Elasticsearch, so a list's ratio reads
 * against the best a hop could do in the same run.
 */

/** What the hop answers: the query string of a `publications/search` URL → the Elasticsearch request body. */
export type HopRoutes = Record<string, string>;

/** Starts the hop as a process of its own on `port`; resolves once it answers. */
export async function startPassthroughHop(
  port: number,
  elasticsearch: string,
  index: string,
  routes: HopRoutes,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', __filename], {
    env: {
      ...process.env,
      HOP_PORT: String(port),
      HOP_ELASTICSEARCH: elasticsearch,
      HOP_INDEX: index,
      HOP_ROUTES: JSON.stringify(routes),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await untilServing(child, `http://127.0.0.1:${port}/health`, 'the passthrough hop');
  return child;
}

function serve(): void {
  const routes = JSON.parse(process.env.HOP_ROUTES ?? '{}') as HopRoutes;
  const path = `/${encodeURIComponent(process.env.HOP_INDEX ?? '')}/_search`;
  const pool = new Pool(new URL(process.env.HOP_ELASTICSEARCH ?? 'http://127.0.0.1:9200').origin, {
    connections: 64,
  });
  const headers = { 'content-type': 'application/json' };
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    const url = req.url ?? '/';
    const body = routes[url.slice(url.indexOf('?') + 1)];
    if (body === undefined) {
      res.writeHead(url === '/health' ? 200 : 404, { 'content-length': 0 });
      res.end();
      return;
    }
    pool.request({ method: 'POST', path, body, headers }).then(
      (answer) => {
        const chunks: Buffer[] = [];
        answer.body.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.body.once('end', () => {
          const bytes = Buffer.concat(chunks);
          res.writeHead(answer.statusCode, {
            'content-type': 'application/json; charset=utf-8',
            'content-length': bytes.length,
          });
          res.end(bytes);
        });
        answer.body.once('error', () => res.destroy());
      },
      () => {
        res.writeHead(502, { 'content-length': 0 });
        res.end();
      },
    );
  });
  server.listen(Number(process.env.HOP_PORT), '127.0.0.1');
  process.once('SIGTERM', () => server.close(() => void pool.close()));
}

if (require.main === module) serve();
