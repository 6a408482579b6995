import { hash } from 'node:crypto';
import type { estypes, TransportRequestOptions } from '@elastic/elasticsearch';
import { LRUCache } from 'lru-cache';
import type { ProjectRow } from '../db/queries/projects';
import {
  applyComponentConditions,
  conditionContext,
  hasConditions,
  nextConditionChange,
  type ConditionContext,
  type ConditionRequest,
} from '../domain/component-conditions';
import type { DocumentView, ViewField } from '../domain/document-view';
import { finishSteps, type Pause, type Steps } from '../domain/steps';
import { conditionDefaults, defaultBrand, indexedMetadataFields } from '../domain/project-config';
import { AppError } from '../domain/errors';
import {
  checkCursorProject,
  checkCursorValues,
  searchCursorSignature,
  type CursorCodec,
  type CursorHit,
} from '../domain/search-cursor';
import { compileFilters, type FilterJson } from '../domain/search-filters';
import { resolveSort, type SortSpec } from '../domain/search-sort';
import { buildFullTextQuery, tooManyClausesMessage } from '../domain/search-text';
import { checkAll, under, valid, valueOrThrow } from '../domain/validation';
import type { Logger } from '../logger';
import {
  isSearchUnavailable,
  refusedClauseLimit,
  searchChunks,
  SEARCH_RETRY_AFTER_SECONDS,
  searchWhileAlive,
  type SearchClient,
} from '../search/client';
import { ensurePublicationsIndex } from '../search/index-aliases';
import type { PublicationsIndex } from '../search/index-names';
import {
  buildLatestPublicationsRequest,
  buildSearchRequest,
  type LatestPublicationsParams,
} from '../search/query-builder';
import { rawHitsSteps, readRawHits, type RawHit, type RawHits } from '../search/raw-hits';
import { runInSlices, SLICE_WORK } from '../time-slices';
import type { Computed, SearchAnswerCache } from './search-answer-cache';

/**
 * The two read endpoints that answer from Elasticsearch alone: documents/latestPublications and
 * publications/search. They get the request as the edge parsed it and the project (config and revision) from the
 * route; what needs the config is judged here with the domain (filters and sort against the indexed metadata,
 * the cursor's values against the sort's value kinds, the conditions' defaults), the request is built and run
 * by the search adapter. Elasticsearch down, stuck or overloaded is a 503 the client can retry, within seconds
 * (the read request options' short timeout).
 */

const EMPTY_ITEM = Buffer.from('{}');
/** Built searches kept per process: a widget's repeated search is checked and built once. */
const MAX_BUILT_SEARCHES = 1000;

/**
 * Search responses of this many bytes or more are read and made into items in slices (runInSlices): 100 hits
 * of 1 MB were seconds of skimming and, with component conditions to apply, of parsing and serialising again,
 * during which every other request of the process waited. Smaller ones (a page of 100 ordinary documents is
 * ~250 kB) are read at once as before: they take about a millisecond and pay nothing for the slicing.
 */
export const SLICED_RESPONSE_BYTES = 1_000_000;

/**
 * A rewritten item of this many bytes or more is named in the fingerprint by its digest rather than by its
 * bytes: the fingerprint of 100 such items of 1 MB was a 100 MB string, made and hashed in one go when sent.
 */
const DIGESTED_ITEM_BYTES = 16 * 1024;

const NO_PAUSE: Pause = () => false;

/** `make`'s steps at once for a response under SLICED_RESPONSE_BYTES, in slices for a larger one. */
function stepsBySize<T>(bytes: number, make: (pause: Pause) => Steps<T>): T | Promise<T> {
  return bytes < SLICED_RESPONSE_BYTES ? finishSteps(make(NO_PAUSE)) : runInSlices(make);
}

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
  /** The document id of each item, in order (the answer's Surrogate-Key names them). */
  documentIds: number[];
  /**
   * The search response the items are slices of, when they are, in the chunks it arrived in: sending the
   * answer may move them together inside those instead of copying them (src/http/json-items.ts).
   */
  source?: readonly Buffer[] | undefined;
}

