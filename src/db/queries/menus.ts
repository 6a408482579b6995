import { MAX_MENU_VERSION, nodesInSiteOrder, type Menu, type MenuNode } from '../../domain/menus';
import type { Queryable } from '../pool';

export interface MenuRow {
  handle: string;
  label: string;
  version: number;
  maxDepth: number;
  nodes: MenuNode[];
}

const COLUMNS = `handle, label, version, max_depth AS "maxDepth", nodes`;

/** A stored menu with its nodes' keys back in the order it was stored with (jsonb reorders them). */
const menuRowOf = (row: MenuRow): MenuRow => ({ ...row, nodes: nodesInSiteOrder(row.nodes) });

/** The one writer of `menus`: per project and channel, by handle. */
export function menuQueries(db: Queryable) {
  return {
    /**
     * Stores the menu under its handle. The version: a new menu takes the file's (1 without one); storing it
     * again takes the larger of the file's and the stored one plus one when anything changed (label, maxDepth,
     * nodes), and the larger of the two when nothing did, so the version a site sees grows with every change.
     * Undefined (nothing stored) when the menu changed but its stored version is MAX_MENU_VERSION already.
     */
    async upsert(projectId: number, channelId: number, menu: Menu): Promise<MenuRow | undefined> {
      const result = await db.query<MenuRow>(
        `INSERT INTO menus AS m (project_id, channel_id, handle, label, version, max_depth, nodes)
         VALUES ($1, $2, $3, $4, coalesce($5, 1), $6, $7)
         ON CONFLICT (project_id, channel_id, handle) DO UPDATE SET
           label = EXCLUDED.label,
           max_depth = EXCLUDED.max_depth,
           nodes = EXCLUDED.nodes,
           version = CASE
             WHEN (m.label, m.max_depth, m.nodes) IS DISTINCT FROM (EXCLUDED.label, EXCLUDED.max_depth, EXCLUDED.nodes)
             THEN greatest(m.version + 1, coalesce($5, 0))
             ELSE greatest(m.version, coalesce($5, 0)) END
         WHERE m.version < $8
           OR (m.label, m.max_depth, m.nodes) IS NOT DISTINCT FROM (EXCLUDED.label, EXCLUDED.max_depth, EXCLUDED.nodes)
         RETURNING ${COLUMNS}`,
        [
          projectId,
          channelId,
          menu.handle,
          menu.label,
          menu.version ?? null,
          menu.maxDepth,
          JSON.stringify(menu.nodes),
          MAX_MENU_VERSION,
        ],
      );
      return result.rows[0] && menuRowOf(result.rows[0]);
    },

    /**
     * The nodes of the channel's menu of that handle, locked until the transaction ends (so that what a load
     * compares its file with is what it replaces); undefined when the channel has no such menu.
     */
    async findNodesForUpdate(
      projectId: number,
      channelId: number,
      handle: string,
    ): Promise<MenuNode[] | undefined> {
      const result = await db.query<{ nodes: MenuNode[] }>(
        'SELECT nodes FROM menus WHERE project_id = $1 AND channel_id = $2 AND handle = $3 FOR UPDATE',
        [projectId, channelId, handle],
      );
      return result.rows[0]?.nodes;
    },

    /** The channel's menus by handle, or the one with `handle` (none when it has no such menu). */
    async list(projectId: number, channelId: number, handle?: string): Promise<MenuRow[]> {
      const result = await db.query<MenuRow>(
        `SELECT ${COLUMNS} FROM menus
         WHERE project_id = $1 AND channel_id = $2 AND ($3::text IS NULL OR handle = $3)
         ORDER BY handle`,
        [projectId, channelId, handle ?? null],
      );
      return result.rows.map(menuRowOf);
    },
  };
}
