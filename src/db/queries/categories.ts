import type { ProjectConfig } from '../../domain/project-config';
import type { Queryable } from '../pool';

/** The one writer of `categories`, whose source is the project config. */
export function categoryQueries(db: Queryable) {
  return {
    /** Replaces the project's categories with those of its config. */
    async replaceAll(projectId: number, config: ProjectConfig): Promise<void> {
      await db.query('DELETE FROM categories WHERE project_id = $1', [projectId]);
      for (const [position, category] of config.categories.entries()) {
        await db.query(
          `INSERT INTO categories (project_id, id, label, path, parent_id, metadata, position)
           VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [
            projectId,
            category.id,
            category.label,
            category.path,
            category.parentId ?? null,
            category.metadata ?? {},
            position,
          ],
        );
      }
    },
  };
}
