import { LRUCache } from 'lru-cache';
import { AppError } from '../domain/errors';
import type { Pool } from './pool';
import { projectQueries, type ProjectRow } from './queries/projects';

/** How long a process trusts its copy: a config applied by another process shows up within this time. */
const TTL_MS = 5_000;
const MAX_PROJECTS = 1_000;

/**
 * The process's cache of projects (config and revision) in front of Postgres, for the reads that need the
 * config on every request: the search vocabulary (indexed metadata) and the component conditions' defaults.
 * A config applied in this process evicts its project at once (pool.changes); one applied by another process
 * shows up within TTL_MS. `GET projectConfig` does not use it: a client that edits the config needs the
 * revision as it is now.
 */
export class ProjectConfigCache {
  private readonly entries = new LRUCache<number, ProjectRow>({ max: MAX_PROJECTS, ttl: TTL_MS });
  /** Bumped by every eviction: a read that raced one is not cached. */
  private generation = 0;
  private readonly onLocalChange = (projectId: number) => this.forget(projectId);

  constructor(private readonly pool: Pool) {
    pool.changes.on('project', this.onLocalChange);
  }

  /** The project of an authenticated request; 404 when it no longer exists. */
  async get(projectId: number): Promise<ProjectRow> {
    const cached = this.entries.get(projectId);
    if (cached) return cached;
    const generation = this.generation;
    const project = await projectQueries(this.pool).findById(projectId);
    if (!project) throw AppError.notFound(`Project ${projectId} not found`);
    if (generation === this.generation) this.entries.set(projectId, project);
    return project;
  }

  forget(projectId: number): void {
    this.generation += 1;
    this.entries.delete(projectId);
  }

  close(): void {
    this.pool.changes.off('project', this.onLocalChange);
    this.entries.clear();
  }
}
