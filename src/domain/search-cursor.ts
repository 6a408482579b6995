import { createHash, createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import type { estypes } from '@elastic/elasticsearch';
import type { FilterJson } from './search-filters';
import type { SortValueKind } from './search-sort';
import { hasSearchTerms, splitSearch } from './search-text';
import { invalid, valid, type Checked } from './validation';

/**
 * The opaque `cursor` of publications/search (supplement §5): base64url of a MAC followed by the JSON
 * `{v, s, a}`, where `a` is the last hit's sort values (search_after) and `s` a short hash of the sort they
 * belong to; a relevance cursor also has `h`, the hits before the last as `[documentId, version]` pairs (see
 * src/reads/publications.ts, Anchor), absent from cursors issued before it was added. The MAC (HMAC-SHA256 with the server's cursor key, truncated to 128 bits) makes a cursor one this
 * server issued: a hand-made one, or one of another server, is refused before its JSON is even parsed.
 *
 * Checked in two steps, each where what it needs is known. The edge (the route's query schema) opens the
 * cursor: MAC, shape, the sort (for a search also the selection) it was issued for against the request's, and
 * values that are scalars search_after could take (`decode`). The read checks them against the sort in use
 * (`checkCursorValues`): count and kind of each, because only the project's indexed metadata says what kind a
 * metadata sort field has (one indexed as integer today may be a keyword tomorrow), and anything search_after
 * cannot take would come back from Elasticsearch as a 400 of its own. Problems are reported at the root path:
 * keyed `after` in the 400.
 */

const VERSION = 2;
const MAC_BYTES = 16;
const MAX_CURSOR_LENGTH = 4096;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** More earlier hits than a cursor is ever given (see MAX_ANCHOR_HITS in src/reads/publications.ts). */
const MAX_EARLIER_HITS = 16;

/** A hit a cursor names: its document id and the version it had on the page. */
export type CursorHit = readonly [documentId: number, version: number];

interface CursorPayload {
  v: number;
  s: string;
  a: unknown[];
  /** The project whose list the cursor pages through; absent in cursors issued before cursors named one. */
  p?: number;
  /** Relevance cursors: the page's hits before the last, in page order. */
  h?: CursorHit[];
}

/** What an opened cursor says: the last hit's sort values, and the project it was issued in, if it names one. */
export interface OpenedCursor {
  values: estypes.FieldValue[];
  projectId: number | undefined;
  /** The hits before the last one, when the cursor names them (relevance cursors). */
  earlierHits?: CursorHit[];
}

export interface CursorCodec {
  /**
   * The cursor of a page whose last hit has `sortValues`, under the sort with `sortSignature` (SortSpec.fields),
   * naming `projectId` when given: the edge opens a cursor before it knows the project, so the project is
   * checked where it is known (see checkCursorProject); `earlierHits`, the page's hits before the last one, when
   * the next page needs them.
   */
  encode(
    sortValues: estypes.FieldValue[],
    sortSignature: string,
    projectId?: number,
    earlierHits?: readonly CursorHit[],
  ): string;
  /**
   * The values of a cursor this server issued under the sort with `sortSignature`, not yet checked against the
   * sort's value kinds (see checkCursorValues), with the project it names. `issuedFor` words the 400 of a
   * cursor of another signature: what the request changed.
   */
  decode(raw: string, sortSignature: string, issuedFor?: string): Checked<OpenedCursor>;
}

/** What decides which documents a search pages through, and in which order: what its cursor is tied to. */
export interface SearchSelection {
  /** SortSpec.fields: the normalised sort. */
  sortFields: readonly string[];
  search?: string | undefined;
  filters?: FilterJson | undefined;
  contentTypes?: readonly string[] | undefined;
  categories?: readonly string[] | undefined;
  languages?: readonly string[] | undefined;
  languageGroupId?: string | undefined;
}

export const OTHER_SEARCH =
  'a different search (sort, search, filters, contentTypes, categories, languages and languageGroupId must stay those of the first page)';

/** A comma list as a set: its items are ORed, so order and repeats do not change what it selects. */
const asSet = (items: readonly string[] | undefined) => items && [...new Set(items)].sort();

/** A filter expression with every object's keys in order: `{term, key}` is `{key, term}` (nesting is bounded). */
function sortedKeys(value: FilterJson | undefined): FilterJson | undefined {
  if (Array.isArray(value)) return value.map((item) => sortedKeys(item) ?? null);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys(value[key]) ?? null]),
  );
}

/**
 * The signature of a search's cursors: a cursor says where in one result set a page starts, so it is refused
 * under another sort or another selection of documents (AIP-158: the other arguments must stay the same), and
 * taken back under the same search written another way (filters' whitespace and key order, list order, a
 * blank search). The
 * page size, the fields and the component conditions may change between pages. A search that selects by sort
 * alone has the signature cursors had before they were tied to the selection.
 */
export function searchCursorSignature(selection: SearchSelection): string {
  const sort = selection.sortFields.join(',');
  const selected = {
    search: hasSearchTerms(selection.search) ? splitSearch(selection.search ?? '') : undefined,
    filters: sortedKeys(selection.filters),
    contentTypes: asSet(selection.contentTypes),
    categories: asSet(selection.categories),
    languages: asSet(selection.languages),
    languageGroupId: selection.languageGroupId,
  };
  const json = JSON.stringify(selected);
  return json === '{}' ? sort : `${sort}\n${json}`;
}

/** Short hashes of the sorts seen, by signature: a process sees a handful of sorts, each on every full page. */
const signatureHashes = new Map<string, string>();
/** Enough for every sort of a busy installation; past it the hashes are simply worked out each time. */
const MAX_SIGNATURE_HASHES = 1000;

