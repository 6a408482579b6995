import type { Design } from '../../domain/design';
import type { Queryable } from '../pool';

/** The one writer of `designs`. */
export function designQueries(db: Queryable) {
  return {
    async insert(projectId: number, design: Design, current: boolean): Promise<void> {
      if (current) await db.query('UPDATE designs SET is_current = false WHERE project_id = $1', [projectId]);
      await db.query(
        `INSERT INTO designs (project_id, name, version, definition, is_current) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (project_id, name, version) DO UPDATE SET definition = EXCLUDED.definition, is_current = EXCLUDED.is_current`,
        [projectId, design.name, design.version, design, current],
      );
    },

    async findCurrent(projectId: number): Promise<Design | undefined> {
      const result = await db.query<{ definition: Design }>(
        'SELECT definition FROM designs WHERE project_id = $1 AND is_current',
        [projectId],
      );
      return result.rows[0]?.definition;
    },

    /**
     * The design of that version: of that name when given, else the current one, else the version of the
     * current design's name (a project may hold several designs with the same version), else the latest
     * stored.
     */
    async findByVersion(projectId: number, version: string, name?: string): Promise<Design | undefined> {
      const result = await db.query<{ definition: Design }>(
        `SELECT definition FROM designs WHERE project_id = $1 AND version = $2 AND ($3::text IS NULL OR name = $3)
         ORDER BY is_current DESC,
           name = (SELECT c.name FROM designs c WHERE c.project_id = $1 AND c.is_current) DESC NULLS LAST,
           id DESC
         LIMIT 1`,
        [projectId, version, name ?? null],
      );
      return result.rows[0]?.definition;
    },

    async exists(projectId: number, name: string, version: string): Promise<boolean> {
      const result = await db.query(
        'SELECT 1 FROM designs WHERE project_id = $1 AND name = $2 AND version = $3',
        [projectId, name, version],
      );
      return (result.rowCount ?? 0) > 0;
    },

    async makeCurrent(projectId: number, name: string, version: string): Promise<void> {
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
