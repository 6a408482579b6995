import type { ProjectConfig } from '../../domain/project-config';
import type { Queryable } from '../pool';

export interface ChannelRow {
  id: number;
  handle: string;
  label: string;
  designName: string | null;
  designVersion: string | null;
  contentTypes: string[];
  isDefault: boolean;
}

const COLUMNS = `id, handle, label, design_name AS "designName", design_version AS "designVersion",
  content_types AS "contentTypes", is_default AS "isDefault"`;

/** The one writer of `channels`. */
export function channelQueries(db: Queryable) {
  return {
    async insert(channel: Omit<ChannelRow, 'id'> & { projectId: number }): Promise<number> {
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

    /** The default channel follows the config's design and content types. */
    async updateDefault(projectId: number, config: ProjectConfig): Promise<void> {
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

    async findIdByHandle(projectId: number, handle: string): Promise<number | undefined> {
      const result = await db.query<{ id: number }>(
        'SELECT id FROM channels WHERE project_id = $1 AND handle = $2',
        [projectId, handle],
      );
      return result.rows[0]?.id;
    },

    async findByHandle(projectId: number, handle: string): Promise<ChannelRow | undefined> {
      const result = await db.query<ChannelRow>(
        `SELECT ${COLUMNS} FROM channels WHERE project_id = $1 AND handle = $2`,
        [projectId, handle],
      );
      return result.rows[0];
    },

    /** The project's default channel (the one a project is created with, unless another is marked default). */
    async findDefault(projectId: number): Promise<ChannelRow | undefined> {
      const result = await db.query<ChannelRow>(
        `SELECT ${COLUMNS} FROM channels WHERE project_id = $1 ORDER BY is_default DESC, id LIMIT 1`,
        [projectId],
      );
      return result.rows[0];
    },

    /** The project's channels, the default first. */
    async list(projectId: number): Promise<ChannelRow[]> {
      const result = await db.query<ChannelRow>(
        `SELECT ${COLUMNS} FROM channels WHERE project_id = $1 ORDER BY is_default DESC, id`,
        [projectId],
      );
      return result.rows;
    },
  };
}
