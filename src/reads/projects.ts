import type { Queryable } from '../db/pool';
import { projectQueries } from '../db/queries/projects';
import { AppError } from '../domain/errors';

/** The project's own settings as clients read them. */
export function projectReads(db: Queryable) {
  return {
    /**
     * GET projectConfig (supplement §8): the stored config with the revision it is at, read from Postgres (not
     * the process's cache), so a client that edits it sends back the revision as it is now.
     */
    async config(projectId: number) {
      const project = await projectQueries(db).findById(projectId);
      if (!project) throw AppError.notFound(`Project ${projectId} does not exist`);
      return { ...project.config, $baseRevision: project.revisionNumber };
    },
  };
}

export type ProjectReads = ReturnType<typeof projectReads>;
