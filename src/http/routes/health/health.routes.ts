import type { Router } from 'express';
import type { AppContext } from '../../../context';

/** Liveness needs no token and touches nothing; readiness checks Postgres and Elasticsearch. */
export function healthRoutes(router: Router, ctx: AppContext): void {
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/health/ready', async (_req, res) => {
    const [postgres, elasticsearch] = await Promise.all([
      ctx.pool.query('SELECT 1').then(
        () => 'ok',
        (error: Error) => error.message,
      ),
      ctx.search.cluster.health({ timeout: '2s' }).then(
        (health) => (health.status === 'red' ? 'red' : 'ok'),
        (error: Error) => error.message,
      ),
    ]);
    const ready = postgres === 'ok' && elasticsearch === 'ok';
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
