import type { estypes } from '@elastic/elasticsearch';
import type { ViewField } from '../domain/document-view';
import { buildFilterQuery, type IndexedMetadata } from '../domain/search-filters';
import { parseSort } from '../domain/search-sort';
import type { CursorCodec } from '../domain/search-cursor';
import { buildFullTextQuery } from '../domain/search-text';

/**
 * Pure builders of the Elasticsearch requests behind documents/latestPublications and publications/search.
 * Every request filters on the token's project first: one index holds every project.
 */

type Query = estypes.QueryDslQueryContainer;

export interface Bounds<T> {
  gt?: T | undefined;
  gte?: T | undefined;
  lt?: T | undefined;
  lte?: T | undefined;
}

function rangeQuery<T extends estypes.FieldValue>(field: string, bounds: Bounds<T>): Query | undefined {
  const given = Object.fromEntries(Object.entries(bounds).filter(([, value]) => value !== undefined));
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
  publishedAt: Bounds<string>;
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
    // is what the answer's ETag is computed from (see publication-reads.ts).
    version: true,
  };
}

export interface SearchParams {
  projectId: number;
  indexedMetadata: IndexedMetadata;
  search?: string | undefined;
  contentTypes?: readonly string[] | undefined;
  categories?: readonly string[] | undefined;
  languages?: readonly string[] | undefined;
  languageGroupId?: string | undefined;
  filters?: string | undefined;
  sort?: string | undefined;
  /** `fields=id`: only `{documentId, projectId}` per hit. */
  idsOnly: boolean;
  fields: readonly ViewField[];
  limit: number;
  offset: number;
  after?: string | undefined;
  withTotal: boolean;
}

export interface BuiltSearch {
  request: estypes.SearchRequest;
  /** What a cursor of this search is tied to: the normalised sort. */
  sortSignature: string;
}

/** Builds the search request; throws the spec's 400 for a bad filter, sort or cursor. */
export function buildSearchRequest(params: SearchParams, cursors: CursorCodec): BuiltSearch {
  const fullText = params.search === undefined ? undefined : buildFullTextQuery(params.search);
  const sort = parseSort(params.sort, {
    hasSearch: fullText !== undefined,
    indexedMetadata: params.indexedMetadata,
  });
  const sortSignature = sort.fields.join(',');
  const searchAfter =
    params.after === undefined
      ? undefined
      : cursors.decode(params.after, { signature: sortSignature, kinds: sort.valueKinds });
  const filter: Query[] = [
    { term: { projectId: params.projectId } },
    params.contentTypes ? { terms: { contentType: [...params.contentTypes] } } : undefined,
    params.categories ? { terms: { categoryId: [...params.categories] } } : undefined,
    params.languages ? { terms: { languageLocale: [...params.languages] } } : undefined,
    params.languageGroupId === undefined ? undefined : { term: { languageGroupId: params.languageGroupId } },
    params.filters === undefined ? undefined : buildFilterQuery(params.filters, params.indexedMetadata),
  ].filter(present);
  const request: estypes.SearchRequest = {
    size: params.limit,
    from: params.offset,
    track_total_hits: params.withTotal,
    query: { bool: { filter, ...(fullText ? { must: [fullText] } : {}) } },
    sort: sort.sort,
    _source: params.idsOnly ? ['documentId', 'projectId'] : sourceFields(params.fields),
    version: true,
    ...(searchAfter ? { search_after: searchAfter } : {}),
  };
  return { request, sortSignature };
}
