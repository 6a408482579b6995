import type { ProjectConfig } from '../../domain/project-config';
import type { Queryable } from '../pool';

/** Writes of a project config apply (supplement §8); reads go through projectQueries. */
export function projectConfigQueries(db: Queryable) {
  return {
    /** Locks the project row so two applies of the same base revision serialise and the second sees a conflict. */
    async lockRevision(projectId: number): Promise<number | undefined> {
      const result = await db.query<{ revisionNumber: number }>(
        'SELECT revision_number AS "revisionNumber" FROM projects WHERE id = $1 FOR UPDATE',
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

    /** The default channel follows the config's design and content types. */
    async updateDefaultChannel(projectId: number, config: ProjectConfig): Promise<void> {
      await db.query(
        `UPDATE channels SET design_name = coalesce($2, design_name), design_version = coalesce($3, design_version),
           content_types = $4
         WHERE project_id = $1 AND is_default`,
        [
          projectId,
          config.design?.name ?? null,
          config.design?.version ?? null,
          config.contentTypes.map((type) => type.handle),
        ],
      );
    },

    async designExists(projectId: number, name: string, version: string): Promise<boolean> {
      const result = await db.query(
        'SELECT 1 FROM designs WHERE project_id = $1 AND name = $2 AND version = $3',
        [projectId, name, version],
      );
      return (result.rowCount ?? 0) > 0;
    },

    async makeDesignCurrent(projectId: number, name: string, version: string): Promise<void> {
      await db.query('UPDATE designs SET is_current = false WHERE project_id = $1 AND is_current', [
        projectId,
      ]);
      await db.query(
        'UPDATE designs SET is_current = true WHERE project_id = $1 AND name = $2 AND version = $3',
        [projectId, name, version],
      );
    },
  };
}
