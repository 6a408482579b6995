import { EventEmitter } from 'node:events';
import type { Pool } from '../../src/db/pool';
import { ProjectConfigCache } from '../../src/db/project-config-cache';
import { ProjectConfigSchema } from '../../src/domain/project-config';

/**
 * How the project cache (src/db/project-config-cache.ts) revalidates an expired copy, its clock in the test's
 * hands and its Postgres a fake that answers the two reads the way the SQL does: the whole row, or, when the
 * revision the cache sends ($2) is still the project's, the row without its config. The SQL itself is run on
 * real Postgres in test/integration/project-config-cache.test.ts.
 */
const TTL_MS = 5_000;
const PROJECT_ID = 7;

/** Not 0: lru-cache takes an entry stored at 0 for one without a time. */
let now = 1_000_000;
const clock = { now: () => now };

/** Moves the cache's clock on; lru-cache keeps a reading of it for up to 1 ms of real time. */
async function advance(ms: number) {
  now += ms;
  await new Promise((resolve) => setTimeout(resolve, 5));
}

function configWith(label: string) {
  return {
    v: 2,
    settings: { handle: 'paper', channelMode: 'configurable' },
    categories: [{ id: 'news', label, path: '/news' }],
  };
}

interface Sent {
  /** The revision the cache holds, sent so that an unchanged config is not sent back; undefined for a full read. */
  knownRevision: number | undefined;
  /** Whether the answer carried the config. */
  configSent: boolean;
}

/** The project row as Postgres has it; undefined once deleted. */
let stored: { revision: number; config: unknown; defaultChannelId: number } | undefined;
let sent: Sent[];
/** When set, the next query waits for it before it answers. */
let holdNext: Promise<void> | undefined;
let failNext = false;
let pool: Pool;
let cache: ProjectConfigCache;
let parses: jest.SpiedFunction<typeof ProjectConfigSchema.parse>;

beforeEach(() => {
  stored = { revision: 3, config: configWith('News'), defaultChannelId: 11 };
  sent = [];
  holdNext = undefined;
  failNext = false;
  /** Answers as the project is when the query is sent, then waits for holdNext. */
  const query = async (text: string, params: unknown[]) => {
    const held = holdNext;
    holdNext = undefined;
    const answer = answerTo(text, params);
    if (held) await held;
    return answer();
  };
  const answerTo = (text: string, params: unknown[]) => {
    if (failNext) {
      failNext = false;
      return () => {
        throw new Error('Connection terminated unexpectedly');
      };
    }
    expect(text).toMatch(/FROM projects p\s+WHERE p\.id = \$1$/);
    expect(params[0]).toBe(PROJECT_ID);
    const knownRevision = params.length > 1 ? (params[1] as number) : undefined;
    if (!stored) {
      sent.push({ knownRevision, configSent: false });
      return () => ({ rows: [] });
    }
    // The same CASE the query sends: no config when the revision is the one the cache holds.
    const config = knownRevision === stored.revision ? null : structuredClone(stored.config);
    sent.push({ knownRevision, configSent: config !== null });
    const rows = [
      {
        id: PROJECT_ID,
        handle: 'paper',
        name: 'Paper',
        config,
        revisionNumber: stored.revision,
        channelMode: 'configurable',
        defaultChannelId: stored.defaultChannelId,
      },
    ];
    return () => ({ rows });
  };
  pool = { query, changes: new EventEmitter() } as unknown as Pool;
  cache = new ProjectConfigCache(pool, clock);
  parses = jest.spyOn(ProjectConfigSchema, 'parse');
});
afterEach(() => {
  cache.close();
  parses.mockRestore();
});

/** Another process applies a config: a new revision, nothing said to this one. */
function applyElsewhere(label: string) {
  stored = { ...stored!, revision: stored!.revision + 1, config: configWith(label) };
}

