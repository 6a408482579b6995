import type { Queryable } from '../db/pool';
import { searchWriteWindowQueries } from '../db/queries/search-write-windows';
import type { Logger } from '../logger';
import type { SearchClient } from './client';

/**
 * How long an opened window may stay open before processes ignore it: far beyond an index job's 15 s expiry
 * and a bulk's retries, so only a writer that died leaves one behind this long.
 */
export const WINDOW_TTL_MS = 120_000;

/**
 * When a refresh fails, how long until the index's own refresh (refresh_interval 1s,
 * index-mappings/publications.json) has surely made whatever was written visible.
 */
const SCHEDULED_REFRESH_MARGIN_MS = 2_500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface VisibilityDeps {
  /** The pool, not a transaction: a notification inside a transaction waits for its commit. */
  db: Queryable;
  search: SearchClient;
  /** The alias searches read: what is refreshed (whichever index it points at when the refresh runs). */
  alias: string;
  logger?: Logger | undefined;
}

/** Refreshes the searched index; when that fails, waits until its own scheduled refresh surely ran. */
async function refresh(deps: VisibilityDeps): Promise<void> {
  try {
    await deps.search.indices.refresh({ index: deps.alias });
  } catch (error) {
    deps.logger?.warn({ error }, 'refresh after an index write failed; waiting for the scheduled one');
    await sleep(SCHEDULED_REFRESH_MARGIN_MS);
  }
}

async function close(deps: VisibilityDeps, id: number, projects: readonly number[] | null): Promise<void> {
  // If this fails, the window expires on its own: until then its projects are answered uncached (safe).
  await searchWriteWindowQueries(deps.db)
    .close(id, projects)
    .catch((error: unknown) => {
      deps.logger?.error({ error }, 'could not close a search write window');
    });
}

/**
 * Runs writes to the searched index inside a search write window over these projects (null: every project):
 * the window is opened and notified before the first write can reach Elasticsearch; after the writes, the
 * searched index is refreshed (so they are visible now, not at the next scheduled refresh up to a second
 * later) and the window is closed and notified. API processes keep nothing of a project while a window over
 * it is open, and drop what they had when it opens and when it closes: a kept answer never outlives the
 * moment Elasticsearch starts answering differently, whenever its own scheduled refresh falls.
 *
 * With `settler` (the worker's, built by the context), the refresh and the close happen after this returns,
 * shared with the other writes of the process; without, they are done when it returns (the writes visible).
 */
export async function inWriteWindow<T>(
  deps: VisibilityDeps,
  projects: readonly number[] | null,
  write: () => Promise<T>,
  settler?: WindowSettler,
): Promise<T> {
  if (projects !== null && projects.length === 0) return write();
  const id = await searchWriteWindowQueries(deps.db).open(projects, WINDOW_TTL_MS);
  try {
    return await write();
  } finally {
    if (settler) {
      void settler.settle(id, projects);
    } else {
      await refresh(deps);
      await close(deps, id, projects);
    }
  }
}

/**
 * Closes a process's write windows once a refresh has made their writes visible, without holding up the
 * writer: an index job completes when its bulk was accepted, as it always did, and its next batch starts
 * while the refresh runs (a job waiting for the refresh made documents published meanwhile wait for the next
 * batch, and the publish → searchable lag longer). One refresh at a time: the windows whose writes ended
 * while one runs wait for the next, which starts after them, so a busy indexer refreshes back to back rather
 * than once per batch. Built once per process by src/context.ts.
 */
export class WindowSettler {
  private pending: { id: number; projects: readonly number[] | null; done: () => void }[] = [];
  private running: Promise<void> | undefined;

  constructor(private readonly deps: VisibilityDeps) {}

  /** Resolves once the window is closed (never rejects). */
  settle(id: number, projects: readonly number[] | null): Promise<void> {
    return new Promise((resolve) => {
      this.pending.push({ id, projects, done: resolve });
      this.start();
    });
  }

  private start(): void {
    if (this.running) return;
    this.running = this.run().finally(() => {
      this.running = undefined;
      // Handed over after the loop's last look.
      if (this.pending.length > 0) this.start();
    });
  }

  /** Waits until every window handed over so far is closed (a process shutting down). */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  private async run(): Promise<void> {
    while (this.pending.length > 0) {
      const windows = this.pending;
      this.pending = [];
      // Starts after every one of these windows' writes was acknowledged, so it shows them all.
      await refresh(this.deps);
      await Promise.all(windows.map((window) => close(this.deps, window.id, window.projects)));
      for (const window of windows) window.done();
    }
  }
}