export interface SearchPage extends Items {
  total: number | undefined;
  cursor: string | null;
}

/** documents/latestPublications as the edge parsed it. */
export interface LatestPublicationsRead extends Omit<
  LatestPublicationsParams,
  'projectId' | 'homepageDocumentId'
> {
  homepage: boolean;
  /** null: the client asked to ignore component conditions. */
  conditions: ConditionRequest | null;
}

/** publications/search as the edge parsed it. */
export interface PublicationSearchRead {
  search?: string | undefined;
  contentTypes?: readonly string[] | undefined;
  categories?: readonly string[] | undefined;
  languages?: readonly string[] | undefined;
  languageGroupId?: string | undefined;
  filters?: FilterJson | undefined;
  sort: SortSpec;
  /** `fields=id`: only `{documentId, projectId}` per hit. */
  idsOnly: boolean;
  fields: readonly ViewField[];
  limit: number;
  offset: number;
  /** The cursor's values: its signature, its sort and their shape checked at the edge, their kinds not yet. */
  after?: readonly estypes.FieldValue[] | undefined;
  /** The project the cursor was issued in, when it names one (checked against the token's project here). */
  afterProjectId?: number | undefined;
  /** A relevance cursor's hits before its last one, when it names them (see Anchor). */
  afterEarlierHits?: readonly CursorHit[] | undefined;
  withTotal: boolean;
  conditions: ConditionRequest | null;
}

export interface BuiltSearch {
  request: estypes.SearchRequest;
  /** The request as sent: serialised once. */
  body: string;
  /** What a cursor of this search is tied to: the normalised sort and selection (searchCursorSignature). */
  cursorSignature: string;
  /** Where relevance is in the sort (-1: not sorted by); its cursors also carry the page's last hits. */
  relevanceAt: number;
  /** With a cursor of a relevance sort: how to find where its hits are now (see reanchored). */
  anchor?: Anchor | undefined;
}

/**
 * The most hits of a page a relevance cursor names: its last and the ones before it. Each adds about 20
 * characters to the cursor (`[documentId,version],`, ~27 in base64url): 8 keep a relevance cursor at about 300
 * characters, and the next page goes wrong only when all 8 changed between two requests.
 */
export const MAX_ANCHOR_HITS = 8;

/**
 * A relevance cursor's last hits, to be scored again before the page is searched. BM25 scores depend on the
 * whole index (how many documents there are and hold each word), so every publish and unpublish moves every
 * score a little: the cursor's score, taken before, no longer says where its hit is, and search_after from it
 * repeated the previous pages' documents (their scores fell below it) or skipped some. The score now of the
 * latest of the page's last hits that did not change (the same version) puts the page right after it again:
 * one hit alone was not enough, as republishing the page's last hit (a new version, a new score) brought the
 * whole page back when scores tie. The cursor's hits after that one all changed; the page leaves every hit of
 * the cursor out, so none that was just shown comes again right away wherever its new version now ranks.
 */
interface Anchor {
  /** The search restricted to the cursor's hits: their sort values are their places now. */
  body: string;
  /** The cursor's hits in page order, the last hit last, with the version each had on the page. */
  hits: readonly CursorHit[];
}

/**
 * The search_after of a relevance cursor at the latest of its hits that is unchanged, with its sort values
 * now; as the cursor has it when every one of them changed or is gone.
 */
function reanchored(
  request: estypes.SearchRequest,
  anchor: Anchor,
  response: RawHits,
): estypes.SearchRequest {
  const now = new Map<number, RawHit>();
  for (const hit of response.hits) now.set(documentIdOf(idTextOf(response, hit)), hit);
  for (let i = anchor.hits.length - 1; i >= 0; i--) {
    const [documentId, version] = anchor.hits[i]!;
    const hit = now.get(documentId);
    if (!hit?.sort || hit.version !== version) continue;
    const values = JSON.parse(response.bytes.toString('utf8', hit.sort.start, hit.sort.end)) as unknown;
    if (Array.isArray(values) && values.length === request.search_after?.length) {
      return { ...request, search_after: values as estypes.FieldValue[] };
    }
  }
  return request;
}