/** The sort's normalised fields joined by ',' → the short hash a cursor carries. */
function hashSignature(sortSignature: string): string {
  let hashed = signatureHashes.get(sortSignature);
  if (hashed === undefined) {
    hashed = createHash('sha256').update(sortSignature).digest('base64url').slice(0, 10);
    if (signatureHashes.size < MAX_SIGNATURE_HASHES) signatureHashes.set(sortSignature, hashed);
  }
  return hashed;
}

const problem = (message: string) => invalid([{ path: [], message }]);
/** The 400 of a cursor this server issued for something else than the request: `issuedFor` says what. */
export const issuedForOther = (issuedFor: string): Checked<never> =>
  problem(`invalid cursor: it was issued for ${issuedFor}; start again without after`);
const INVALID = 'invalid cursor: pass the cursor of a previous response';
const UNFIT = 'invalid cursor: its values do not fit the sort; start again without after';

function isFieldValue(value: unknown): value is estypes.FieldValue {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function isCursorHits(value: unknown): value is CursorHit[] {
  return (
    Array.isArray(value) &&
    value.length <= MAX_EARLIER_HITS &&
    value.every(
      (hit) => Array.isArray(hit) && hit.length === 2 && hit.every((part) => Number.isSafeInteger(part)),
    )
  );
}

/** Cursors signed and checked with `key` (see config: derived from CURSOR_SECRET or JWT_SECRET). */
export function cursorCodec(key: Uint8Array): CursorCodec {
  // A key object, made once: given bytes, Node 24's createHmac first asks whether they are a key object by
  // throwing and catching an error, on every call; with every full page signing its cursor that was ~8% of a
  // list request's CPU.
  const secret = createSecretKey(key);
  const mac = (payload: Buffer) =>
    createHmac('sha256', secret).update(payload).digest().subarray(0, MAC_BYTES);

  /** The payload of a cursor whose MAC checks out and whose JSON has the right shape. */
  function open(raw: string): CursorPayload | undefined {
    if (raw.length > MAX_CURSOR_LENGTH || !BASE64URL.test(raw)) return undefined;
    const bytes = Buffer.from(raw, 'base64url');
    // Node skips characters it cannot decode; only a canonical encoding is one we issued.
    if (bytes.toString('base64url') !== raw || bytes.length <= MAC_BYTES) return undefined;
    const payload = bytes.subarray(MAC_BYTES);
    if (!timingSafeEqual(bytes.subarray(0, MAC_BYTES), mac(payload))) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload.toString('utf8'));
    } catch {
      return undefined;
    }
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { v, s, a, p, h } = parsed as Record<string, unknown>;
    if (v !== VERSION || typeof s !== 'string' || !Array.isArray(a)) return undefined;
    if (p !== undefined && !Number.isSafeInteger(p)) return undefined;
    if (h !== undefined && !isCursorHits(h)) return undefined;
    return { v, s, a, ...(p === undefined ? {} : { p: p as number }), ...(h === undefined ? {} : { h }) };
  }

  return {
    encode(sortValues, sortSignature, projectId, earlierHits) {
      const payload: CursorPayload = {
        v: VERSION,
        s: hashSignature(sortSignature),
        a: sortValues,
        ...(projectId === undefined ? {} : { p: projectId }),
        ...(earlierHits === undefined || earlierHits.length === 0 ? {} : { h: [...earlierHits] }),
      };
      const json = Buffer.from(JSON.stringify(payload), 'utf8');
      return Buffer.concat([mac(json), json]).toString('base64url');
    },

    decode(raw, sortSignature, issuedFor = 'a different sort') {
      const payload = open(raw);
      if (!payload) return problem(INVALID);
      if (payload.s !== hashSignature(sortSignature)) return issuedForOther(issuedFor);
      // An array or object is never a sort value, whatever the sort.
      if (!payload.a.every(isFieldValue)) return problem(UNFIT);
      return valid({
        values: payload.a,
        projectId: payload.p,
        ...(payload.h === undefined ? {} : { earlierHits: payload.h }),
      });
    },
  };
}

/**
 * A search cursor belongs to the project it was issued in: its values say where a page starts among that
 * project's documents, so under another project's token it would silently skip or repeat that project's
 * documents. A cursor that names no project (issued before cursors named one) is taken as it is.
 */
export function checkCursorProject(issuedIn: number | undefined, projectId: number): Checked<void> {
  return issuedIn === undefined || issuedIn === projectId
    ? valid(undefined)
    : issuedForOther('another project');
}

const FLOAT_SENTINELS = new Set(['Infinity', '-Infinity']);

/** Whether a value is one Elasticsearch gives, and search_after takes back, for a sort entry of this kind. */
function fitsKind(value: unknown, kind: SortValueKind): boolean {
  switch (kind) {
    case 'score':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isSafeInteger(value);
    case 'float':
      return (typeof value === 'number' && Number.isFinite(value)) || FLOAT_SENTINELS.has(value as string);
    case 'keyword':
      return value === null || typeof value === 'string';
  }
}

/** A decoded cursor's values against the value kinds of the sort in use (ParsedSort.valueKinds). */
export function checkCursorValues(
  values: readonly estypes.FieldValue[],
  kinds: readonly SortValueKind[],
): Checked<estypes.FieldValue[]> {
  if (values.length !== kinds.length || !values.every((value, i) => fitsKind(value, kinds[i]!))) {
    return problem(UNFIT);
  }
  return valid([...values]);
}

/**
 * The cursor as a list answers it: a string (api-spec §4.20), '' when there is no next page, as the vendor's
 * API answers it (`{results: [], total: 0, cursor: ''}`); never null, which clients typed on the contract's
 * string refuse.
 */
export const cursorAnswer = (cursor: string | null): string => cursor ?? '';
