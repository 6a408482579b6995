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

/** The columns of a ProjectRow, the config as `config` (a column or an expression). */
function select(config: string): string {
  return `SELECT p.id, p.handle, p.name, ${config} AS config, p.revision_number AS "revisionNumber",
    p.channel_mode AS "channelMode",
    (SELECT c.id FROM channels c WHERE c.project_id = p.id ORDER BY c.is_default DESC, c.id LIMIT 1) AS "defaultChannelId"
  FROM projects p`;
}
const SELECT = select('p.config');
/**
 * The config only when the revision is not $2's: the same revision is the same config (storeRevision, the one
 * writer of a config, makes each a new revision in the same UPDATE), and Postgres reads a large config's
 * stored value only when the CASE takes it.
 */
const SELECT_UNLESS_REVISION = select('CASE WHEN p.revision_number = $2 THEN NULL ELSE p.config END');

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

    /**
     * The project as it is now, for a reader that holds it as `known` (the project cache revalidating its
     * copy): when the revision is still known's, its config is known's, neither sent again nor parsed, and
     * the query costs what a read of the small columns costs; when it is another, the config is read and
     * parsed as findById does. The other columns (handle, name, channel mode, default channel) are read anew
     * either way: a channel may change without a new revision.
     */
    async findByIdUnlessRevision(known: ProjectRow): Promise<ProjectRow | undefined> {
      const result = await db.query<Omit<ProjectRow, 'config'> & { config: ProjectConfig | null }>(
        `${SELECT_UNLESS_REVISION} WHERE p.id = $1`,
        [known.id, known.revisionNumber],
      );
      const row = result.rows[0];
      if (!row) return undefined;
      return row.config === null
        ? { ...row, config: known.config }
        : toProject({ ...row, config: row.config });
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
