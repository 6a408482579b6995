import { ProjectConfigSchema, type ProjectConfig } from '../../domain/project-config';
import type { Queryable } from '../pool';

export interface ProjectRow {
  id: number;
  handle: string;
  name: string;
  config: ProjectConfig;
  revisionNumber: number;
  channelMode: 'static' | 'configurable';
  defaultChannelId: number;
}

const SELECT = `SELECT p.id, p.handle, p.name, p.config, p.revision_number AS "revisionNumber",
    p.channel_mode AS "channelMode",
    (SELECT c.id FROM channels c WHERE c.project_id = p.id ORDER BY c.is_default DESC, c.id LIMIT 1) AS "defaultChannelId"
  FROM projects p`;

function toProject(row: ProjectRow): ProjectRow {
  // Stored configs were validated on the way in; parsing again fills defaults added since.
  return { ...row, config: ProjectConfigSchema.parse(row.config) };
}

/** The one writer of `projects` and of their config history, `project_config_revisions`. */
export function projectQueries(db: Queryable) {
  return {
    async findById(id: number): Promise<ProjectRow | undefined> {
      const result = await db.query<ProjectRow>(`${SELECT} WHERE p.id = $1`, [id]);
      return result.rows[0] && toProject(result.rows[0]);
    },

    async findByHandle(handle: string): Promise<ProjectRow | undefined> {
      const result = await db.query<ProjectRow>(`${SELECT} WHERE p.handle = $1`, [handle]);
      return result.rows[0] && toProject(result.rows[0]);
    },

    /** The new project's id; undefined when another project has the handle already. */
    async insert(project: {
      handle: string;
      name: string;
      config: ProjectConfig;
    }): Promise<number | undefined> {
      const result = await db.query<{ id: number }>(
        `INSERT INTO projects (handle, name, config, channel_mode) VALUES ($1, $2, $3, $4)
         ON CONFLICT (handle) DO NOTHING RETURNING id`,
        [project.handle, project.name, project.config, project.config.settings.channelMode],
      );
      const id = result.rows[0]?.id;
      if (id === undefined) return undefined;
      await db.query(
        `INSERT INTO project_config_revisions (project_id, revision_number, config) VALUES ($1, 1, $2)`,
        [id, project.config],
      );
      return id;
    },

    /**
     * Locks the project row so two applies of the same base revision serialise and the second sees a conflict.
     * FOR NO KEY UPDATE, the lock the apply's own UPDATE takes: FOR UPDATE would also hold off every insert of
     * a row referencing the project (a publication, an event, a document) until the apply commits, and a
     * publish holding a document the apply re-indexes would deadlock with it.
     */
    async lockRevision(projectId: number): Promise<number | undefined> {
      const result = await db.query<{ revisionNumber: number }>(
        'SELECT revision_number AS "revisionNumber" FROM projects WHERE id = $1 FOR NO KEY UPDATE',
        [projectId],
      );
      return result.rows[0]?.revisionNumber;
    },

    /** Stores the config as the next revision and keeps its history row; returns the new revision number. */
    async storeRevision(projectId: number, config: ProjectConfig): Promise<number> {
      const result = await db.query<{ revisionNumber: number }>(
        `UPDATE projects SET config = $2, revision_number = revision_number + 1, channel_mode = $3, updated_at = now()
         WHERE id = $1 RETURNING revision_number AS "revisionNumber"`,
        [projectId, config, config.settings.channelMode],
      );
      const revisionNumber = result.rows[0]!.revisionNumber;
      await db.query(
        'INSERT INTO project_config_revisions (project_id, revision_number, config) VALUES ($1, $2, $3)',
        [projectId, revisionNumber, config],
      );
      return revisionNumber;
    },
  };
}
