import { createServer, type Server } from 'node:http';
import { metricsEndpoint } from '../http/middleware/metrics';
import type { Metrics } from './metrics';

/**
 * The workers' metrics: a small HTTP server answering `GET /metrics` (WORKER_METRICS_PORT, on HOST), with
 * METRICS_TOKEN required when it is set. Anything else is a 404 in the spec's envelope.
 */
export function startMetricsServer(
  metrics: Metrics,
  options: { host: string; port: number; token: string | undefined },
): Promise<Server> {
  const endpoint = metricsEndpoint(metrics, options.token);
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/metrics' && (req.method === 'GET' || req.method === 'HEAD')) {
      endpoint(req, res);
      return;
    }
    const body = JSON.stringify({
      status: 404,
      error: 'Not Found',
      error_details: { name: 'NotFound', message: 'This server answers GET /metrics only', url: path },
    });
    res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
    res.end(body);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
