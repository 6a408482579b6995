import type { estypes } from '@elastic/elasticsearch';
import type { AppContext } from '../context';
import { projectQueries } from '../db/queries/projects';
import {
  applyComponentConditions,
  resolveConditions,
  type ConditionContext,
  type ConditionQuery,
} from '../domain/component-conditions';
import { BoundedCache } from '../domain/bounded-cache';
import { walkComponents, type Content } from '../domain/content';
import type { DocumentView, ViewField } from '../domain/document-view';
import { AppError } from '../domain/errors';
import { conditionDefaults, indexedMetadataFields, type ProjectConfig } from '../domain/project-config';
import { cursorCodec } from '../domain/search-cursor';
import { isSearchUnavailable, READ_REQUEST_OPTIONS, searchBytes, SEARCH_RETRY_AFTER_SECONDS } from './client';
import { ensurePublicationsIndex } from './index-aliases';
import {
  buildLatestPublicationsRequest,
  buildSearchRequest,
  type BuiltSearch,
  type LatestPublicationsParams,
  type SearchParams,
} from './query-builder';
import { readRawHits, type RawHit, type RawHits } from './raw-hits';

/** Copying the tree is the costly part of applying conditions; most publications have none to apply. */
function hasConditions(content: Content): boolean {
  for (const component of walkComponents(content)) if (component.conditions) return true;
  return false;
}

const EMPTY_ITEM = Buffer.from('{}');

/** How long a process trusts its copy of a project's config: a config apply shows up within this time. */
const CONFIG_TTL_MS = 5_000;

type Item = Partial<DocumentView>;

/** One item of an answer, already serialised: the bytes of its JSON. */
export type ItemJson = Buffer;

/**
 * Items and a fingerprint that changes whenever their bytes could: the field selection, and for each hit its
 * physical index, `_id` and `_version` (within one index a document's source changes only with a higher
 * external version, and a rebuild makes a new index), or the item's own bytes where component conditions
 * rewrote it. Hashing that instead of ~170 kB of answer makes the ETag cheap (see sendJsonItems).
 */
export interface Items {
  items: ItemJson[];
  fingerprint: string;
}

export interface SearchPage extends Items {
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
  const cursors = cursorCodec(ctx.config.search.cursorKey);

  // Built Elasticsearch requests by the config they were built with (a new config object after each reload)
  // and the parameters: a widget's repeated search is parsed, checked and built once.
  const builtByConfig = new WeakMap<ProjectConfig, BoundedCache<string, BuiltSearch & { body: string }>>();
  function builtSearches(config: ProjectConfig): BoundedCache<string, BuiltSearch & { body: string }> {
    let built = builtByConfig.get(config);
    if (!built) {
      built = new BoundedCache(1000);
      builtByConfig.set(config, built);
    }
    return built;
  }

  async function projectConfig(projectId: number): Promise<ProjectConfig> {
    const cached = cache.get(projectId);
    if (cached && Date.now() - cached.at < CONFIG_TTL_MS) return cached.config;
    const project = await projects.findById(projectId);
    if (!project) throw AppError.notFound(`Project ${projectId} not found`);
    cache.set(projectId, { config: project.config, at: Date.now() });
    return project.config;
  }

  /**
   * Each hit notes whether its body has a `conditions` key anywhere: only those need parsing to apply them.
   * Elasticsearch down, stuck or overloaded is a 503 the client can retry, within seconds (see
   * READ_REQUEST_OPTIONS).
   */
  async function run(body: string): Promise<RawHits> {
    try {
      await ensurePublicationsIndex(ctx.search, ctx.index, READ_REQUEST_OPTIONS);
      // No filter_path: trimming the answer cost Elasticsearch ~5% more CPU per search than the ~60 bytes per
      // hit it saves on the wire, and the skimmer steps over the keys it does not need for free.
      const bytes = await searchBytes(ctx.search, ctx.index.alias, body, READ_REQUEST_OPTIONS);
      return readRawHits(bytes, 'conditions');
    } catch (error) {
      if (!isSearchUnavailable(error)) throw error;
      throw AppError.unavailable(
        'SearchUnavailable',
        'Search is unavailable right now; try again in a few seconds',
        SEARCH_RETRY_AFTER_SECONDS,
      );
    }
  }

