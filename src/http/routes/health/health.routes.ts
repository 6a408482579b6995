import type { Router } from 'express';
import type { RouteDeps } from '../deps';

/** Liveness needs no token and touches nothing; readiness checks Postgres and Elasticsearch. */
export function healthRoutes(router: Router, { reads }: Pick<RouteDeps, 'reads'>): void {
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/health/ready', async (_req, res) => {
    const { ready, postgres, elasticsearch, retryAfterSeconds } = await reads.health.readiness();
    if (retryAfterSeconds !== undefined) res.set('Retry-After', String(retryAfterSeconds));
    res.status(ready ? 200 : 503).json(
      ready
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
    );
  });
}
