import type { estypes } from '@elastic/elasticsearch';
import type { AppContext } from '../context';
import { projectQueries } from '../db/queries/projects';
import {
  applyComponentConditions,
  resolveConditions,
  type ConditionContext,
  type ConditionQuery,
} from '../domain/component-conditions';
import { walkComponents, type Content } from '../domain/content';
import type { DocumentView, ViewField } from '../domain/document-view';
import { AppError } from '../domain/errors';
import { conditionDefaults, indexedMetadataFields, type ProjectConfig } from '../domain/project-config';
import { encodeCursor } from '../domain/search-cursor';
import { ensurePublicationsIndex } from './index-aliases';
import {
  buildLatestPublicationsRequest,
  buildSearchRequest,
  type LatestPublicationsParams,
  type SearchParams,
} from './query-builder';

/** Copying the tree is the costly part of applying conditions; most publications have none to apply. */
function hasConditions(content: Content): boolean {
  for (const component of walkComponents(content)) if (component.conditions) return true;
  return false;
}

/** How long a process trusts its copy of a project's config: a config apply shows up within this time. */
const CONFIG_TTL_MS = 5_000;

type Item = Partial<DocumentView>;

export interface SearchPage {
  results: (Item | { documentId: number; projectId: number })[];
  total: number | undefined;
  cursor: string | null;
}

/**
 * The two read endpoints that answer from Elasticsearch alone: documents/latestPublications and
 * publications/search. Postgres is asked only for the project's config (cached briefly).
 */
export function publicationReads(ctx: AppContext) {
  const projects = projectQueries(ctx.pool);
  const cache = new Map<number, { config: ProjectConfig; at: number }>();

  async function projectConfig(projectId: number): Promise<ProjectConfig> {
    const cached = cache.get(projectId);
    if (cached && Date.now() - cached.at < CONFIG_TTL_MS) return cached.config;
    const project = await projects.findById(projectId);
    if (!project) throw AppError.notFound(`Project ${projectId} not found`);
    cache.set(projectId, { config: project.config, at: Date.now() });
    return project.config;
  }

  async function run(request: estypes.SearchRequest) {
    await ensurePublicationsIndex(ctx.search, ctx.index);
    const response = await ctx.search.search<{ body?: Item; documentId?: number; projectId?: number }>({
      index: ctx.index.alias,
      // Only what the answer needs crosses the wire and gets parsed.
      filter_path: ['hits.hits._source', 'hits.hits.sort', 'hits.total'],
      ...request,
    });
    // filter_path drops `hits.hits` when nothing matched, and `hits` as well when no total was asked for.
    const hits = response.hits as Partial<typeof response.hits> | undefined;
    return { hits: hits?.hits ?? [], total: hits?.total };
  }

  function toItems(
    hits: estypes.SearchHit<{ body?: Item }>[],
    fields: readonly ViewField[],
    conditions: ConditionContext | null,
  ): Item[] {
    return hits.map((hit) => {
      const body = hit._source?.body ?? {};
      const item: Item = {};
      for (const field of fields) (item as Record<string, unknown>)[field] = body[field];
      if (conditions && item.content && hasConditions(item.content)) {
        item.content = applyComponentConditions(item.content, conditions);
      }
      return item;
    });
  }

  return {
    async latestPublications(
      params: Omit<LatestPublicationsParams, 'homepageDocumentId'> & { homepage: boolean },
      conditionQuery: ConditionQuery,
    ): Promise<Item[]> {
      const config = await projectConfig(params.projectId);
      // Resolved before asking Elasticsearch, so a bad parameter is a 400 however many hits.
      const conditions = resolveConditions(conditionQuery, conditionDefaults(config));
      const homepageDocumentId = params.homepage ? (config.settings.homepageDocumentId ?? null) : undefined;
      const response = await run(buildLatestPublicationsRequest({ ...params, homepageDocumentId }));
      return toItems(response.hits, params.fields, conditions);
    },

    async search(
      params: Omit<SearchParams, 'indexedMetadata'>,
      conditionQuery: ConditionQuery,
    ): Promise<SearchPage> {
      const config = await projectConfig(params.projectId);
      const built = buildSearchRequest({ ...params, indexedMetadata: indexedMetadataFields(config) });
      const conditions = resolveConditions(conditionQuery, conditionDefaults(config));
      const response = await run(built.request);
      const hits = response.hits;
      const results = params.idsOnly
        ? hits.map((hit) => ({
            documentId: hit._source?.documentId ?? 0,
            projectId: hit._source?.projectId ?? 0,
          }))
        : toItems(hits, params.fields, conditions);
      const last = hits[hits.length - 1];
      const full = params.limit > 0 && hits.length === params.limit;
      const total = response.total;
      return {
        results,
        total: typeof total === 'number' ? total : total?.value,
        cursor: full && last?.sort ? encodeCursor(last.sort, built.sortSignature) : null,
      };
    },
  };
}
