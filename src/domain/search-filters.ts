import type { estypes } from '@elastic/elasticsearch';
import { findJsonProblem } from './json-limits';
import { plusLostHint } from './plus-as-space';
import { foldApostrophes } from './search-text';
import { quoted, shownInput } from './shown-input';
import { invalid, valid, type Checked, type Issue } from './validation';

/**
 * The search filter language of publications/search (supplement §5) → one Elasticsearch query for the
 * filter context. The query string's JSON is parsed at the edge (parseFilterJson); the expression is compiled
 * against the project's indexed metadata (compileFilters), which alone knows the keys and their types. Every
 * problem is reported with its path in the JSON (`1.range`, `and.0.key`, keyed `filters.1.range` in the 400);
 * problems in sibling conditions are collected so a client can fix them in one go.
 */

type Query = estypes.QueryDslQueryContainer;

/** Types a project may give metadata declared `index: true`; each lives in its own `meta_<type>` object. */
export type IndexedMetadataType = 'keyword' | 'text' | 'integer' | 'float' | 'date' | 'boolean';
export type IndexedMetadata = Record<string, IndexedMetadataType>;
export type SearchFieldType = IndexedMetadataType | 'long';

export interface SearchField {
  /** Field path in the Elasticsearch document. */
  field: string;
  type: SearchFieldType;
  /**
   * A count stored only when above 0 (statistics.componentCount.<name>: a document has a field for each
   * component it holds): a document without the field has 0, and term and range see it so.
   */
  absentMeansZero?: boolean;
}

export const MAX_FILTER_DEPTH = 10;
export const MAX_FILTER_CONDITIONS = 100;
export const MAX_TERM_VALUES = 1000;

const PUBLICATION_DATES = [
  'firstPublicationDate',
  'lastPublicationDate',
  'significantPublicationDate',
  'visiblePublicationDate',
] as const;

const FIXED_FILTER_KEYS: ReadonlyMap<string, SearchFieldType> = new Map<string, SearchFieldType>([
  ['documentId', 'long'],
  ['contentType', 'keyword'],
  ...PUBLICATION_DATES.map((key): [string, SearchFieldType] => [key, 'date']),
  ['statistics.characterCount', 'integer'],
  ['publishControl.embargo.enforced', 'boolean'],
  ['publishControl.embargo.until', 'date'],
]);

const COMPONENT_COUNT_PREFIX = 'statistics.componentCount.';
/** No dots or wildcards: a name must address exactly one field under statistics.componentCount. */
const COMPONENT_NAME = /^[A-Za-z0-9_-]+$/;
const METADATA_PREFIX = 'metadata.';

/** The document field behind `metadata.<prop>`, or undefined when the project does not index that prop. */
export function metadataSearchField(prop: string, indexedMetadata: IndexedMetadata): SearchField | undefined {
  if (!Object.hasOwn(indexedMetadata, prop)) return undefined;
  const type = indexedMetadata[prop];
  return type === undefined ? undefined : { field: `meta_${type}.${prop}`, type };
}

function resolveFilterKey(key: string, indexedMetadata: IndexedMetadata): SearchField | undefined {
  const fixed = FIXED_FILTER_KEYS.get(key);
  if (fixed) return { field: key, type: fixed };
  if (key.startsWith(COMPONENT_COUNT_PREFIX)) {
    const name = key.slice(COMPONENT_COUNT_PREFIX.length);
    return COMPONENT_NAME.test(name) ? { field: key, type: 'integer', absentMeansZero: true } : undefined;
  }
  if (key.startsWith(METADATA_PREFIX)) {
    return metadataSearchField(key.slice(METADATA_PREFIX.length), indexedMetadata);
  }
  return undefined;
}

function unknownKeyMessage(key: string, indexedMetadata: IndexedMetadata): string {
  const metadata = Object.keys(indexedMetadata).map((prop) => `metadata.${prop}`);
  const filterable = [
    ...FIXED_FILTER_KEYS.keys(),
    `${COMPONENT_COUNT_PREFIX}<component name>`,
    metadata.length > 0 ? metadata.join(', ') : 'metadata.<prop> (no metadata of this project is indexed)',
  ];
  return `unknown filter key ${quoted(key)}; filterable keys are ${filterable.join(', ')}`;
}

