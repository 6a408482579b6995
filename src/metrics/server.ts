import { createServer, type Server } from 'node:http';
import { metricsEndpoint } from '../http/middleware/metrics';
import type { Metrics } from './metrics';

/**
 * The workers' metrics: a small HTTP server answering `GET /metrics` (WORKER_METRICS_PORT, on HOST), with
 * METRICS_TOKEN required when it is set. Another method on /metrics is a 405 with `Allow: GET, HEAD` (RFC 9110
 * §15.5.6), any other path a 404, both in the spec's envelope.
 */
export function startMetricsServer(
  metrics: Metrics,
  options: { host: string; port: number; token: string | undefined },
): Promise<Server> {
  const endpoint = metricsEndpoint(metrics, options.token);
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (path === '/metrics' && (req.method === 'GET' || req.method === 'HEAD')) {
      endpoint(req, res);
      return;
    }
    const answer = (status: number, error: string, details: Record<string, string>, headers = {}) => {
      const body = JSON.stringify({ status, error, error_details: details });
      res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8' });
      res.end(body);
    };
    if (path === '/metrics') {
      answer(
        405,
        'Method Not Allowed',
        {
          name: 'MethodNotAllowed',
          message: `/metrics answers GET and HEAD only, not ${req.method ?? ''}`,
          url: path,
        },
        { allow: 'GET, HEAD' },
      );
      return;
    }
    answer(404, 'Not Found', {
      name: 'NotFound',
      message: 'This server answers GET /metrics only',
      url: path,
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
