import type { Queryable } from '../db/pool';
import type { Logger } from '../logger';
import { serverQueries } from '../db/queries/server';
import { SEARCH_RETRY_AFTER_SECONDS, type SearchClient } from '../search/client';

/** Readiness answers within this, whatever its dependencies do: a load balancer's probe must not hang. */
const READINESS_TIMEOUT_MS = 2_000;

/**
 * A dependency's state as an anonymous caller sees it: 'ok'; 'red' (Elasticsearch answered, its cluster is
 * red); or 'unavailable' (it failed or did not answer in time). The cause is logged, never answered: an
 * error's text names hosts and ports.
 */
export type DependencyState = 'ok' | 'red' | 'unavailable';

export interface Readiness {
  ready: boolean;
  postgres: DependencyState;
  elasticsearch: DependencyState;
  /** When not ready: how long a client is asked to wait before trying again (Retry-After). */
  retryAfterSeconds?: number;
}

/** A dependency's state, within READINESS_TIMEOUT_MS; why it is not ready goes to the log at warn. */
function check(
  dependency: string,
  work: Promise<unknown>,
  logger: Logger | undefined,
): Promise<DependencyState> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<DependencyState>((resolve) => {
    timer = setTimeout(() => {
      logger?.warn(
        { dependency },
        `readiness: ${dependency} gave no answer within ${READINESS_TIMEOUT_MS} ms`,
      );
      resolve('unavailable');
    }, READINESS_TIMEOUT_MS);
  });
  const outcome = work.then(
    (result): DependencyState => {
      if (result !== 'red') return 'ok';
      logger?.warn({ dependency }, `readiness: ${dependency} cluster is red`);
      return 'red';
    },
    (error: unknown): DependencyState => {
      logger?.warn({ dependency, err: error }, `readiness: ${dependency} is unavailable`);
      return 'unavailable';
    },
  );
  return Promise.race([outcome, deadline]).finally(() => clearTimeout(timer));
}

/** Whether the process's backing services answer (GET health/ready), within READINESS_TIMEOUT_MS. */
export function healthReads(deps: { db: Queryable; search: SearchClient; logger?: Logger | undefined }) {
  const server = serverQueries(deps.db);
  return {
    async readiness(): Promise<Readiness> {
      const [postgres, elasticsearch] = await Promise.all([
        check('postgres', server.ping(), deps.logger),
        check(
          'elasticsearch',
          deps.search.cluster
            .health(
              { timeout: `${READINESS_TIMEOUT_MS}ms` },
              // No retry on one node; in a cluster, the next node when the first is down (the client's
              // pool size is the number of ELASTICSEARCH_URL nodes).
              { requestTimeout: READINESS_TIMEOUT_MS, maxRetries: deps.search.connectionPool.size - 1 },
            )
            .then((health) => health.status),
          deps.logger,
        ),
      ]);
      const ready = postgres === 'ok' && elasticsearch === 'ok';
      return ready
        ? { ready, postgres, elasticsearch }
        : { ready, postgres, elasticsearch, retryAfterSeconds: SEARCH_RETRY_AFTER_SECONDS };
    },
  };
}

export type HealthReads = ReturnType<typeof healthReads>;