const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))?)?$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * A calendar-valid ISO 8601 date or date-time (the subset Elasticsearch's strict_date_optional_time reads),
 * with an offset of at most ±18:00.
 */
export function isIsoDate(value: string): boolean {
  const match = ISO_DATE.exec(value);
  if (!match) return false;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, offsetHour = 0, offsetMinute = 0] =
    match.slice(1).map((part) => (part === undefined ? 0 : Number(part)));
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month) &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetMinute <= 59 &&
    // java.time's ZoneOffset, which Elasticsearch parses with, ends at ±18:00.
    offsetHour * 60 + offsetMinute <= 18 * 60
  );
}

/** `T24:00`, `T24:00:00` or `T24:00:00.000…` (ISO 8601's end of the day), with the rest of the value. */
const END_OF_DAY = /^(\d{4})-(\d{2})-(\d{2})T24:00(?::00(?:\.0{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * A stored date value as Elasticsearch can index it: an `isIsoDate` value as it is, and ISO 8601's end of the
 * day, `2018-03-07T24:00:00.000Z` (which archives hold; JavaScript's Date reads it too), as the midnight it
 * names, `2018-03-08T00:00:00Z` (strict_date_optional_time knows no hour 24). Anything else: undefined.
 */
export function indexableIsoDate(value: string): string | undefined {
  if (isIsoDate(value)) return value;
  const match = END_OF_DAY.exec(value);
  if (!match) return undefined;
  const [, year, month, day, zone = ''] = match;
  if (!isIsoDate(`${year}-${month}-${day}`)) return undefined;
  const next = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day) + 1));
  const nextDay = next.toISOString().slice(0, 10);
  const midnight = `${nextDay}T00:00:00${zone}`;
  // 9999-12-31T24:00 has no next day in four digits.
  return isIsoDate(midnight) ? midnight : undefined;
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** Stands for a non-finite number while show writes JSON (a private-use character, never escaped). */
const NON_FINITE = '\u{F8FF}';
const NON_FINITE_SHOWN = new RegExp(`"${NON_FINITE}(-?Infinity)${NON_FINITE}"`, 'g');

/**
 * A value of the filter as a message shows it: its JSON, cut by shownInput. JSON.parse reads 1e309 as
 * Infinity, which JSON.stringify writes as null (`got {"documentId":null}`, never sent): such a number is
 * shown as Infinity, and said to be too large for a double.
 */
function show(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    return `a number too large for a double (${value})`;
  }
  const nonFinite = new Set<string>();
  const json = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item !== 'number' || Number.isFinite(item)) return item;
    nonFinite.add(String(item));
    return `${NON_FINITE}${item}${NON_FINITE}`;
  }) as string | undefined;
  const text = nonFinite.size === 0 ? (json ?? String(value)) : (json ?? '').replace(NON_FINITE_SHOWN, '$1');
  const why = [...nonFinite].map((number) => ` (${number}: a number too large for a double)`).join('');
  return `${shownInput(text)}${why}`;
}

/**
 * A date as the filters JSON arrives in the query string: a `+` of its offset, sent unencoded, is a space
 * (plusLostHint), which the 400 says.
 */
function dateProblem(value: unknown, key: string): string {
  const problem = `must be an ISO 8601 date such as 2024-05-01 or 2024-05-01T12:00:00Z for ${quoted(key)}, got ${show(value)}`;
  const lost = typeof value === 'string' ? plusLostHint(value, isIsoDate) : undefined;
  return lost === undefined ? problem : `${problem}; ${lost}`;
}

/** Why `value` is not a valid value of `key`, or undefined when it is. */
function valueProblem(value: unknown, key: string, type: SearchFieldType): string | undefined {
  switch (type) {
    case 'long':
      // Past 2^53 a JSON number is no longer exact (9007199254740993 reads as ...992): the bounds say why an
      // integer the client sent is refused.
      return Number.isSafeInteger(value)
        ? undefined
        : `must be an integer between ${-Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER} for ${quoted(key)}, got ${show(value)}`;
    case 'integer':
      return Number.isInteger(value) && (value as number) >= INT32_MIN && (value as number) <= INT32_MAX
        ? undefined
        : `must be an integer between ${INT32_MIN} and ${INT32_MAX} for ${quoted(key)}, got ${show(value)}`;
    case 'float':
      return typeof value === 'number' && Number.isFinite(value)
        ? undefined
        : `must be a number for ${quoted(key)}, got ${show(value)}`;
    case 'keyword':
    case 'text':
      return typeof value === 'string'
        ? undefined
        : `must be a string for ${quoted(key)}, got ${show(value)}`;
    case 'date':
      return typeof value === 'string' && isIsoDate(value) ? undefined : dateProblem(value, key);
    case 'boolean':
      return typeof value === 'boolean'
        ? undefined
        : `must be true or false for ${quoted(key)}, got ${show(value)}`;
  }
}

