import type { AppContext } from '../../src/context';
import { createPool, type Pool } from '../../src/db/pool';
import { ProjectConfigCache } from '../../src/db/project-config-cache';
import { projectQueries } from '../../src/db/queries/projects';
import { ProjectConfigSchema, type ProjectConfig } from '../../src/domain/project-config';
import { buildProjectConfig, createTestProject } from '../helpers/factories';

/**
 * The process's cache of projects (src/db/project-config-cache.ts) on real Postgres, its reads of `projects`
 * counted and its clock in the test's hands. Another process's change is made straight in SQL, so the cache
 * hears nothing of it; README promises it shows within 5 s.
 */
const TTL_MS = 5_000;
let pool: Pool;
let projectId: number;
/** The cache's reads of a project, as sent to Postgres. */
let reads = 0;
/** Of those, the ones Postgres answered with the config. */
let configsSent = 0;
/** When set, the next read waits for it before going to Postgres, or fails. */
let holdNext: Promise<void> | undefined;
let failNext = false;
/** Not 0: lru-cache takes an entry stored at 0 for one without a time. */
let now = 1_000_000;
const clock = { now: () => now };

/** Moves the cache's clock on; lru-cache keeps a reading of it for up to 1 ms of real time. */
async function advance(ms: number) {
  now += ms;
  await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Another process applies a config: one more revision, nothing said to this one. */
async function changeElsewhere(): Promise<number> {
  const result = await pool.query<{ revision_number: number }>(
    'UPDATE projects SET revision_number = revision_number + 1 WHERE id = $1 RETURNING revision_number',
    [projectId],
  );
  return result.rows[0]!.revision_number;
}

beforeAll(async () => {
  pool = createPool(process.env.DATABASE_URL!, 4);
  ({ projectId } = await createTestProject({ pool } as AppContext));
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  pool.query = (async (...args: unknown[]) => {
    if (typeof args[0] === 'string' && /FROM projects p\s+WHERE p\.id = \$1/.test(args[0])) {
      reads += 1;
      const held = holdNext;
      holdNext = undefined;
      if (held) await held;
      if (failNext) {
        failNext = false;
        throw new Error('Connection terminated unexpectedly');
      }
      const result = (await query(...args)) as { rows: { config: unknown }[] };
      if (result.rows[0]?.config != null) configsSent += 1;
      return result;
    }
    return query(...args);
  }) as typeof pool.query;
});
afterAll(() => pool.end());

let cache: ProjectConfigCache;
beforeEach(() => {
  cache = new ProjectConfigCache(pool, clock);
  reads = 0;
  configsSent = 0;
});
afterEach(() => cache.close());

describe('the project cache', () => {
  it('when 20 requests ask for a project whose copy has expired, then Postgres is asked once and each gets the config as it is now', async () => {
    const first = await cache.get(projectId);
    expect(reads).toBe(1);
    const revision = await changeElsewhere();
    await advance(TTL_MS + 1);

    const answers = await Promise.all(Array.from({ length: 20 }, () => cache.get(projectId)));
    expect(reads).toBe(2);
    expect(answers.map((project) => project.revisionNumber)).toEqual(Array(20).fill(revision));
    expect(revision).toBe(first.revisionNumber + 1);
    await cache.get(projectId);
    expect(reads).toBe(2);
  });

  it('when another process changes the config, then it shows once the copy is 5 s old, not later', async () => {
    const before = (await cache.get(projectId)).revisionNumber;
    const revision = await changeElsewhere();
    await advance(TTL_MS - 1);
    expect((await cache.get(projectId)).revisionNumber).toBe(before);
    await advance(2);
    expect((await cache.get(projectId)).revisionNumber).toBe(revision);
  });

  it('when the shared read fails, then every request that shared it gets the error, and the next one reads again', async () => {
    failNext = true;
    const answers = await Promise.allSettled(Array.from({ length: 5 }, () => cache.get(projectId)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(5).fill('rejected'));
    expect(reads).toBe(1);

    const revision = await changeElsewhere();
    expect((await cache.get(projectId)).revisionNumber).toBe(revision);
    expect(reads).toBe(2);
  });

  it('when a read has waited 5 s for Postgres, then a new request does not share it and reads the config as it is now', async () => {
    let release!: () => void;
    holdNext = new Promise((resolve) => (release = resolve));
    const waiting = cache.get(projectId);
    await advance(TTL_MS);
    const revision = await changeElsewhere();

    const fresh = await cache.get(projectId);
    expect(reads).toBe(2);
    expect(fresh.revisionNumber).toBe(revision);
    release();
    await waiting;
    // The late read, as old as the bound, is not kept in place of the fresh one.
    await advance(TTL_MS - 100);
    expect((await cache.get(projectId)).revisionNumber).toBe(revision);
    expect(reads).toBe(2);
  });

  it('when this process applies a config while a read is in flight, then the next request reads again', async () => {
    let release!: () => void;
    holdNext = new Promise((resolve) => (release = resolve));
    const waiting = cache.get(projectId);
    const revision = await changeElsewhere();
    pool.changes.emit('project', projectId);

    expect((await cache.get(projectId)).revisionNumber).toBe(revision);
    expect(reads).toBe(2);
    release();
    await waiting;
  });

  it('when a large config has not changed, then its expired copy is revalidated without Postgres sending it or zod parsing it, and a config applied elsewhere still shows within 5 s', async () => {
    const categories = Array.from({ length: 20_000 }, (_, i) => ({
      id: `c${i}`,
      label: `Category ${i}`,
      path: `/c${i}`,
    }));
    const config = buildProjectConfig({ categories });
    const { projectId: large } = await createTestProject({ pool } as AppContext, { config });
    const parses = jest.spyOn(ProjectConfigSchema, 'parse');
    try {
      const first = await cache.get(large);
      expect(first.config.categories).toHaveLength(20_000);
      expect([reads, configsSent, parses.mock.calls.length]).toEqual([1, 1, 1]);

      await advance(TTL_MS + 1);
      const answers = await Promise.all(Array.from({ length: 5 }, () => cache.get(large)));
      expect([reads, configsSent, parses.mock.calls.length]).toEqual([2, 1, 1]);
      for (const answer of answers) {
        expect(answer.revisionNumber).toBe(first.revisionNumber);
        expect(answer.config).toBe(first.config);
      }

      // Another process applies a config through the one writer of configs, saying nothing to this one.
      const renamed: ProjectConfig = {
        ...first.config,
        categories: [{ ...categories[0]!, label: 'Renamed' }, ...categories.slice(1)],
      };
      const revision = await projectQueries(pool).storeRevision(large, renamed);
      await advance(TTL_MS - 1);
      expect((await cache.get(large)).config.categories[0]!.label).toBe('Category 0');
      await advance(2);
      const changed = await cache.get(large);
      expect(changed.revisionNumber).toBe(revision);
      expect(changed.config.categories[0]!.label).toBe('Renamed');
      expect(changed.config.categories).toHaveLength(20_000);
      expect([reads, configsSent, parses.mock.calls.length]).toEqual([3, 2, 2]);
    } finally {
      parses.mockRestore();
    }
  });
});