  /** What names a hit's stored body: its index, id and version; undefined if Elasticsearch left one out. */
  function identity(response: RawHits, hit: RawHit): string | undefined {
    const { index, id, version } = hit;
    if (!index || !id || version === undefined) return undefined;
    const bytes = response.bytes;
    return `${bytes.toString('latin1', index.start, index.end)}/${bytes.toString('latin1', id.start, id.end)}@${version}`;
  }

  /** Each hit's stored body as it is, unless component conditions have something to remove from it. */
  function toItems(
    response: RawHits,
    conditions: ConditionContext | null,
    fields: readonly ViewField[],
  ): Items {
    const parts = [fields.join(',')];
    const items = response.hits.map((hit) => {
      if (!hit.body) {
        parts.push('{}');
        return EMPTY_ITEM;
      }
      const json = response.bytes.subarray(hit.body.start, hit.body.end);
      let item = json;
      if (conditions && hit.bodyHasKey) {
        const parsed = JSON.parse(json.toString('utf8')) as Item;
        if (parsed.content && hasConditions(parsed.content)) {
          item = Buffer.from(
            JSON.stringify({ ...parsed, content: applyComponentConditions(parsed.content, conditions) }),
          );
        }
      }
      parts.push((item === json ? identity(response, hit) : undefined) ?? item.toString('latin1'));
      return item;
    });
    return { items, fingerprint: parts.join('\n') };
  }

  /** `fields=id`: `{documentId, projectId}` of each hit, from the two source fields asked for. */
  function toIds(response: RawHits): Items {
    const parts = ['id'];
    const items = response.hits.map((hit) => {
      const source = hit.source
        ? (JSON.parse(response.bytes.toString('utf8', hit.source.start, hit.source.end)) as {
            documentId?: number;
            projectId?: number;
          })
        : {};
      const item = Buffer.from(
        JSON.stringify({ documentId: source.documentId ?? 0, projectId: source.projectId ?? 0 }),
      );
      parts.push(identity(response, hit) ?? item.toString('latin1'));
      return item;
    });
    return { items, fingerprint: parts.join('\n') };
  }

  return {
    async latestPublications(
      params: Omit<LatestPublicationsParams, 'homepageDocumentId'> & { homepage: boolean },
      conditionQuery: ConditionQuery,
    ): Promise<Items> {
      const config = await projectConfig(params.projectId);
      // Resolved before asking Elasticsearch, so a bad parameter is a 400 however many hits.
      const conditions = resolveConditions(conditionQuery, conditionDefaults(config));
      const homepageDocumentId = params.homepage ? (config.settings.homepageDocumentId ?? null) : undefined;
      const response = await run(
        JSON.stringify(buildLatestPublicationsRequest({ ...params, homepageDocumentId })),
      );
      return toItems(response, conditions, params.fields);
    },

    async search(
      params: Omit<SearchParams, 'indexedMetadata'>,
      conditionQuery: ConditionQuery,
    ): Promise<SearchPage> {
      const config = await projectConfig(params.projectId);
      const built = builtSearches(config).get(JSON.stringify(params), () => {
        const search = buildSearchRequest(
          { ...params, indexedMetadata: indexedMetadataFields(config) },
          cursors,
        );
        return { ...search, body: JSON.stringify(search.request) };
      });
      const conditions = resolveConditions(conditionQuery, conditionDefaults(config));
      const response = await run(built.body);
      const { items, fingerprint } = params.idsOnly
        ? toIds(response)
        : toItems(response, conditions, params.fields);
      const full = params.limit > 0 && response.hits.length === params.limit;
      return {
        items,
        fingerprint,
        total: response.total,
        cursor:
          full && response.lastSort
            ? cursors.encode(response.lastSort as estypes.SortResults, built.sortSignature)
            : null,
      };
    },
  };
}