/** A parsed `filters` parameter: any JSON, judged by compileFilters. */
export type FilterJson = null | boolean | number | string | FilterJson[] | { [key: string]: FilterJson };
type FilterObject = { [key: string]: FilterJson };

function isObject(value: FilterJson | undefined): value is FilterObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const OPERATORS = ['term', 'range', 'exists'] as const;
type Operator = (typeof OPERATORS)[number];
const COMBINATORS = ['and', 'or', 'not'] as const;
type Combinator = (typeof COMBINATORS)[number];
const RANGE_BOUNDS = ['gt', 'gte', 'lt', 'lte'] as const;

function isOperator(name: string): name is Operator {
  return (OPERATORS as readonly string[]).includes(name);
}

function isCombinator(name: string): name is Combinator {
  return (COMBINATORS as readonly string[]).includes(name);
}

type Path = readonly (string | number)[];

/** A problem that stops the whole compilation (too deep, too many conditions): it alone is reported. */
class Abort extends Error {
  constructor(readonly issue: Issue) {
    super(issue.message);
  }
}

class FilterCompiler {
  private readonly issues: Issue[] = [];
  private readonly reported = new Set<string>();
  private conditions = 0;

  constructor(private readonly indexedMetadata: IndexedMetadata) {}

  compileRoot(root: FilterJson): Checked<Query> {
    let query: Query | undefined;
    try {
      query = Array.isArray(root) ? this.conjunction(root) : this.expression(root, [], 0);
    } catch (error) {
      if (error instanceof Abort) return invalid([error.issue]);
      throw error;
    }
    if (this.issues.length > 0) return invalid(this.issues);
    // Every failing branch reported an issue, so an absent query here would be a bug.
    if (!query) throw new Error('filter compiled to nothing without reporting an issue');
    return valid(query);
  }

  /** The top-level array means AND; an empty one restricts nothing. */
  private conjunction(root: FilterJson[]): Query | undefined {
    if (root.length === 0) return { match_all: {} };
    this.checkDepth(1, []);
    const queries = this.each(root, [], 1);
    return queries && { bool: { filter: queries } };
  }

  private report(path: Path, message: string): undefined {
    // The first problem of a path wins.
    const key = path.join('.');
    if (!this.reported.has(key)) {
      this.reported.add(key);
      this.issues.push({ path, message });
    }
    return undefined;
  }

  private checkDepth(level: number, path: Path): void {
    if (level <= MAX_FILTER_DEPTH) return;
    throw new Abort({ path, message: `filters may nest at most ${MAX_FILTER_DEPTH} levels deep` });
  }

  /** The queries of an array of expressions, or undefined when any of them is invalid. */
  private each(items: FilterJson[], path: Path, level: number): Query[] | undefined {
    const queries = items.map((item, index) => this.expression(item, [...path, index], level));
    return queries.every((query): query is Query => query !== undefined) ? queries : undefined;
  }

  /** `level` counts the combinators (and arrays) around this node. */
  private expression(node: FilterJson, path: Path, level: number): Query | undefined {
    if (!isObject(node)) {
      return this.report(
        path,
        `must be a condition {key, term|range|exists} or a combinator {and|or|not}, got ${show(node)}`,
      );
    }
    const names = Object.keys(node);
    if (names.includes('key')) return this.condition(node, path);
    const combinator = names.find(isCombinator);
    if (combinator) return this.combinator(node, combinator, path, level + 1);
    if (names.some(isOperator)) {
      return this.report([...path, 'key'], 'is required next to term, range or exists');
    }
    return this.report(
      path,
      `must be a condition {key, term|range|exists} or a combinator {and|or|not}, got ${show(node)}`,
    );
  }

