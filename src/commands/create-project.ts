import { withTransaction, type Pool } from '../db/pool';
import { categoryQueries } from '../db/queries/categories';
import { channelQueries } from '../db/queries/channels';
import { designQueries } from '../db/queries/designs';
import { projectQueries } from '../db/queries/projects';
import { AppError } from '../domain/errors';
import { NewProjectConfigSchema } from '../domain/project-config';
import type { Design } from '../domain/design';
import { zodIssuesToPaths } from '../domain/validation';

export interface CreateProjectInput {
  name?: string;
  config: unknown;
  /** Designs to store with the project; the one named by `config.design` becomes current. */
  designs?: Design[];
}

/** Creates a project with its default channel `web`, categories and designs, in one transaction. */
export async function createProject(pool: Pool, input: CreateProjectInput) {
  const parsed = NewProjectConfigSchema.safeParse(input.config);
  if (!parsed.success) throw AppError.validation(zodIssuesToPaths(parsed.error.issues, 'projectConfig'));
  const config = parsed.data;
  return withTransaction(pool, async (tx) => {
    const projects = projectQueries(tx);
    const projectId = await projects.insert({
      handle: config.settings.handle,
      name: input.name ?? config.settings.label ?? config.settings.handle,
      config,
    });
    const channelId = await channelQueries(tx).insert({
      projectId,
      handle: 'web',
      label: 'Web',
      designName: config.design?.name ?? null,
      designVersion: config.design?.version ?? null,
      contentTypes: config.contentTypes.map((type) => type.handle),
      isDefault: true,
    });
    await categoryQueries(tx).replaceAll(projectId, config);
    const designs = designQueries(tx);
    for (const design of input.designs ?? []) {
      const current = design.name === config.design?.name && design.version === config.design.version;
      await designs.insert(projectId, design, current);
    }
    return { projectId, channelId, handle: config.settings.handle };
  });
}
