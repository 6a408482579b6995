import type { Queryable } from '../db/pool';
import { serverQueries } from '../db/queries/server';
import { SEARCH_RETRY_AFTER_SECONDS, type SearchClient } from '../search/client';

/** Readiness answers within this, whatever its dependencies do: a load balancer's probe must not hang. */
const READINESS_TIMEOUT_MS = 2_000;

export interface Readiness {
  ready: boolean;
  /** 'ok', or what is wrong. */
  postgres: string;
  elasticsearch: string;
  /** When not ready: how long a client is asked to wait before trying again (Retry-After). */
  retryAfterSeconds?: number;
}

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

/** Whether the process's backing services answer (GET health/ready), within READINESS_TIMEOUT_MS. */
export function healthReads(deps: { db: Queryable; search: SearchClient }) {
  const server = serverQueries(deps.db);
  return {
    async readiness(): Promise<Readiness> {
      const [postgres, elasticsearch] = await Promise.all([
        check(server.ping()),
        check(
          deps.search.cluster
            .health(
              { timeout: `${READINESS_TIMEOUT_MS}ms` },
              // No retry on one node; in a cluster, the next node when the first is down (the client's
              // pool size is the number of ELASTICSEARCH_URL nodes).
              { requestTimeout: READINESS_TIMEOUT_MS, maxRetries: deps.search.connectionPool.size - 1 },
            )
            .then((health) => health.status),
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
