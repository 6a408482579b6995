import type { Queryable } from '../db/pool';
import { channelQueries } from '../db/queries/channels';
import { publicationEventQueries, type PublicationEventFilter } from '../db/queries/publication-events';
import { AppError } from '../domain/errors';
import { quoted } from '../domain/shown-input';

/** publicationEvents[/{channelHandle}] as the edge parsed it. */
export type PublicationEventsRead = Omit<PublicationEventFilter, 'projectId' | 'channelId'> & {
  channelHandle?: string | undefined;
};

/** The project's publish, update and unpublish events in id order (supplement §7). */
export function publicationEventReads(db: Queryable) {
  return {
    async list(projectId: number, read: PublicationEventsRead) {
      const { channelHandle, ...filter } = read;
      let channelId: number | undefined;
      if (channelHandle !== undefined) {
        channelId = await channelQueries(db).findIdByHandle(projectId, channelHandle);
        if (channelId === undefined) throw AppError.notFound(`Channel ${quoted(channelHandle)} not found`);
      }
      const rows = await publicationEventQueries(db).list({
        ...filter,
        projectId,
        ...(channelId === undefined ? {} : { channelId }),
      });
      return rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() }));
    },
  };
}

export type PublicationEventReads = ReturnType<typeof publicationEventReads>;
