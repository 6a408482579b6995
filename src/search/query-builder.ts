import type { estypes } from '@elastic/elasticsearch';
import type { ViewField } from '../domain/document-view';

/**
 * Pure builders of the Elasticsearch requests behind documents/latestPublications and publications/search, from
 * values already parsed and checked (src/reads resolves them with the domain). Every request filters on the
 * token's project first: one index holds every project.
 */

type Query = estypes.QueryDslQueryContainer;

export interface Bounds<T> {
  gt?: T | undefined;
  gte?: T | undefined;
  lt?: T | undefined;
  lte?: T | undefined;
}

/**
 * Every bound given holds. Elasticsearch keeps only one lower and one upper bound per range (the last of gt
 * and gte, of lt and lte), so where a side has both, the tighter one is sent: `id.gt=10&id.gte=5` is id > 10,
 * not id >= 5.
 */
function rangeQuery(field: string, { gt, gte, lt, lte }: Bounds<number>): Query | undefined {
  const lower =
    gt !== undefined && (gte === undefined || gt >= gte) ? { gt } : gte === undefined ? {} : { gte };
  const upper =
    lt !== undefined && (lte === undefined || lt <= lte) ? { lt } : lte === undefined ? {} : { lte };
  const given = { ...lower, ...upper };
  return Object.keys(given).length > 0 ? { range: { [field]: given } } : undefined;
}

const present = <T>(value: T | undefined): value is T => value !== undefined;

/** The `_source` paths of the requested view fields (the stored response lives under `body`). */
export function sourceFields(fields: readonly ViewField[]): string[] {
  return fields.map((field) => `body.${field}`);
}

export interface LatestPublicationsParams {
  projectId: number;
  fields: readonly ViewField[];
  limit: number;
  offset: number;
  reverse: boolean;
  /** When the request asks for the homepage: the project's homepage document id, or null if it has none. */
  homepageDocumentId?: number | null | undefined;
  contentTypes?: readonly string[] | undefined;
  documentTypes?: readonly string[] | undefined;
  ids?: readonly number[] | undefined;
  id: Bounds<number>;
  /** Epoch milliseconds. */
  publishedAt: Bounds<number>;
}

/**
 * Newest publication first (`lastPublicationDate` desc, then documentId desc); `reverse` flips both, so
 * pages are stable and id-range pullers over disjoint ranges see every document exactly once.
 */
export function buildLatestPublicationsRequest(params: LatestPublicationsParams): estypes.SearchRequest {
  const filter: Query[] = [
    { term: { projectId: params.projectId } },
    params.homepageDocumentId === undefined
      ? undefined
      : params.homepageDocumentId === null
        ? { bool: { must_not: [{ match_all: {} }] } }
        : { term: { documentId: params.homepageDocumentId } },
    params.contentTypes ? { terms: { contentType: [...params.contentTypes] } } : undefined,
    params.documentTypes ? { terms: { documentType: [...params.documentTypes] } } : undefined,
    params.ids ? { terms: { documentId: [...params.ids] } } : undefined,
    rangeQuery('documentId', params.id),
    rangeQuery('lastPublicationDate', params.publishedAt),
  ].filter(present);
  const order = params.reverse ? 'asc' : 'desc';
  return {
    size: params.limit,
    from: params.offset,
    track_total_hits: false,
    query: { bool: { filter } },
    sort: [{ lastPublicationDate: { order, missing: '_last' } }, { documentId: { order } }],
    _source: sourceFields(params.fields),
    // Each hit's external version (the document's index_version): with its _id it names the stored body, which
    // is what the answer's ETag is computed from (see src/reads/publications.ts).
    version: true,
  };
}

export interface SearchParams {
  projectId: number;
  /** The scoring query of `search`; absent without search terms. */
  fullText?: Query | undefined;
  /** The compiled `filters`. */
  filter?: Query | undefined;
  sort: estypes.SortCombinations[];
  /** The cursor's values. */
  searchAfter?: estypes.FieldValue[] | undefined;
  /** Documents left out whatever else they match (a relevance cursor's hits: see src/reads/publications.ts). */
  excludeDocumentIds?: readonly number[] | undefined;
  contentTypes?: readonly string[] | undefined;
  categories?: readonly string[] | undefined;
  languages?: readonly string[] | undefined;
  languageGroupId?: string | undefined;
  /** `fields=id`: only `{documentId, projectId}` per hit. */
  idsOnly: boolean;
  fields: readonly ViewField[];
  limit: number;
  offset: number;
  withTotal: boolean;
}

export function buildSearchRequest(params: SearchParams): estypes.SearchRequest {
  const filter: Query[] = [
    { term: { projectId: params.projectId } },
    params.contentTypes ? { terms: { contentType: [...params.contentTypes] } } : undefined,
    params.categories ? { terms: { categoryId: [...params.categories] } } : undefined,
    params.languages ? { terms: { languageLocale: [...params.languages] } } : undefined,
    params.languageGroupId === undefined ? undefined : { term: { languageGroupId: params.languageGroupId } },
    params.filter,
  ].filter(present);
  return {
    size: params.limit,
    from: params.offset,
    track_total_hits: params.withTotal,
    query: {
      bool: {
        filter,
        ...(params.fullText ? { must: [params.fullText] } : {}),
        ...(params.excludeDocumentIds?.length
          ? { must_not: [{ terms: { documentId: [...params.excludeDocumentIds] } }] }
          : {}),
      },
    },
    sort: params.sort,
    _source: params.idsOnly ? ['documentId', 'projectId'] : sourceFields(params.fields),
    version: true,
    ...(params.searchAfter ? { search_after: params.searchAfter } : {}),
  };
}