/**
 * The Elasticsearch request of a search in one project: filters and sort are judged against the project's
 * indexed metadata and the cursor's values against the sort, every problem of the three in one 400 keyed by
 * parameter (a cursor is judged only under a sort the project has: there is nothing to judge it against
 * otherwise).
 */
export function buildPublicationSearch(
  project: ProjectRow,
  read: Omit<PublicationSearchRead, 'conditions'>,
): BuiltSearch {
  const indexedMetadata = indexedMetadataFields(project.config);
  const cursorSignature = searchCursorSignature({ ...read, sortFields: read.sort.fields });
  const relevanceAt = read.sort.fields.indexOf('relevance');
  const resolved = under('sort', resolveSort(read.sort, indexedMetadata));
  const issuedHere = checkCursorProject(read.afterProjectId, project.id);
  const { sort, filter, after } = valueOrThrow(
    checkAll({
      sort: resolved,
      filter:
        read.filters === undefined
          ? valid(undefined)
          : under('filters', compileFilters(read.filters, indexedMetadata)),
      // A relevance cursor's values end with its last hit's version (see Anchor).
      after:
        read.after === undefined
          ? valid(undefined)
          : under(
              'after',
              !issuedHere.ok
                ? issuedHere
                : !resolved.ok
                  ? valid(undefined)
                  : checkCursorValues(
                      read.after,
                      relevanceAt < 0 ? resolved.value.valueKinds : [...resolved.value.valueKinds, 'integer'],
                    ),
            ),
    }),
  );
  const searchAfter = after && relevanceAt >= 0 ? after.slice(0, -1) : after;
  const common = {
    projectId: project.id,
    fullText: read.search === undefined ? undefined : buildFullTextQuery(read.search),
    sort: sort.sort,
    contentTypes: read.contentTypes,
    categories: read.categories,
    languages: read.languages,
    languageGroupId: read.languageGroupId,
  };
  let anchor: Anchor | undefined;
  if (after && searchAfter && relevanceAt >= 0) {
    // documentId is always in the sort (the tiebreaker): the cursor names its last hit.
    const documentIdAt = read.sort.fields.findIndex((field) => field.replace(/^-/, '') === 'documentId');
    const hits: CursorHit[] = [
      ...(read.afterEarlierHits ?? []),
      [searchAfter[documentIdAt] as number, after.at(-1) as number],
    ];
    const anchorRequest = buildSearchRequest({
      ...common,
      filter: {
        bool: {
          filter: [...(filter ? [filter] : []), { terms: { documentId: hits.map(([id]) => id) } }],
        },
      },
      idsOnly: true,
      fields: [],
      limit: hits.length,
      offset: 0,
      withTotal: false,
    });
    anchor = { body: JSON.stringify(anchorRequest), hits };
  }
  const request = buildSearchRequest({
    ...common,
    filter,
    searchAfter,
    excludeDocumentIds: anchor?.hits.map(([id]) => id),
    idsOnly: read.idsOnly,
    fields: read.fields,
    limit: read.limit,
    offset: read.offset,
    withTotal: read.withTotal,
  });
  return { request, body: JSON.stringify(request), cursorSignature, relevanceAt, anchor };
}

/** The conditions a read applies: null when ignored, else the request's with the project's defaults. */
function conditionsFor(project: ProjectRow, request: ConditionRequest | null): ConditionContext | null {
  return request && conditionContext(request, conditionDefaults(project.config));
}

/**
 * A hit's `_id` as sent (`"<projectId>:<documentId>"`, quotes included), undefined if absent: read once per
 * hit for both its document id and its identity.
 */
function idTextOf(response: RawHits, hit: RawHit): string | undefined {
  return hit.id && response.bytes.toString('latin1', hit.id.start, hit.id.end);
}

