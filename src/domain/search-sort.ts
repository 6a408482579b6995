import type { estypes } from '@elastic/elasticsearch';
import {
  metadataSearchField,
  type IndexedMetadata,
  type SearchField,
  type SearchFieldType,
} from './search-filters';
import { invalid, valid, type Checked } from './validation';
import { quoted } from './shown-input';

/**
 * The `sort` parameter of publications/search (supplement §5) → Elasticsearch sort clauses, in two steps: the
 * edge reads what the request says (parseSortSpec), the read resolves the field names against the project's
 * indexed metadata (resolveSort). Problems are reported at the root path: keyed `sort` in the 400.
 *
 * `relevance` is `_score` descending (best match first); `-relevance` is a 400 because "worst match first"
 * is never what a teaser list wants. documentId is always the final tiebreaker, so every sort is total and
 * a search_after cursor continues exactly after the last hit.
 */

/** The sort as the request says it: its entries in order, the tiebreaker appended. */
export interface SortSpec {
  entries: readonly { name: string; descending: boolean }[];
  /** The normalised sort, e.g. `['relevance', '-sortDate', '-documentId']`; joined, it is the cursor's signature. */
  fields: readonly string[];
}

/**
 * What Elasticsearch answers as the sort value of one sort entry, missing values included (see MISSING_LAST),
 * checked against Elasticsearch 9.5: `score` a finite number; `integer` a safe integer (dates as epoch
 * milliseconds, booleans as 0 and 1); `float` a finite number, or "Infinity"/"-Infinity" for a missing one;
 * `keyword` a string, or null for a missing one. A cursor's values must have these kinds to be sent back.
 */
export type SortValueKind = 'score' | 'integer' | 'float' | 'keyword';

export interface ParsedSort {
  sort: estypes.SortCombinations[];
  fields: readonly string[];
  /** The kind of each sort entry's value, in order. */
  valueKinds: SortValueKind[];
}

const VALUE_KINDS: Record<SearchFieldType, SortValueKind> = {
  date: 'integer',
  long: 'integer',
  integer: 'integer',
  boolean: 'integer',
  float: 'float',
  keyword: 'keyword',
  // Never sorted on (refused in resolveSortField); listed so every type has a kind.
  text: 'keyword',
};

export const DEFAULT_SORT = '-sortDate,-documentId';
export const DEFAULT_SEARCH_SORT = 'relevance,-sortDate,-documentId';

const RELEVANCE = 'relevance';
const TIEBREAKER = 'documentId';

const FIXED_SORT_FIELDS: ReadonlyMap<string, SearchFieldType> = new Map<string, SearchFieldType>([
  ['sortDate', 'date'],
  ['documentId', 'long'],
  ['contentType', 'keyword'],
  ['firstPublicationDate', 'date'],
  ['lastPublicationDate', 'date'],
  ['significantPublicationDate', 'date'],
  ['visiblePublicationDate', 'date'],
  ['publishControl.embargo.until', 'date'],
]);

/**
 * Where documents lacking the value go, per order. Elasticsearch's own `_last` uses Long.MIN/MAX_VALUE for
 * dates, longs and booleans; those do not survive JSON in JavaScript (2^63 rounds and comes back out of range),
 * so a cursor taken on such a hit would be rejected. These values sort after every real value, fit a double
 * exactly and round-trip through search_after (checked against Elasticsearch 9.5). Integers are sorted as
 * longs (NUMERIC_TYPE) for the same reason: `_last` on an integer field is Integer.MIN/MAX, a value a document
 * may hold, so a document with 2147483647 and one without the field tied and came in documentId order, the
 * missing one first (and an integer field cannot take a missing value outside its range: 2^31 wraps). Floats
 * (mapped as double, which holds no infinity) and keywords come back as sentinels no document has
 * ("Infinity", null), so `_last` stays.
 */
const MISSING_LAST: Partial<Record<SearchFieldType, Record<estypes.SortOrder, number>>> = {
  date: { asc: 8_640_000_000_000_000, desc: -8_640_000_000_000_000 },
  long: { asc: Number.MAX_SAFE_INTEGER, desc: -Number.MAX_SAFE_INTEGER },
  integer: { asc: Number.MAX_SAFE_INTEGER, desc: -Number.MAX_SAFE_INTEGER },
  boolean: { asc: 2, desc: -1 },
};

