import type { Router } from 'express';
import type { Readiness } from '../../../reads/health';
import { sendErrorAnswer } from '../../middleware/errors';
import type { RouteDeps } from '../deps';

/**
 * What GET health/ready answers for a readiness: 200 `{status:'ok', postgres, elasticsearch}`, or 503 in the
 * envelope with `Retry-After`. The API's route and the workers' probe server (src/metrics/server.ts) alike.
 */
export function readinessResponse({ ready, postgres, elasticsearch, retryAfterSeconds }: Readiness): {
  status: number;
  headers: Record<string, string>;
  body: object;
} {
  return {
    status: ready ? 200 : 503,
    headers: retryAfterSeconds === undefined ? {} : { 'Retry-After': String(retryAfterSeconds) },
    body: ready
      ? { status: 'ok', postgres, elasticsearch }
      : {
          status: 503,
          error: 'Service Unavailable',
          error_details: {
            name: 'NotReady',
            message: 'A dependency is not ready',
            postgres,
            elasticsearch,
          },
        },
  };
}

/** Liveness needs no token and touches nothing; readiness checks Postgres and Elasticsearch. */
export function healthRoutes(router: Router, { reads }: Pick<RouteDeps, 'reads'>): void {
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/health/ready', async (_req, res) => {
    const { status, headers, body } = readinessResponse(await reads.health.readiness());
    res.set(headers);
    if (status === 200) res.json(body);
    else sendErrorAnswer(res, status, body);
  });
}