/** What names a hit's stored body: its index, id and version; undefined if Elasticsearch left one out. */
function identity(response: RawHits, hit: RawHit, idText: string | undefined): string | undefined {
  const { index, version } = hit;
  if (!index || idText === undefined || version === undefined) return undefined;
  return `${response.bytes.toString('latin1', index.start, index.end)}/${idText}@${version}`;
}

/** The document id in a hit's `_id` text (see idTextOf); 0 if absent. */
function documentIdOf(idText: string | undefined): number {
  if (idText === undefined) return 0;
  return Number.parseInt(idText.slice(idText.indexOf(':') + 1), 10) || 0;
}

/**
 * Each hit's stored body as it is, unless component conditions have something to remove from it; with the
 * first instant after the conditions' dateTime at which one of them would decide differently (see
 * nextConditionChange), undefined when none would. In steps: `pause` is asked before each hit whose body is
 * parsed (a document's work).
 */
function* toItemsSteps(
  response: RawHits,
  conditions: ConditionContext | null,
  fields: readonly ViewField[],
  pause: Pause,
): Steps<Items & { conditionsChangeAt: number | undefined }> {
  const parts = [fields.join(',')];
  let conditionsChangeAt: number | undefined;
  const documentIds: number[] = [];
  const items: ItemJson[] = [];
  for (const hit of response.hits) {
    const idText = idTextOf(response, hit);
    documentIds.push(documentIdOf(idText));
    if (!hit.body) {
      parts.push('{}');
      items.push(EMPTY_ITEM);
      continue;
    }
    const json = response.bytes.subarray(hit.body.start, hit.body.end);
    let item = json;
    if (conditions && hit.bodyHasKey) {
      if (pause(SLICE_WORK)) yield;
      // A body that crossed chunks is a copy here, wasted when conditions rewrite it. Decoding the chunks'
      // pieces instead (StringDecoder) saves nothing: JSON.parse flattens the joined string, a copy too
      // (1 MB bodies in 64 kB chunks took the same time within 5%, ASCII or not).
      const parsed = JSON.parse(json.toString('utf8')) as Item;
      if (parsed.content && hasConditions(parsed.content)) {
        const changeAt = nextConditionChange(parsed.content, conditions.dateTime.getTime());
        if (changeAt !== undefined && (conditionsChangeAt === undefined || changeAt < conditionsChangeAt)) {
          conditionsChangeAt = changeAt;
        }
        // Content whose every condition holds comes back as it is: the stored bytes are the answer.
        const content = applyComponentConditions(parsed.content, conditions);
        if (content !== parsed.content) item = Buffer.from(JSON.stringify({ ...parsed, content }));
      }
    }
    parts.push((item === json ? identity(response, hit, idText) : undefined) ?? itemText(item));
    items.push(item);
  }
  return {
    items,
    fingerprint: parts.join('\n'),
    documentIds,
    source: response.bytes.chunks,
    conditionsChangeAt,
  };
}

/** What names an item's own bytes in a fingerprint: the bytes, or a digest of large ones ('#': no JSON text). */
function itemText(item: ItemJson): string {
  return item.length < DIGESTED_ITEM_BYTES ? item.toString('latin1') : `#${hash('sha1', item, 'base64')}`;
}

/** `fields=id`: `{documentId, projectId}` of each hit, from the two source fields asked for. */
function toIds(response: RawHits): Items {
  const parts = ['id'];
  const documentIds: number[] = [];
  const items = response.hits.map((hit) => {
    const source = hit.source
      ? (JSON.parse(response.bytes.toString('utf8', hit.source.start, hit.source.end)) as {
          documentId?: number;
          projectId?: number;
        })
      : {};
    documentIds.push(source.documentId ?? 0);
    const item = Buffer.from(
      JSON.stringify({ documentId: source.documentId ?? 0, projectId: source.projectId ?? 0 }),
    );
    parts.push(identity(response, hit, idTextOf(response, hit)) ?? item.toString('latin1'));
    return item;
  });
  return { items, fingerprint: parts.join('\n'), documentIds };
}