/** Sorted as another numeric type than the mapping's, so the missing value above lies beyond every value. */
const NUMERIC_TYPE: Partial<Record<SearchFieldType, estypes.FieldSortNumericType>> = { integer: 'long' };

function sortableNames(indexedMetadata: IndexedMetadata): string {
  const metadata = Object.entries(indexedMetadata)
    .filter(([, type]) => type !== 'text')
    .map(([prop]) => `metadata.${prop}`);
  return [RELEVANCE, ...FIXED_SORT_FIELDS.keys(), ...metadata].join(', ');
}

/** The field behind a sort name, or why it cannot be sorted by. */
function resolveSortField(name: string, indexedMetadata: IndexedMetadata): SearchField | string {
  const fixed = FIXED_SORT_FIELDS.get(name);
  if (fixed) return { field: name, type: fixed };
  const target = name.startsWith('metadata.')
    ? metadataSearchField(name.slice('metadata.'.length), indexedMetadata)
    : undefined;
  if (!target)
    return `unknown sort field ${quoted(name)}; sortable fields are ${sortableNames(indexedMetadata)}`;
  if (target.type === 'text') return `${quoted(name)} is a text field and cannot be sorted`;
  return target;
}

function fieldSort(target: SearchField, order: estypes.SortOrder): estypes.SortCombinations {
  const missing = MISSING_LAST[target.type]?.[order] ?? '_last';
  // unmapped_type: a metadata field no document has carried yet has no mapping; sort as if it were empty.
  const numericType = NUMERIC_TYPE[target.type];
  return {
    [target.field]: {
      order,
      missing,
      unmapped_type: target.type,
      ...(numericType ? { numeric_type: numericType } : {}),
    },
  };
}

const problem = (message: string) => invalid([{ path: [], message }]);

/**
 * Reads the comma-separated `sort` parameter; `-name` sorts descending. Absent or blank means the default:
 * `relevance,-sortDate,-documentId` with a search term, `-sortDate,-documentId` without. Refuses a duplicate or
 * empty entry, `-relevance`, and relevance without a search term.
 */
export function parseSortSpec(raw: string | undefined, hasSearch: boolean): Checked<SortSpec> {
  const given = raw?.trim() ? raw : hasSearch ? DEFAULT_SEARCH_SORT : DEFAULT_SORT;
  const entries: { name: string; descending: boolean }[] = [];
  const fields: string[] = [];
  const seen = new Set<string>();
  for (const [index, entry] of given
    .split(',')
    .map((part) => part.trim())
    .entries()) {
    const descending = entry.startsWith('-');
    const name = descending ? entry.slice(1) : entry;
    if (name === '') return problem(`entry ${index + 1} of ${quoted(given)} is empty; expected a field name`);
    if (seen.has(name)) return problem(`${quoted(name)} is given more than once`);
    seen.add(name);
    if (name === RELEVANCE && descending) {
      return problem(
        "'-relevance' is not supported: relevance always puts the best match first; use 'relevance'",
      );
    }
    if (name === RELEVANCE && !hasSearch) {
      return problem("sorting by 'relevance' needs a search term; pass search or sort by another field");
    }
    entries.push({ name, descending });
    fields.push(descending ? `-${name}` : name);
  }
  if (!seen.has(TIEBREAKER)) {
    entries.push({ name: TIEBREAKER, descending: false });
    fields.push(TIEBREAKER);
  }
  return valid({ entries, fields });
}

/** The Elasticsearch sort of a sort spec; refuses a field the project cannot sort by (unknown or text). */
export function resolveSort(spec: SortSpec, indexedMetadata: IndexedMetadata): Checked<ParsedSort> {
  const sort: estypes.SortCombinations[] = [];
  const valueKinds: SortValueKind[] = [];
  for (const { name, descending } of spec.entries) {
    if (name === RELEVANCE) {
      sort.push({ _score: { order: 'desc' } });
      valueKinds.push('score');
      continue;
    }
    const target = resolveSortField(name, indexedMetadata);
    if (typeof target === 'string') return problem(target);
    sort.push(fieldSort(target, descending ? 'desc' : 'asc'));
    valueKinds.push(VALUE_KINDS[target.type]);
  }
  return valid({ sort, fields: spec.fields, valueKinds });
}
