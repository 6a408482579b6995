import type { Queryable } from '../db/pool';
import { channelQueries, type ChannelRow } from '../db/queries/channels';
import { projectQueries } from '../db/queries/projects';
import { AppError } from '../domain/errors';
import { quoted } from '../domain/shown-input';

/** A channel as the legacy reads show it (supplement §8: the items of GET project's `channels`). */
function channelView(channel: ChannelRow) {
  return {
    channelId: channel.id,
    channelHandle: channel.handle,
    label: channel.label,
    designName: channel.designName,
    designVersion: channel.designVersion,
    contentTypeHandles: channel.contentTypes,
  };
}

/** The project's own settings as clients read them. */
export function projectReads(db: Queryable) {
  return {
    /**
     * GET projectConfig (supplement §8): the stored config with the revision it is at, read from Postgres (not
     * the process's cache), so a client that edits it sends back the revision as it is now.
     */
    async config(projectId: number) {
      const project = await projectQueries(db).findById(projectId);
      if (!project) throw AppError.notFound(`Project ${projectId} does not exist`);
      return { ...project.config, $baseRevision: project.revisionNumber };
    },

    /**
     * Legacy GET project (v1 to 2025-05, supplement §8): `name` is the project's handle, `label` the config's
     * label (the name it was created with when the config has none), with its channels.
     */
    async legacyProject(projectId: number) {
      const project = await projectQueries(db).findById(projectId);
      if (!project) throw AppError.notFound(`Project ${projectId} does not exist`);
      const channels = await channelQueries(db).list(projectId);
      return {
        projectId: project.id,
        name: project.handle,
        label: project.config.settings.label ?? project.name,
        defaultChannelId: project.defaultChannelId,
        channels: channels.map(channelView),
      };
    },

    /** Legacy GET channels/{channelHandle} (v1 to 2025-05): one channel of GET project's list. */
    async channel(projectId: number, channelHandle: string) {
      const channel = await channelQueries(db).findByHandle(projectId, channelHandle);
      if (!channel) throw AppError.notFound(`Channel ${quoted(channelHandle)} not found`);
      return channelView(channel);
    },
  };
}

export type ProjectReads = ReturnType<typeof projectReads>;