/**
 * What an answer's conditions add to its cache key: ignored, or the dateTime asked for (`now` when the
 * request leaves it to the current time) and the brand they apply, the project's default filled in.
 */
function conditionsKey(project: ProjectRow, request: ConditionRequest | null): string {
  if (request === null) return 'ignored';
  return JSON.stringify({
    at: request.dateTime?.toISOString() ?? 'now',
    brand: request.brand ?? defaultBrand(project.config) ?? null,
  });
}

/** Until when an answer holds: conditions applied at the current time change at their next boundary. */
function expiresAt(request: ConditionRequest | null, changeAt: number | undefined): number | undefined {
  return request !== null && request.dateTime === undefined ? changeAt : undefined;
}

function bytesOf(answer: Items, extra = 0): number {
  let bytes = answer.fingerprint.length + answer.documentIds.length * 8 + extra;
  for (const item of answer.items) bytes += item.length;
  return bytes;
}

/**
 * The cursor of a full page: its last hit's sort values; by relevance also that hit's version and the hits
 * before it (up to MAX_ANCHOR_HITS in all) with theirs, to find where the page ended after scores moved.
 */
function cursorOf(
  codec: CursorCodec,
  search: BuiltSearch,
  projectId: number,
  lastSort: estypes.SortResults,
  response: RawHits,
  documentIds: readonly number[],
): string {
  if (search.relevanceAt < 0) return codec.encode(lastSort, search.cursorSignature, projectId);
  const { hits } = response;
  const earlier: CursorHit[] = [];
  for (let i = Math.max(0, hits.length - MAX_ANCHOR_HITS); i < hits.length - 1; i++) {
    earlier.push([documentIds[i] ?? 0, hits[i]!.version ?? 0]);
  }
  return codec.encode([...lastSort, hits.at(-1)?.version ?? 0], search.cursorSignature, projectId, earlier);
}

