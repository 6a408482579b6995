import type { Router } from 'express';
import type { AppContext } from '../../../context';
import { SEARCH_RETRY_AFTER_SECONDS } from '../../../search/client';

/** Readiness answers within this, whatever its dependencies do: a load balancer's probe must not hang. */
const READINESS_TIMEOUT_MS = 2_000;

/** 'ok', or why a check failed: its error's message, or that it did not answer in time. */
function check(work: Promise<unknown>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${READINESS_TIMEOUT_MS} ms`), READINESS_TIMEOUT_MS);
  });
  const outcome = work.then(
    (result) => (result === 'red' ? 'red' : 'ok'),
    (error: Error) => error.message,
  );
  return Promise.race([outcome, deadline]).finally(() => clearTimeout(timer));
}

/** Liveness needs no token and touches nothing; readiness checks Postgres and Elasticsearch. */
export function healthRoutes(router: Router, ctx: AppContext): void {
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/health/ready', async (_req, res) => {
    const [postgres, elasticsearch] = await Promise.all([
      check(ctx.pool.query('SELECT 1')),
      check(
        ctx.search.cluster
          .health(
            { timeout: `${READINESS_TIMEOUT_MS}ms` },
            { requestTimeout: READINESS_TIMEOUT_MS, maxRetries: 0 },
          )
          .then((health) => health.status),
      ),
    ]);
    const ready = postgres === 'ok' && elasticsearch === 'ok';
    if (!ready) res.set('Retry-After', String(SEARCH_RETRY_AFTER_SECONDS));
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