  private combinator(
    node: FilterObject,
    combinator: Combinator,
    path: Path,
    level: number,
  ): Query | undefined {
    this.checkDepth(level, path);
    let valid = true;
    for (const name of Object.keys(node)) {
      if (name === combinator) continue;
      valid = false;
      this.report(
        [...path, name],
        `unexpected property ${quoted(name)}; a combinator has exactly one of and, or, not`,
      );
    }
    const operand = node[combinator];
    const operandPath = [...path, combinator];
    if (combinator === 'not' && isObject(operand)) {
      const negated = this.expression(operand, operandPath, level);
      return valid && negated ? { bool: { must_not: [negated] } } : undefined;
    }
    if (!Array.isArray(operand)) {
      const expected =
        combinator === 'not' ? 'a condition or an array of conditions' : 'an array of conditions';
      return this.report(operandPath, `must be ${expected}, got ${show(operand)}`);
    }
    if (operand.length === 0) return this.report(operandPath, 'must not be an empty array');
    const queries = this.each(operand, operandPath, level);
    if (!valid || !queries) return undefined;
    if (combinator === 'and') return { bool: { filter: queries } };
    if (combinator === 'or') return { bool: { should: queries, minimum_should_match: 1 } };
    // An array under not means AND, as everywhere else: {not: [a, b]} is "not (a and b)".
    return { bool: { must_not: [{ bool: { filter: queries } }] } };
  }

  private condition(node: FilterObject, path: Path): Query | undefined {
    this.conditions += 1;
    if (this.conditions > MAX_FILTER_CONDITIONS) {
      throw new Abort({ path: [], message: `at most ${MAX_FILTER_CONDITIONS} conditions are allowed` });
    }
    let valid = true;
    const operators: Operator[] = [];
    for (const name of Object.keys(node)) {
      if (name === 'key') continue;
      if (isOperator(name)) {
        operators.push(name);
        continue;
      }
      valid = false;
      this.report(
        [...path, name],
        isCombinator(name)
          ? `unexpected property ${quoted(name)} next to key; put the condition inside the combinator instead`
          : `unknown operator ${quoted(name)}; a condition has key and one of term, range, exists`,
      );
    }
    const [operator, second] = operators;
    if (second) {
      valid = false;
      this.report(
        [...path, second],
        `only one of term, range, exists per condition; '${operator}' is already given`,
      );
    } else if (!operator && valid) {
      return this.report(path, 'a condition needs one of term, range or exists');
    }

    const key = node.key;
    let target: SearchField | undefined;
    if (typeof key !== 'string') {
      this.report([...path, 'key'], `must be a string naming a filterable key, got ${show(key)}`);
    } else {
      target = resolveFilterKey(key, this.indexedMetadata);
      if (!target) this.report([...path, 'key'], unknownKeyMessage(key, this.indexedMetadata));
    }
    if (!valid || !operator || !target || typeof key !== 'string') return undefined;

    const operand = node[operator];
    const operandPath = [...path, operator];
    if (operator === 'term') return this.term(operand, key, target, operandPath);
    if (operator === 'range') return this.range(operand, key, target, operandPath);
    if (typeof operand !== 'boolean') {
      return this.report(operandPath, `must be true or false, got ${show(operand)}`);
    }
    const exists: Query = { exists: { field: target.field } };
    return operand ? exists : { bool: { must_not: [exists] } };
  }

  private term(
    operand: FilterJson | undefined,
    key: string,
    target: SearchField,
    path: Path,
  ): Query | undefined {
    const values = Array.isArray(operand) ? operand : [operand];
    if (Array.isArray(operand)) {
      if (operand.length === 0)
        return this.report(path, 'must not be an empty array; give at least one value');
      if (operand.length > MAX_TERM_VALUES)
        return this.report(path, `must have at most ${MAX_TERM_VALUES} values`);
    }
    let valid = true;
    values.forEach((value, index) => {
      const problem = valueProblem(value, key, target.type);
      if (!problem) return;
      valid = false;
      this.report(Array.isArray(operand) ? [...path, index] : path, problem);
    });
    if (!valid) return undefined;
    const scalars = values as estypes.FieldValue[];
    if (target.type === 'text') {
      // A text field holds analysed words, so "term" means: all words of the value occur in the field.
      const matches: Query[] = scalars.map((value) => ({
        match: { [target.field]: { query: foldApostrophes(String(value)), operator: 'and' } },
      }));
      if (!Array.isArray(operand)) return matches[0];
      return { bool: { should: matches, minimum_should_match: 1 } };
    }
    const query: Query = Array.isArray(operand)
      ? { terms: { [target.field]: scalars } }
      : { term: { [target.field]: scalars[0] ?? null } };
    return orAbsent(query, target, scalars.includes(0));
  }