export function publicationReads(deps: {
  search: SearchClient;
  index: PublicationsIndex;
  /** Signs the cursor of each full page (the edge opens the cursors clients send back). */
  cursors: CursorCodec;
  /** A search's short timeout and single retry (see searchReadOptions). */
  searchReadOptions: TransportRequestOptions;
  /** Answers kept per project and normalised query, dropped when the index changes (a no-op when off). */
  answers: SearchAnswerCache;
  /** Where a search that could not be answered says why (the client sees a 503 without the cause). */
  logger?: Logger;
}) {
  /** Built requests by project revision and parameters (a config apply makes a new revision). */
  const built = new LRUCache<string, BuiltSearch>({ max: MAX_BUILT_SEARCHES });
  /** The first search of the process creates the index when there is none yet; retried if that failed. */
  let ensured: Promise<void> | undefined;

  /**
   * Each hit notes whether its body has a `conditions` key anywhere: only those need parsing to apply them.
   * Elasticsearch down, stuck or overloaded is a 503 with Retry-After.
   */
  async function run(body: string): Promise<RawHits> {
    try {
      // The first search of the process creates the index when there is none yet (retried if that failed);
      // Elasticsearch is probed while the read waits, so a busy node is waited for and a stuck one is not.
      const chunks = await searchWhileAlive(deps.search, deps.searchReadOptions, async (options) => {
        ensured ??= ensurePublicationsIndex(deps.search, deps.index, options).catch((error: unknown) => {
          ensured = undefined;
          throw error;
        });
        await ensured;
        // No filter_path: trimming the answer cost Elasticsearch ~5% more CPU per search than the ~60 bytes
        // per hit it saves on the wire, and the skimmer steps over the keys it does not need for free.
        return searchChunks(deps.search, deps.index.alias, body, options);
      });
      let bytes = 0;
      for (const chunk of chunks) bytes += chunk.length;
      return bytes < SLICED_RESPONSE_BYTES
        ? readRawHits(chunks, 'conditions')
        : await runInSlices((pause) => rawHitsSteps(chunks, 'conditions', pause));
    } catch (error) {
      // A query of more clauses than the node allows is the request's fault, not the service's: a 400
      // naming the node's limit (the words of search and text filters make clauses; see tooManyClausesMessage).
      const clauseLimit = refusedClauseLimit(error);
      if (clauseLimit !== undefined) throw AppError.badRequest(tooManyClausesMessage(clauseLimit));
      if (!isSearchUnavailable(error)) throw error;
      deps.logger?.warn({ err: error }, 'search unavailable: answered 503 SearchUnavailable');
      throw AppError.unavailable(
        'SearchUnavailable',
        'Search is unavailable right now; try again in a few seconds',
        SEARCH_RETRY_AFTER_SECONDS,
      );
    }
  }

  /**
   * The answer cache's answer, its key made only when the cache is on: off, it keeps nothing, and the key's
   * JSON of the parameters and conditions would be made on every read for nothing.
   */
  function answer<T>(projectId: number, key: () => string, compute: () => Promise<Computed<T>>): Promise<T> {
    if (!deps.answers.enabled) return compute().then((computed) => computed.value);
    return deps.answers.answer(projectId, key(), compute);
  }

  return {
    async latestPublications(project: ProjectRow, read: LatestPublicationsRead): Promise<Items> {
      const { homepage, conditions, ...params } = read;
      const homepageDocumentId = homepage ? (project.config.settings.homepageDocumentId ?? null) : undefined;
      // The parsed, typed query (the homepage resolved), the conditions resolved, under the config revision.
      const key = () =>
        `latest@${project.revisionNumber}\n${JSON.stringify(params)}\n${homepageDocumentId}\n${conditionsKey(project, conditions)}`;
      return answer(project.id, key, async (): Promise<Computed<Items>> => {
        const response = await run(
          JSON.stringify(
            buildLatestPublicationsRequest({ ...params, projectId: project.id, homepageDocumentId }),
          ),
        );
        const { conditionsChangeAt, ...answer } = await stepsBySize(response.bytes.length, (pause) =>
          toItemsSteps(response, conditionsFor(project, conditions), params.fields, pause),
        );
        return {
          value: answer,
          bytes: bytesOf(answer),
          expiresAt: expiresAt(conditions, conditionsChangeAt),
        };
      });
    },

    async search(project: ProjectRow, read: PublicationSearchRead): Promise<SearchPage> {
      const { conditions, ...params } = read;
      const paramsKey = JSON.stringify(params);
      const key = `${project.id}@${project.revisionNumber}\n${paramsKey}`;
      let search = built.get(key);
      if (!search) {
        search = buildPublicationSearch(project, params);
        built.set(key, search);
      }
      const answerKey = () =>
        `search@${project.revisionNumber}\n${paramsKey}\n${conditionsKey(project, conditions)}`;
      const prepared = search;
      return answer(project.id, answerKey, async (): Promise<Computed<SearchPage>> => {
        const { anchor } = prepared;
        const anchored = anchor && (await run(anchor.body));
        const response = await run(
          anchored ? JSON.stringify(reanchored(prepared.request, anchor, anchored)) : prepared.body,
        );
        const { conditionsChangeAt, ...answer } = params.idsOnly
          ? { ...toIds(response), conditionsChangeAt: undefined }
          : await stepsBySize(response.bytes.length, (pause) =>
              toItemsSteps(response, conditionsFor(project, conditions), params.fields, pause),
            );
        const full = params.limit > 0 && response.hits.length === params.limit;
        const lastSort = response.lastSort as estypes.SortResults | undefined;
        const page: SearchPage = {
          ...answer,
          // The page leaves the cursor's hits out (see Anchor): those that match count all the same.
          total:
            response.total === undefined || !anchored
              ? response.total
              : response.total + anchored.hits.length,
          cursor:
            full && lastSort
              ? cursorOf(deps.cursors, prepared, project.id, lastSort, response, answer.documentIds)
              : null,
        };
        return {
          value: page,
          bytes: bytesOf(answer, page.cursor?.length ?? 0),
          expiresAt: expiresAt(conditions, conditionsChangeAt),
        };
      });
    },
  };
}

export type PublicationReads = ReturnType<typeof publicationReads>;
