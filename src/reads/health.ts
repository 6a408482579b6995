import type { Queryable } from '../db/pool';
import type { SearchClient } from '../search/client';

export interface Readiness {
  ready: boolean;
  /** 'ok', or what is wrong. */
  postgres: string;
  elasticsearch: string;
}

/** Whether the process's backing services answer (GET health/ready). */
export function healthReads(deps: { db: Queryable; search: SearchClient }) {
  return {
    async readiness(): Promise<Readiness> {
      const [postgres, elasticsearch] = await Promise.all([
        deps.db.query('SELECT 1').then(
          () => 'ok',
          (error: Error) => error.message,
        ),
        deps.search.cluster.health({ timeout: '2s' }).then(
          (health) => (health.status === 'red' ? 'red' : 'ok'),
          (error: Error) => error.message,
        ),
      ]);
      return { ready: postgres === 'ok' && elasticsearch === 'ok', postgres, elasticsearch };
    },
  };
}

export type HealthReads = ReturnType<typeof healthReads>;
