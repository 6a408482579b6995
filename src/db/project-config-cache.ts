import { LRUCache } from 'lru-cache';
import { AppError } from '../domain/errors';
import type { Pool } from './pool';
import { projectQueries, type ProjectRow } from './queries/projects';

/** How long a process trusts its copy: a config applied by another process shows up within this time. */
const TTL_MS = 5_000;
const MAX_PROJECTS = 1_000;

/** Milliseconds from any fixed point; `performance` by default (what lru-cache measures its TTLs with). */
export interface Clock {
  now(): number;
}

/** A read of one project from Postgres that requests may share, and when it was sent. */
interface Read {
  sentAt: number;
  project: Promise<ProjectRow>;
}

/**
 * The process's cache of projects (config and revision) in front of Postgres, for the reads that need the
 * config on every request: the search vocabulary (indexed metadata) and the component conditions' defaults.
 * A config applied in this process evicts its project at once (pool.changes); one applied by another process
 * shows up within TTL_MS. `GET projectConfig` does not use it: a client that edits the config needs the
 * revision as it is now.
 *
 * A missing or expired project is read once however many requests ask for it meanwhile (they share the read;
 * before, each sent its own, a herd of queries, some on new connections, every 5 s per busy project). A read
 * that fails is not kept: the requests that shared it get its error, the next one reads again. Ages count
 * from when the read was sent, so what a request gets was read less than TTL_MS before it asked: a copy
 * expires TTL_MS after its read was sent, a read is shared only for TTL_MS after it was sent (one waiting
 * that long for a connection is left to its own requests), and one evicted by a change here is not shared.
 *
 * An expired copy is kept (until a change here evicts it, or the LRU bound does) and not served: the read
 * that replaces it asks Postgres for the config only if the revision is no longer the copy's
 * (findByIdUnlessRevision). An unchanged config, the usual case every TTL_MS, costs a query of the small
 * columns; it is not sent again or parsed (a config of 80,000 categories took ~0.3 s, most of it zod blocking
 * the event loop). The copy is then as new as that read, its config proven current by the revision.
 */
export class ProjectConfigCache {
  private readonly entries: LRUCache<number, ProjectRow>;
  private readonly reads = new Map<number, Read>();
  /** Bumped by every eviction: a read that raced one is not cached. */
  private generation = 0;
  private readonly onLocalChange = (projectId: number) => this.forget(projectId);

  constructor(
    private readonly pool: Pool,
    private readonly clock: Clock = performance,
  ) {
    this.entries = new LRUCache<number, ProjectRow>({
      max: MAX_PROJECTS,
      ttl: TTL_MS,
      perf: clock,
      // An expired copy stays for the read that revalidates it (get still answers undefined for it).
      noDeleteOnStaleGet: true,
    });
    pool.changes.on('project', this.onLocalChange);
  }

  /** The project of an authenticated request; 404 when it no longer exists. */
  async get(projectId: number): Promise<ProjectRow> {
    const cached = this.entries.get(projectId);
    if (cached) return cached;
    const shared = this.reads.get(projectId);
    if (shared && this.clock.now() - shared.sentAt < TTL_MS) return shared.project;
    const sentAt = this.clock.now();
    const expired = this.entries.peek(projectId, { allowStale: true });
    const read: Read = { sentAt, project: this.read(projectId, sentAt, expired) };
    this.reads.set(projectId, read);
    try {
      return await read.project;
    } finally {
      if (this.reads.get(projectId) === read) this.reads.delete(projectId);
    }
  }

  private async read(projectId: number, sentAt: number, expired?: ProjectRow): Promise<ProjectRow> {
    const generation = this.generation;
    const projects = projectQueries(this.pool);
    const project = expired
      ? await projects.findByIdUnlessRevision(expired)
      : await projects.findById(projectId);
    if (!project) throw AppError.notFound(`Project ${projectId} not found`);
    const age = this.clock.now() - sentAt;
    if (generation === this.generation && age < TTL_MS) {
      this.entries.set(projectId, project, { ttl: TTL_MS - age });
    }
    return project;
  }

  forget(projectId: number): void {
    this.generation += 1;
    this.entries.delete(projectId);
    this.reads.delete(projectId);
  }

  close(): void {
    this.pool.changes.off('project', this.onLocalChange);
    this.entries.clear();
    this.reads.clear();
  }
}