  private range(
    operand: FilterJson | undefined,
    key: string,
    target: SearchField,
    path: Path,
  ): Query | undefined {
    if (target.type === 'boolean' || target.type === 'text') {
      const allowed =
        target.type === 'boolean' ? 'term or exists' : 'term or exists (text fields have no order)';
      return this.report(path, `range is not allowed on ${target.type} key ${quoted(key)}; use ${allowed}`);
    }
    if (!isObject(operand)) {
      return this.report(
        path,
        `must be an object with at least one of gt, gte, lt, lte, got ${show(operand)}`,
      );
    }
    let valid = true;
    const bounds: Record<string, estypes.FieldValue> = {};
    for (const [name, value] of Object.entries(operand)) {
      if (!(RANGE_BOUNDS as readonly string[]).includes(name)) {
        valid = false;
        this.report([...path, name], `unknown range bound ${quoted(name)}; use gt, gte, lt, lte`);
        continue;
      }
      const problem = valueProblem(value, key, target.type);
      if (problem) {
        valid = false;
        this.report([...path, name], problem);
        continue;
      }
      bounds[name] = value as estypes.FieldValue;
    }
    if (valid && Object.keys(bounds).length === 0) {
      return this.report(path, 'must have at least one of gt, gte, lt, lte');
    }
    if ('gt' in bounds && 'gte' in bounds) return this.report(path, 'use gt or gte, not both');
    if ('lt' in bounds && 'lte' in bounds) return this.report(path, 'use lt or lte, not both');
    return valid
      ? orAbsent({ range: { [target.field]: bounds } }, target, rangeHoldsZero(bounds))
      : undefined;
  }
}

/** Whether 0 lies within numeric range bounds (only asked of counts, whose bounds are integers). */
function rangeHoldsZero(bounds: Record<string, estypes.FieldValue>): boolean {
  const { gt, gte, lt, lte } = bounds as Record<string, number | undefined>;
  return (
    (gt === undefined || 0 > gt) &&
    (gte === undefined || 0 >= gte) &&
    (lt === undefined || 0 < lt) &&
    (lte === undefined || 0 <= lte)
  );
}

/** A condition on a count that 0 satisfies also takes the documents that have none (see absentMeansZero). */
function orAbsent(query: Query, target: SearchField, zeroMatches: boolean): Query {
  if (!target.absentMeansZero || !zeroMatches) return query;
  const absent: Query = { bool: { must_not: [{ exists: { field: target.field } }] } };
  return { bool: { should: [query, absent], minimum_should_match: 1 } };
}

/**
 * The deepest JSON a valid filter has: an object root, each combinator level an object and its array, then
 * a condition and its term array. Anything deeper is refused whole, before it is compiled, quoted in a
 * message or serialised into a cache key, all of which recurse and would overflow the stack on the
 * thousands of levels a query string holds.
 */
const MAX_FILTER_JSON_DEPTH = 2 * MAX_FILTER_DEPTH + 2;

/** The `filters` query parameter's JSON; its meaning is judged by compileFilters. */
export function parseFilterJson(raw: string): Checked<FilterJson> {
  let parsed: FilterJson;
  try {
    parsed = JSON.parse(raw) as FilterJson;
  } catch {
    return invalid([
      { path: [], message: 'must be valid JSON: a condition, a combinator or an array of them' },
    ]);
  }
  if (findJsonProblem(parsed, MAX_FILTER_JSON_DEPTH, { depthOnly: true })) {
    return invalid([
      {
        path: [],
        message: `is nested more than ${MAX_FILTER_JSON_DEPTH} JSON levels deep; filters may nest at most ${MAX_FILTER_DEPTH} levels deep`,
      },
    ]);
  }
  return valid(parsed);
}

/**
 * Compiles a filter expression into a query for the filter context (no scoring), against the project's
 * indexed metadata. An empty array means no restriction (match_all).
 */
export function compileFilters(filters: FilterJson, indexedMetadata: IndexedMetadata): Checked<Query> {
  return new FilterCompiler(indexedMetadata).compileRoot(filters);
}
