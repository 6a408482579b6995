import type { estypes } from '@elastic/elasticsearch';
import type { AppContext } from '../context';
import { projectQueries } from '../db/queries/projects';
import {
  applyComponentConditions,
  resolveConditions,
  type ConditionQuery,
} from '../domain/component-conditions';
import type { Content } from '../domain/content';
import type { ViewField } from '../domain/document-view';
import { AppError } from '../domain/errors';
import { defaultBrand, indexedMetadataFields, type ProjectConfig } from '../domain/project-config';
import { encodeCursor } from '../domain/search-cursor';
import { ensurePublicationsIndex } from './index-aliases';
import {
  buildLatestPublicationsRequest,
  buildSearchRequest,
  type LatestPublicationsParams,
  type SearchParams,
} from './query-builder';

/** How long a process trusts its copy of a project's config: a config apply shows up within this time. */
const CONFIG_TTL_MS = 5_000;

/** What the reads ask of a hit's `_source` (index-mappings/publications.json). */
interface StoredHit {
  bodyJson?: Partial<Record<ViewField, string>>;
  hasConditions?: boolean;
  documentId?: number;
  projectId?: number;
}

/** One result item, already serialised: the exact text JSON.stringify gives for it. */
export type ItemJson = string;

export interface SearchPage {
  results: ItemJson[];
  total: number | undefined;
  cursor: string | null;
}

/** `[a,b]` of already-serialised items: what JSON.stringify gives for the array of their values. */
export function jsonArray(items: readonly ItemJson[]): string {
  return `[${items.join(',')}]`;
}

/** The search page as JSON text, keys in the order JSON.stringify({results, total, cursor}) writes them. */
export function searchPageJson(page: SearchPage): string {
  const total = page.total === undefined ? '' : `,"total":${JSON.stringify(page.total)}`;
  return `{"results":${jsonArray(page.results)}${total},"cursor":${JSON.stringify(page.cursor)}}`;
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
    const response = await ctx.search.search<StoredHit>({
      index: ctx.index.alias,
      // Only what the answer needs crosses the wire and gets parsed.
      filter_path: ['hits.hits._source', 'hits.hits.sort', 'hits.total'],
      ...request,
    });
    // filter_path drops `hits.hits` when nothing matched, and `hits` as well when no total was asked for.
    const hits = response.hits as Partial<typeof response.hits> | undefined;
    return { hits: hits?.hits ?? [], total: hits?.total };
  }

  /**
   * Each item is assembled from the stored JSON of its parts, in the requested order, without parsing them;
   * only the content of a hit with conditions is parsed, filtered and serialised again when conditions apply.
   */
  function toItems(
    hits: estypes.SearchHit<StoredHit>[],
    fields: readonly ViewField[],
    config: ProjectConfig,
    conditionQuery: ConditionQuery,
  ): ItemJson[] {
    const conditions = resolveConditions(conditionQuery, {
      now: new Date(),
      defaultBrand: defaultBrand(config),
    });
    return hits.map((hit) => {
      const stored = hit._source?.bodyJson ?? {};
      const filter = conditions && hit._source?.hasConditions === true;
      const parts: string[] = [];
      for (const field of fields) {
        let json = stored[field];
        if (json === undefined) continue;
        if (filter && field === 'content') {
          json = JSON.stringify(applyComponentConditions(JSON.parse(json) as Content, conditions));
        }
        parts.push(`${JSON.stringify(field)}:${json}`);
      }
      return `{${parts.join(',')}}`;
    });
  }

  return {
    async latestPublications(
      params: Omit<LatestPublicationsParams, 'homepageDocumentId'> & { homepage: boolean },
      conditionQuery: ConditionQuery,
    ): Promise<ItemJson[]> {
      const config = await projectConfig(params.projectId);
      // Validate the conditions before asking Elasticsearch, so a bad parameter is a 400 however many hits.
      resolveConditions(conditionQuery, { now: new Date(), defaultBrand: defaultBrand(config) });
      const homepageDocumentId = params.homepage ? (config.settings.homepageDocumentId ?? null) : undefined;
      const response = await run(buildLatestPublicationsRequest({ ...params, homepageDocumentId }));
      return toItems(response.hits, params.fields, config, conditionQuery);
    },

    async search(
      params: Omit<SearchParams, 'indexedMetadata'>,
      conditionQuery: ConditionQuery,
    ): Promise<SearchPage> {
      const config = await projectConfig(params.projectId);
      const built = buildSearchRequest({ ...params, indexedMetadata: indexedMetadataFields(config) });
      resolveConditions(conditionQuery, { now: new Date(), defaultBrand: defaultBrand(config) });
      const response = await run(built.request);
      const hits = response.hits;
      const results = params.idsOnly
        ? hits.map((hit) =>
            JSON.stringify({
              documentId: hit._source?.documentId ?? 0,
              projectId: hit._source?.projectId ?? 0,
            }),
          )
        : toItems(hits, params.fields, config, conditionQuery);
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
