import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { UNMATCHED_ROUTE, type Metrics } from '../../metrics/metrics';
import type { Refusal } from '../../db/auth-failure-limiter';
import { bearerToken } from '../bearer';
import type { MetricsTokenFailures } from '../metrics-token-failures';

/** Where the versioned router is mounted (src/http/app.ts): the prefix of every API route's template. */
export const API_MOUNT = '/api/:apiVersion';

/**
 * The route template a request matched (`/api/:apiVersion/documents/:documentId/latestDraft`), never its
 * raw URL: one series per route, however many documents are asked for. A request no route matched (unknown
 * path, unknown version) is `unmatched`. Express leaves `req.route` set once a route took the request, errors
 * included; the version middleware sets `req.apiVersion` for the versioned router only.
 */
export function routeTemplate(req: Request): string {
  const path = (req as { route?: { path?: unknown } }).route?.path;
  if (typeof path !== 'string') return UNMATCHED_ROUTE;
  return ((req as { apiVersion?: unknown }).apiVersion === undefined ? '' : API_MOUNT) + path;
}

/** Counts every answered request and its duration by method, route template and status. */
export function observeRequests(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const labels = { method: req.method, route: routeTemplate(req), status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}

const digest = (text: string) => createHash('sha256').update(text).digest();

function sendError(res: ServerResponse, status: number, error: string, message: string, extra = {}): void {
  const body = JSON.stringify({ status, error, error_details: { name: error.replace(/\W/g, ''), message } });
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...extra,
  });
  res.end(body);
}

/** The 429 of an address past its limit of wrong metrics tokens, sent before any metrics. */
function sendRefusal(res: ServerResponse, metrics: Metrics, refusal: Refusal): void {
  metrics.rateLimited.inc();
  const limits = refusal.refusedBy
    .map(({ limit }) => `${limit.requests} per ${limit.periodSeconds} s from this address`)
    .join(' and ');
  sendError(
    res,
    429,
    'Too Many Requests',
    `Too many wrong metrics tokens (at most ${limits}); retry in ${refusal.retryAfterSeconds} s`,
    { 'retry-after': String(refusal.retryAfterSeconds) },
  );
}

/** How a wrong token is limited: the counts, and the client address of a request (the API's req.ip). */
export interface MetricsTokenLimit {
  failures: MetricsTokenFailures;
  addressOf?: (req: IncomingMessage) => string | undefined;
}

/**
 * `GET /metrics` in Prometheus's text format, for the API (mounted on the app) and the workers (their own
 * small server) alike. With a token, only `Authorization: Bearer <token>` is answered, the header read as the
 * API reads its own (bearerToken: the scheme in any case, one or more spaces) and the token compared in
 * constant time; without one (the workers' server bound to loopback), anyone who can connect is. With
 * `limit`, wrong tokens are limited per client address (MetricsTokenFailures): past the limit every token
 * from that address, the right one included, is a 429 with Retry-After. No token, or no bearer token, checks
 * nothing and is not counted.
 */
export function metricsEndpoint(
  metrics: Metrics,
  token: string | undefined,
  limit?: MetricsTokenLimit,
): (req: IncomingMessage, res: ServerResponse) => void {
  const expected = token === undefined ? undefined : digest(token);
  const addressOf = limit?.addressOf ?? ((req: IncomingMessage) => req.socket.remoteAddress);
  const scrape = (res: ServerResponse) =>
    metrics.scrape().then(
      ({ contentType, body }) => {
        res.writeHead(200, {
          'content-type': contentType,
          'cache-control': 'no-store',
          'content-length': Buffer.byteLength(body),
        });
        res.end(body);
      },
      () => sendError(res, 500, 'Internal Server Error', 'The metrics could not be collected.'),
    );
  return (req, res) => {
    if (!expected) {
      void scrape(res);
      return;
    }
    const given = req.headers.authorization;
    const credentials = bearerToken(given);
    // Digests of equal length, so the comparison takes the same time whatever was sent.
    const right = credentials !== undefined && timingSafeEqual(digest(credentials), expected);
    if (!limit || credentials === undefined) {
      if (right) void scrape(res);
      else sendUnauthorized(res, given);
      return;
    }
    const address = addressOf(req);
    (right ? limit.failures.beforeServing(address) : limit.failures.failed(address)).then(
      (refusal) => {
        if (refusal) sendRefusal(res, metrics, refusal);
        else if (right) void scrape(res);
        else sendUnauthorized(res, given);
      },
      () => sendError(res, 500, 'Internal Server Error', 'The metrics token could not be checked.'),
    );
  };
}

/** RFC 6750 §3.1: a bare challenge when no credentials came, invalid_token when they are wrong. */
function sendUnauthorized(res: ServerResponse, given: string | undefined): void {
  const invalid = 'The metrics token is invalid.';
  sendError(
    res,
    401,
    'Unauthorized',
    given === undefined
      ? 'The metrics token is missing: send Authorization: Bearer <METRICS_TOKEN>'
      : invalid,
    {
      'www-authenticate':
        given === undefined
          ? 'Bearer realm="metrics"'
          : `Bearer realm="metrics", error="invalid_token", error_description="${invalid}"`,
    },
  );
}
