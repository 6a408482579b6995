import { componentKey, type Component, type Content, type Metadata } from './content';

/** POST composition/{documentId} (api-spec §4.4): the pure parts, preloading and include resolution. */
export const COMPOSITION_FIELDS = [
  'systemdata',
  'metadata',
  'content',
  'html',
  'includes',
  'design',
] as const;
export type CompositionField = (typeof COMPOSITION_FIELDS)[number];

/** What a referenced document shows when it is preloaded or included: its latest publication's. */
export interface PublishedSummary {
  systemdata: Record<string, unknown>;
  metadata: Metadata;
}

/** How many documents a list include resolves when its params say nothing (or something unusable). */
export const DEFAULT_LIST_INCLUDE_LIMIT = 10;
export const MAX_LIST_INCLUDE_LIMIT = 100;
/**
 * The documents one answer's includes may ask for in all. Each resolved document is a copy of its systemdata
 * and metadata, so without a bound a few bytes of content (`{listId: 1, limit: 100}` thousands of times)
 * would ask for an answer of gigabytes and take the process down.
 */
export const MAX_INCLUDED_DOCUMENTS = 1000;
/**
 * The references one answer's metadata.preload gives a value, in metadata order: the same reference repeated
 * in a `documents` list would otherwise copy its target's systemdata and metadata once per repetition.
 */
export const MAX_PRELOADED_REFERENCES = 1000;

/**
 * Fields answered when the body names none: all of them, the default the vendor's reference documents for
 * `fields` ('systemdata', 'content', 'metadata', 'includes', 'html', 'design'), so a renderer written against
 * it that sends `{}` finds the `html` it renders (api-spec §1: composition gathers content, metadata, the
 * prerendered HTML and the resolved includes in one response).
 */