describe('the project cache, revalidating an expired copy', () => {
  it('when the config did not change, then the copy is revalidated by its revision and its config is not sent again or parsed', async () => {
    const first = await cache.get(PROJECT_ID);
    expect(sent).toEqual([{ knownRevision: undefined, configSent: true }]);
    expect(parses).toHaveBeenCalledTimes(1);

    await advance(TTL_MS + 1);
    const answers = await Promise.all(Array.from({ length: 10 }, () => cache.get(PROJECT_ID)));
    expect(sent).toEqual([
      { knownRevision: undefined, configSent: true },
      { knownRevision: 3, configSent: false },
    ]);
    expect(parses).toHaveBeenCalledTimes(1);
    for (const answer of answers) {
      expect(answer.revisionNumber).toBe(3);
      expect(answer.config).toBe(first.config);
      expect(answer.config.categories[0]!.label).toBe('News');
    }
  });

  it('when the config did not change but the default channel did, then the revalidated copy has the new channel', async () => {
    await cache.get(PROJECT_ID);
    stored = { ...stored!, defaultChannelId: 12 };
    await advance(TTL_MS + 1);
    expect((await cache.get(PROJECT_ID)).defaultChannelId).toBe(12);
  });

  it('when a copy was revalidated, then it counts its age from that read: another process applies a config and it shows 5 s later, not sooner or later', async () => {
    await cache.get(PROJECT_ID);
    await advance(TTL_MS + 1);
    await cache.get(PROJECT_ID);
    applyElsewhere('Headlines');

    await advance(TTL_MS - 1);
    expect((await cache.get(PROJECT_ID)).config.categories[0]!.label).toBe('News');
    expect(sent).toHaveLength(2);
    await advance(2);
    const changed = await cache.get(PROJECT_ID);
    expect(changed.revisionNumber).toBe(4);
    expect(changed.config.categories[0]!.label).toBe('Headlines');
    expect(sent[2]).toEqual({ knownRevision: 3, configSent: true });
    expect(parses).toHaveBeenCalledTimes(2);
  });

  it('when the config changed, then 10 requests share one read and one parse of it', async () => {
    await cache.get(PROJECT_ID);
    applyElsewhere('Headlines');
    await advance(TTL_MS + 1);

    const answers = await Promise.all(Array.from({ length: 10 }, () => cache.get(PROJECT_ID)));
    expect(sent).toHaveLength(2);
    expect(parses).toHaveBeenCalledTimes(2);
    expect(answers.map((answer) => answer.config.categories[0]!.label)).toEqual(Array(10).fill('Headlines'));
    // The new copy is revalidated by the new revision.
    await advance(TTL_MS + 1);
    await cache.get(PROJECT_ID);
    expect(sent[2]).toEqual({ knownRevision: 4, configSent: false });
  });

  it('when the revalidation fails, then the requests that shared it get the error, the expired copy is not served, and the next request revalidates again', async () => {
    await cache.get(PROJECT_ID);
    await advance(TTL_MS + 1);
    failNext = true;
    const answers = await Promise.allSettled(Array.from({ length: 3 }, () => cache.get(PROJECT_ID)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(3).fill('rejected'));

    applyElsewhere('Headlines');
    expect((await cache.get(PROJECT_ID)).config.categories[0]!.label).toBe('Headlines');
    expect(sent.slice(1)).toEqual([{ knownRevision: 3, configSent: true }]);
  });

  it('when the project was deleted, then the revalidation answers 404, and so does the next request', async () => {
    await cache.get(PROJECT_ID);
    await advance(TTL_MS + 1);
    stored = undefined;
    await expect(cache.get(PROJECT_ID)).rejects.toMatchObject({ status: 404 });
    await expect(cache.get(PROJECT_ID)).rejects.toMatchObject({ status: 404 });
  });

  it('when this process applies a config, then the expired copy goes too and the next read reads the config whole', async () => {
    await cache.get(PROJECT_ID);
    await advance(TTL_MS + 1);
    applyElsewhere('Headlines');
    pool.changes.emit('project', PROJECT_ID);

    expect((await cache.get(PROJECT_ID)).config.categories[0]!.label).toBe('Headlines');
    expect(sent[1]).toEqual({ knownRevision: undefined, configSent: true });
  });

  it('when this process applies a config while a revalidation is in flight, then what it read is not kept', async () => {
    await cache.get(PROJECT_ID);
    await advance(TTL_MS + 1);
    let release!: () => void;
    holdNext = new Promise((resolve) => (release = resolve));
    const racing = cache.get(PROJECT_ID);
    await new Promise((resolve) => setTimeout(resolve, 5));
    applyElsewhere('Headlines');
    pool.changes.emit('project', PROJECT_ID);
    release();
    await racing;

    expect((await cache.get(PROJECT_ID)).config.categories[0]!.label).toBe('Headlines');
    expect(sent.slice(1)).toEqual([
      { knownRevision: 3, configSent: false },
      { knownRevision: undefined, configSent: true },
    ]);
  });
});
