import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { metricsEndpoint } from '../http/middleware/metrics';
import type { MetricsTokenFailures } from '../http/metrics-token-failures';
import { SLOW_CLIENT_TIMEOUTS } from '../http/request-timeouts';
import { readinessResponse } from '../http/routes/health/health.routes';
import type { HealthReads } from '../reads/health';
import type { Metrics } from './metrics';

/** The paths of the probe server besides /metrics: liveness and readiness, as the API's health routes. */
const HEALTH = '/health';
const READY = '/health/ready';

/**
 * The workers' metrics and probes: a small HTTP server (WORKER_METRICS_PORT, on HOST) answering `GET /metrics`,
 * with METRICS_TOKEN required when it is set, and, with `health`, the probes an orchestrator calls without a
 * token: `GET /health` (liveness: the process answers; touches nothing) and `GET /health/ready` (Postgres and
 * Elasticsearch answer, the API's readiness: 200, or 503 with Retry-After). Another method on these paths is a
 * 405 with `Allow: GET, HEAD` (RFC 9110 §15.5.6), any other path a 404, both in the spec's envelope.
 */
export function startMetricsServer(
  metrics: Metrics,
  options: {
    host: string;
    port: number;
    token: string | undefined;
    health?: HealthReads;
    /** Wrong tokens limited per address (the socket's peer: this server trusts no proxy). */
    tokenFailures?: MetricsTokenFailures;
  },
): Promise<Server> {
  const endpoint = metricsEndpoint(
    metrics,
    options.token,
    options.tokenFailures ? { failures: options.tokenFailures } : undefined,
  );
  const paths = ['/metrics', ...(options.health ? [HEALTH, READY] : [])];
  const route = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const read = req.method === 'GET' || req.method === 'HEAD';
    if (path === '/metrics' && read) {
      endpoint(req, res);
      return;
    }
    if (options.health && path === HEALTH && read) {
      answer(req, res, 200, { status: 'ok' });
      return;
    }
    if (options.health && path === READY && read) {
      options.health.readiness().then(
        (readiness) => {
          const { status, headers, body } = readinessResponse(readiness);
          answer(req, res, status, body, headers);
        },
        () => answer(req, res, 503, envelope(503, 'Service Unavailable', { name: 'NotReady', url: path })),
      );
      return;
    }
    if (paths.includes(path)) {
      answer(
        req,
        res,
        405,
        envelope(405, 'Method Not Allowed', {
          name: 'MethodNotAllowed',
          message: `${path} answers GET and HEAD only, not ${req.method ?? ''}`,
          url: path,
        }),
        { allow: 'GET, HEAD' },
      );
      return;
    }
    answer(
      req,
      res,
      404,
      envelope(404, 'Not Found', {
        name: 'NotFound',
        message: `This server answers GET ${paths.join(', ')} only`,
        url: path,
      }),
    );
  };
  // A client that trickles its headers is cut off as by the API (Node's defaults held it for up to 90 s). Nothing
  // here reads a body, so the whole request must be in with its headers (requestTimeout: the headers' timeout).
  const server = createServer(
    { ...SLOW_CLIENT_TIMEOUTS, requestTimeout: SLOW_CLIENT_TIMEOUTS.headersTimeout },
    (req, res) => {
      // A request that came with a body is answered and its connection closed with the answer: Node otherwise
      // read the body after the answer, to keep the connection, for as long as the client took to drip it.
      if (declaresBody(req)) res.setHeader('connection', 'close');
      route(req, res);
    },
  );
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** Whether a request says a body follows its headers (RFC 9112 §6.3). */
const declaresBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

const envelope = (status: number, error: string, details: Record<string, string>) => ({
  status,
  error,
  error_details: details,
});

/** A JSON answer (no body to a HEAD). */
function answer(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: object,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(req.method === 'HEAD' ? undefined : text);
}