export const DEFAULT_COMPOSITION_FIELDS: readonly CompositionField[] = COMPOSITION_FIELDS;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A stored id (a number or a string of digits) as a document or list id; anything else is no id. */
export function asDocumentId(value: unknown): number | undefined {
  const id =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d+$/.test(value)
        ? Number(value)
        : NaN;
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

const SINGLE_REF = 'document';
const MULTI_REF = 'documents';
const LIST_REFS = new Set(['list', 'documentList', 'document-list']);

// ---- metadata.preload --------------------------------------------------------------------------------------

/** The metadata properties the request asks to preload that hold document references. */
function preloadedValues(
  metadata: Metadata,
  preload: Readonly<Record<string, boolean>>,
): [string, unknown][] {
  return Object.entries(metadata).filter(
    ([property]) => Object.hasOwn(preload, property) && preload[property],
  );
}

function refIds(value: unknown): number[] {
  if (Array.isArray(value)) return value.flatMap(refIds);
  if (!isObject(value)) return [];
  if (value.$ref === SINGLE_REF) {
    const id = isObject(value.reference) ? asDocumentId(value.reference.id) : undefined;
    return id === undefined ? [] : [id];
  }
  if (value.$ref === MULTI_REF && Array.isArray(value.references)) {
    return value.references.flatMap((entry) => {
      const id = isObject(entry) ? asDocumentId(entry.id) : undefined;
      return id === undefined ? [] : [id];
    });
  }
  return [];
}

/** Every document reference the preload asks for, in metadata order, repeats included (as applyPreload walks). */
export function preloadReferences(metadata: Metadata, preload: Readonly<Record<string, boolean>>): number[] {
  return preloadedValues(metadata, preload).flatMap(([, value]) => refIds(value));
}

/**
 * Whether the references before the first one to `unread` (the first target not read yet, in metadata order)
 * already use up MAX_PRELOADED_REFERENCES with what was `found`: applyPreload then gives no value to any
 * reference from there on, so neither `unread` nor a target after it needs to be read. Targets come in the
 * order of their first reference, so a reference before that point is to a target already read.
 */
export function preloadBudgetFilled(
  references: readonly number[],
  unread: number,
  found: ReadonlyMap<number, PublishedSummary>,
): boolean {
  let given = 0;
  for (const id of references) {
    if (id === unread) return false;
    if (found.has(id)) given += 1;
    if (given >= MAX_PRELOADED_REFERENCES) return true;
  }
  return false;
}

/** What was found, and how many more references may still get a value (MAX_PRELOADED_REFERENCES). */
interface PreloadState {
  found: ReadonlyMap<number, PublishedSummary>;
  left: number;
}

/** One reference holder with what was found for it: `isPreloaded` always, `value` only when published. */
function preloadOne(holder: Json, id: unknown, state: PreloadState): Json {
  const { value: _stored, isPreloaded: _flag, ...rest } = holder;
  const documentId = asDocumentId(id);
  const summary = documentId === undefined || state.left <= 0 ? undefined : state.found.get(documentId);
  if (!summary) return { ...rest, isPreloaded: false };
  state.left -= 1;
  return { ...rest, isPreloaded: true, value: summary };
}

function preloadValue(value: unknown, state: PreloadState): unknown {
  if (Array.isArray(value)) return value.map((item) => preloadValue(item, state));
  if (!isObject(value)) return value;
  if (value.$ref === SINGLE_REF) {
    return preloadOne(value, isObject(value.reference) ? value.reference.id : undefined, state);
  }
  if (value.$ref === MULTI_REF && Array.isArray(value.references)) {
    return {
      ...value,
      references: (value.references as unknown[]).map((entry): unknown =>
        isObject(entry) ? preloadOne(entry, entry.id, state) : entry,
      ),
    };
  }
  return value;
}

/**
 * The metadata with the asked-for references resolved (api-spec §2.3): `{$ref: 'document', isPreloaded,
 * reference, value: {systemdata, metadata}}`, and in a `{$ref: 'documents'}` list the same on each item. A
 * target that is not published (or not of the project) stays `isPreloaded: false` without a value, and so
 * does every reference after the first MAX_PRELOADED_REFERENCES resolved.
 */
export function applyPreload(
  metadata: Metadata,
  preload: Readonly<Record<string, boolean>>,
  found: ReadonlyMap<number, PublishedSummary>,
): Metadata {
  const resolved = new Map(Object.entries(metadata));
  const state: PreloadState = { found, left: MAX_PRELOADED_REFERENCES };
  for (const [property, value] of preloadedValues(metadata, preload)) {
    resolved.set(property, preloadValue(value, state));
  }
  return Object.fromEntries(resolved);
}

// ---- resolveIncludes ---------------------------------------------------------------------------------------

/** One include directive whose params point at documents or a list. */
export interface IncludeRequest {
  componentId: string;
  directiveName: string;
  service: string;
  /** params.layout when it is a string: teasers are drawn in it. */
  layout?: string;
  documentIds: number[];
  list?: { id: number; limit: number };
}

function listLimit(value: unknown): number {
  const limit = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof limit === 'number' && Number.isInteger(limit) && limit >= 1
    ? Math.min(limit, MAX_LIST_INCLUDE_LIMIT)
    : DEFAULT_LIST_INCLUDE_LIMIT;
}

/**
 * How many documents a list include asks for: `params.limit`, or `count`, the name the magazine's legacy list
 * include (`{listId, count}`) gives it; `limit` wins when both are there.
 */
function listLimitOf(params: Json): number {
  return listLimit(params.limit ?? params.count);
}

function includeRequest(
  key: string,
  directiveName: string,
  include: { service: string; params: Json },
): IncludeRequest | undefined {
  const documentIds: number[] = [];
  let list: IncludeRequest['list'];
  for (const [param, value] of Object.entries(include.params)) {
    if (isObject(value) && typeof value.$ref === 'string' && LIST_REFS.has(value.$ref)) {
      const id = isObject(value.reference) ? asDocumentId(value.reference.id) : undefined;
      if (id !== undefined && list === undefined) list = { id, limit: listLimitOf(include.params) };
      continue;
    }
    if (param === 'listId') {
      const id = asDocumentId(value);
      if (id !== undefined && list === undefined) list = { id, limit: listLimitOf(include.params) };
      continue;
    }
    // The legacy teaser names the teased document `mediaId` (as in domain/references.ts).
    if (param === 'mediaId') {
      const id = asDocumentId(value);
      if (id !== undefined) documentIds.push(id);
      continue;
    }
    // Not push(...): a `documents` list in a 2 MB content has more ids than one call takes as arguments.
    for (const id of refIds(value)) documentIds.push(id);
  }
  if (documentIds.length === 0 && list === undefined) return undefined;
  const layout = include.params.layout;
  return {
    componentId: key,
    directiveName,
    service: include.service,
    ...(typeof layout === 'string' ? { layout } : {}),
    documentIds: [...new Set(documentIds)],
    ...(list ? { list } : {}),
  };
}

/**
 * The include directives of the content that reference documents or a list, depth-first: components in
 * content order, a component's directives and containers in the order their keys are stored (Postgres keeps
 * jsonb keys shortest first). A component without an id is named by its position (see componentKey), as in
 * the html's markers.
 */
export function findIncludeRequests(content: Content): IncludeRequest[] {
  const found: IncludeRequest[] = [];
  const visit = (components: unknown, path: readonly (string | number)[]) => {
    if (!Array.isArray(components)) return;
    components.forEach((item: unknown, index) => {
      if (!isObject(item)) return; // stored content is not checked deeply: skip what is not a component
      const component = item as Component;
      const here = [...path, index];
      const key = componentKey(component, here);
      for (const [directiveName, value] of Object.entries(
        isObject(component.content) ? component.content : {},
      )) {
        if (!isObject(value) || typeof value.service !== 'string' || !isObject(value.params)) continue;
        const request = includeRequest(key, directiveName, {
          service: value.service,
          params: value.params,
        });
        if (request) found.push(request);
      }
      for (const [name, children] of Object.entries(
        isObject(component.containers) ? component.containers : {},
      )) {
        visit(children, [...here, name]);
      }
    });
  };
  visit(content, []);
  return withinIncludeBudget(found, MAX_INCLUDED_DOCUMENTS);
}

/**
 * The requests cut, in their order, to `budget` documents asked for in all (a list counts its limit): the
 * request that reaches the budget keeps what is left of it, those after it ask for nothing.
 */
export function withinIncludeBudget(requests: readonly IncludeRequest[], budget: number): IncludeRequest[] {
  let left = budget;
  return requests.map((request) => {
    const { list, ...rest } = request;
    const documentIds = request.documentIds.slice(0, left);
    left -= documentIds.length;
    const limit = Math.min(list?.limit ?? 0, left);
    left -= limit;
    return { ...rest, documentIds, ...(list && limit > 0 ? { list: { id: list.id, limit } } : {}) };
  });
}

/** An item of `includes` (api-spec §4.4). */
export interface ResolvedInclude {
  componentId: string;
  directiveName: string;
  resolvedValue: { content: { id: string; component: string; content: Json }[] };
}

/**
 * The includes with what they resolved to (`listDocuments`: each list's published documents in editor
 * order, at least as many as its includes' limits): one component per published document, named after the include's
 * service, carrying the document's systemdata and metadata (and the layout asked for). Documents that are
 * not published are left out, so an include of nothing published resolves to empty content.
 */
export function resolveIncludes(
  requests: readonly IncludeRequest[],
  listDocuments: ReadonlyMap<number, readonly number[]>,
  found: ReadonlyMap<number, PublishedSummary>,
): ResolvedInclude[] {
  return requests.map((request) => {
    const listed = request.list
      ? (listDocuments.get(request.list.id) ?? []).slice(0, request.list.limit)
      : [];
    const ids = [...new Set([...request.documentIds, ...listed])];
    const content = ids.flatMap((documentId) => {
      const summary = found.get(documentId);
      if (!summary) return [];
      return [
        {
          id: `include-${documentId}`,
          component: request.service,
          content: {
            documentId,
            ...(request.layout === undefined ? {} : { layout: request.layout }),
            systemdata: summary.systemdata,
            metadata: summary.metadata,
          },
        },
      ];
    });
    return {
      componentId: request.componentId,
      directiveName: request.directiveName,
      resolvedValue: { content },
    };
  });
}
