import type { Queryable } from '../db/pool';
import { channelQueries } from '../db/queries/channels';
import { menuQueries, type MenuRow } from '../db/queries/menus';
import { AppError } from '../domain/errors';
import { quoted } from '../domain/shown-input';

/** A menu as sites expect it (supplement §8). */
function menuView(menu: MenuRow) {
  return {
    handle: menu.handle,
    label: menu.label,
    version: menu.version,
    maxDepth: menu.maxDepth,
    nodes: menu.nodes,
  };
}

/** menus[/{channelHandle}]?handle= as the edge parsed it. */
export interface MenusRead {
  /** The channel; the project's default channel when absent. */
  channelHandle?: string | undefined;
  /** One menu by its handle; every menu of the channel when absent. */
  handle?: string | undefined;
}

/** The menus of a project's channel (supplement §8; v1, beta and 2025-03). */
export function menuReads(db: Queryable) {
  return {
    /**
     * The channel's menus, ordered by handle, or the one named by `handle`: an unknown channel or handle is a
     * 404 naming it (a site asking for `main` has nothing to render without it).
     */
    async list(projectId: number, read: MenusRead) {
      const channels = channelQueries(db);
      const channel =
        read.channelHandle === undefined
          ? await channels.findDefault(projectId)
          : await channels.findByHandle(projectId, read.channelHandle);
      if (!channel) {
        throw AppError.notFound(
          read.channelHandle === undefined
            ? 'The project has no default channel'
            : `Channel ${quoted(read.channelHandle)} not found`,
        );
      }
      const menus = await menuQueries(db).list(projectId, channel.id, read.handle);
      if (read.handle !== undefined && menus.length === 0) {
        throw AppError.notFound(`Menu ${quoted(read.handle)} not found in channel '${channel.handle}'`);
      }
      return menus.map(menuView);
    },
  };
}

export type MenuReads = ReturnType<typeof menuReads>;
