import type { Queryable } from '../db/pool';
import { categoryQueries } from '../db/queries/categories';
import type { ProjectRow } from '../db/queries/projects';
import { inheritedMetadata } from '../domain/categories';
import { AppError } from '../domain/errors';
import { quoted } from '../domain/shown-input';

/**
 * Categories need a configurable channel (api-spec §4.1, §4.2, supplement §3): a project whose config says
 * `settings.channelMode: 'static'` has none. Judged against the project, so here and not in the schema.
 */
function assertConfigurableChannel(project: ProjectRow): void {
  if (project.channelMode === 'static') {
    throw new AppError(400, {
      name: 'ConfigurationError',
      message:
        `Project ${project.handle} uses a static channel configuration; categories need a configurable ` +
        "channel (settings.channelMode 'configurable' in the project config)",
    });
  }
}

/** The project's categories (api-spec §4.1, §4.2), as its config last applied them. */
export function categoryReads(db: Queryable) {
  return {
    async list(project: ProjectRow) {
      assertConfigurableChannel(project);
      const rows = await categoryQueries(db).list(project.id);
      return rows.map((row) => ({
        id: row.id,
        label: row.label,
        path: row.path,
        ...(row.parentId === null ? {} : { parent: row.parentId }),
      }));
    },

    async byId(project: ProjectRow, categoryId: string, read: { inheritMetadata: boolean }) {
      assertConfigurableChannel(project);
      const chain = await categoryQueries(db).findWithAncestors(project.id, categoryId);
      const [category] = chain;
      if (!category) throw AppError.notFound(`Category ${quoted(categoryId)} not found`);
      return {
        id: category.id,
        label: category.label,
        path: category.path,
        metadata: read.inheritMetadata ? inheritedMetadata(chain) : category.metadata,
      };
    },
  };
}

export type CategoryReads = ReturnType<typeof categoryReads>;
