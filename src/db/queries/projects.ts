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

    async insert(project: { handle: string; name: string; config: ProjectConfig }): Promise<number> {
      const result = await db.query<{ id: number }>(
        `INSERT INTO projects (handle, name, config, channel_mode) VALUES ($1, $2, $3, $4) RETURNING id`,
        [project.handle, project.name, project.config, project.config.settings.channelMode],
      );
      const id = result.rows[0]!.id;
      await db.query(
        `INSERT INTO project_config_revisions (project_id, revision_number, config) VALUES ($1, 1, $2)`,
        [id, project.config],
      );
      return id;
    },

    async insertChannel(channel: {
      projectId: number;
      handle: string;
      label: string;
      designName: string | null;
      designVersion: string | null;
      contentTypes: string[];
      isDefault: boolean;
    }): Promise<number> {
      const result = await db.query<{ id: number }>(
        `INSERT INTO channels (project_id, handle, label, design_name, design_version, content_types, is_default)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
        [
          channel.projectId,
          channel.handle,
          channel.label,
          channel.designName,
          channel.designVersion,
          channel.contentTypes,
          channel.isDefault,
        ],
      );
      return result.rows[0]!.id;
    },

    /** Replaces the project's categories with those of its config (the config is their source). */
    async replaceCategories(projectId: number, config: ProjectConfig): Promise<void> {
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
