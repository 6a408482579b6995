import type { IndexSourceRow } from '../db/queries/index-sources';
import type { Content, Metadata } from '../domain/content';
import { buildDocumentView, type DocumentView } from '../domain/document-view';
import {
  findContentType,
  indexedMetadataFields,
  ProjectConfigSchema,
  type IndexedFieldType,
  type ProjectConfig,
} from '../domain/project-config';
import { computeStatistics, extractSearchText } from '../domain/publication-text';
import { indexableIsoDate } from '../domain/search-filters';
import { foldApostrophes } from '../domain/search-text';

/** The Elasticsearch document of one published document (index-mappings/publications.json). */
export interface PublicationSearchDocument {
  documentId: number;
  projectId: number;
  channelId: number;
  publicationId: number;
  contentType: string;
  documentType: string;
  categoryId?: string;
  languageLocale?: string;
  languageGroupId?: string;
  isHomepage: boolean;
  firstPublicationDate?: string;
  lastPublicationDate?: string;
  significantPublicationDate?: string;
  visiblePublicationDate?: string;
  sortDate?: string;
  statistics: { characterCount: number; componentCount: Record<string, number> };
  publishControl: { embargo: { enforced: boolean; until?: string } };
  meta_keyword: Record<string, string | string[]>;
  meta_text: Record<string, string>;
  meta_integer: Record<string, number>;
  meta_float: Record<string, number>;
  meta_date: Record<string, string>;
  meta_boolean: Record<string, boolean>;
  title?: string;
  description?: string;
  text: string;
  body: DocumentView;
}

/**
 * The version of what buildSearchDocument makes from a given row and config. Stored search documents built by
 * another version are built again by the next rebuild, so bump it whenever the output changes for the same
 * input, or when what a row's field means changes (4: updatedAt is the publication's, no longer the document's
 * live updated_at, so documents stored by 3 may carry a later draft's; 5: componentCount counts only the
 * components the project's designs declare; 6: title, description, text and text metadata hold every
 * apostrophe as `'`, foldApostrophes, and a date of hour 24 is indexed as the next day's midnight,
 * indexableIsoDate); test/unit/document-builder-version.test.ts fails until you do.
 */
export const SEARCH_DOCUMENT_VERSION = 6;

/** The Elasticsearch `_id`: one index serves every project, so the id carries the project. */
export function searchDocumentId(projectId: number, documentId: number): string {
  return `${projectId}:${documentId}`;
}

/** Parsed project configs, keyed by project and revision, so one batch of the indexer parses each config once. */
export class BatchConfigs {
  private readonly byKey = new Map<string, ProjectConfig | null>();

  get(projectId: number, revision: number, raw: unknown): ProjectConfig | null {
    const key = `${projectId}:${revision}`;
    if (!this.byKey.has(key)) {
      const parsed = ProjectConfigSchema.safeParse(raw);
      this.byKey.set(key, parsed.success ? parsed.data : null);
    }
    return this.byKey.get(key) ?? null;
  }
}

/** What of a project config every search document of the project is built from: indexed fields, sortDateFields. */
function searchFieldsKey(config: ProjectConfig): string {
  const byName = <T>(entries: [string, T][]) => entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify({
    indexed: byName(Object.entries(indexedMetadataFields(config))),
    sortDateFields: byName(config.contentTypes.map((type) => [type.handle, type.sortDateField ?? null])),
  });
}

/**
 * Which published documents of a project buildSearchDocument builds differently under `after` than under
 * `before`: all of them when a metadata field is indexed, no longer indexed or indexed as another type, or a
 * sortDateField changes; else the homepage before and after when it moved (isHomepage); else none.
 * applyProjectConfig indexes them again, so a field indexed from now on is searchable in documents published
 * before.
 */
export function reindexedByConfigChange(before: ProjectConfig, after: ProjectConfig): 'all' | number[] {
  if (searchFieldsKey(before) !== searchFieldsKey(after)) return 'all';
  const was = before.settings.homepageDocumentId;
  const is = after.settings.homepageDocumentId;
  return was === is ? [] : [was, is].filter((id): id is number => id !== undefined);
}

/** The component names `statistics.componentCount.<name>` filters accept. */
const COMPONENT_NAME = /^[A-Za-z0-9_-]+$/;

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/**
 * A metadata value coerced to its declared index type, or undefined when it does not fit: a document with
 * a malformed value is still indexed (without that field) rather than refused by the mapping.
 */
function coerce(value: unknown, type: IndexedFieldType): unknown {
  switch (type) {
    case 'keyword':
      if (typeof value === 'string') return value;
      if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      return undefined;
    case 'text':
      return typeof value === 'string' ? foldApostrophes(value) : undefined;
    case 'integer':
      return Number.isInteger(value) && (value as number) >= INT32_MIN && (value as number) <= INT32_MAX
        ? value
        : undefined;
    case 'float':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
    case 'date':
      return typeof value === 'string' ? indexableIsoDate(value) : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
  }
}

/** Lucene's longest term: a keyword field refuses the whole document for a longer value. */
const MAX_KEYWORD_BYTES = 32_766;

/** A value for a keyword field without ignore_above, or undefined when the index could not take it. */
function keyword(value: string | undefined): string | undefined {
  return value !== undefined && Buffer.byteLength(value, 'utf8') <= MAX_KEYWORD_BYTES ? value : undefined;
}

function stringProp(value: unknown, key: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const inner = (value as Record<string, unknown>)[key];
  if (typeof inner === 'string' && inner !== '') return inner;
  if (typeof inner === 'number') return String(inner);
  return undefined;
}

const iso = (date: Date | null) => (date ? date.toISOString() : undefined);

/**
 * Builds the search document of a published document, or undefined when the row is not published.
 * sortDate is the content type's `sortDateField` metadata value when set and valid, else visiblePublicationDate.
 */
export function buildSearchDocument(
  row: IndexSourceRow,
  config: ProjectConfig | null,
): PublicationSearchDocument | undefined {
  if (
    row.publicationId === null ||
    row.contentType === null ||
    row.documentType === null ||
    row.updatedAt === null
  )
    return undefined;
  const metadata: Metadata = row.metadata ?? {};
  const content: Content = row.content ?? [];
  const view = buildDocumentView(
    {
      projectId: row.projectId,
      channelId: row.channelId,
      documentId: row.documentId,
      publicationId: row.publicationId,
      documentType: row.documentType,
      contentType: row.contentType,
      layout: row.layout,
      designName: row.designName,
      designVersion: row.designVersion,
      metadata,
      content,
      updatedAt: row.updatedAt,
      firstPublicationDate: row.firstPublicationDate,
      lastPublicationDate: row.lastPublicationDate,
      significantPublicationDate: row.significantPublicationDate,
      visiblePublicationDateOverride: row.visiblePublicationDateOverride,
    },
    // The stored body is what search answers show, references included (they pick its fields).
    { references: true },
  );

  const typed = {
    meta_keyword: {} as Record<string, string | string[]>,
    meta_text: {} as Record<string, string>,
    meta_integer: {} as Record<string, number>,
    meta_float: {} as Record<string, number>,
    meta_date: {} as Record<string, string>,
    meta_boolean: {} as Record<string, boolean>,
  };
  const indexed = config ? indexedMetadataFields(config) : {};
  for (const [prop, type] of Object.entries(indexed)) {
    if (!Object.hasOwn(metadata, prop)) continue;
    const value = coerce(metadata[prop], type);
    if (value !== undefined) (typed[`meta_${type}`] as Record<string, unknown>)[prop] = value;
  }

  const sortDateField = config ? findContentType(config, row.contentType)?.sortDateField : undefined;
  const sortDateValue =
    sortDateField && Object.hasOwn(metadata, sortDateField) ? metadata[sortDateField] : undefined;
  const visible = view.systemdata.visiblePublicationDate;
  const sortDate = (typeof sortDateValue === 'string' && indexableIsoDate(sortDateValue)) || visible;

  const text = extractSearchText(metadata, content);
  const counted = computeStatistics(content, text.text);
  // Only names a filter can address (supplement §5) become fields: a dotted name would clash with the object
  // paths of another and make Elasticsearch refuse the whole document. And only names a design of the project
  // declares: every name is a field of the index all projects share, whose mapping takes at most
  // total_fields.limit fields (index-mappings/publications.json). Content stored as sent (imports before
  // 2026-01, naming any design or none) could otherwise fill it, after which Elasticsearch refuses every
  // document that brings a new field, whatever its project.
  const statistics = {
    characterCount: counted.characterCount,
    componentCount: Object.fromEntries(
      Object.entries(counted.componentCount).filter(
        ([name]) => COMPONENT_NAME.test(name) && row.declaredComponents.has(name),
      ),
    ),
  };
  const until = iso(row.embargoUntil);
  const document: PublicationSearchDocument = {
    documentId: row.documentId,
    projectId: row.projectId,
    channelId: row.channelId,
    publicationId: row.publicationId,
    contentType: row.contentType,
    documentType: row.documentType,
    isHomepage: config?.settings.homepageDocumentId === row.documentId,
    statistics,
    publishControl: { embargo: { enforced: row.embargoSet, ...(until ? { until } : {}) } },
    ...typed,
    text: foldApostrophes(text.text),
    body: view,
  };
  const optional: Partial<PublicationSearchDocument> = {
    categoryId: keyword(
      typeof metadata.category === 'string' ? metadata.category : stringProp(metadata.category, 'id'),
    ),
    languageLocale: keyword(stringProp(metadata.language, 'locale')),
    languageGroupId: keyword(stringProp(metadata.language, 'groupId')),
    firstPublicationDate: view.systemdata.firstPublicationDate,
    lastPublicationDate: view.systemdata.lastPublicationDate,
    significantPublicationDate: view.systemdata.significantPublicationDate,
    visiblePublicationDate: visible,
    sortDate,
    title: text.title === undefined ? undefined : foldApostrophes(text.title),
    description: text.description === undefined ? undefined : foldApostrophes(text.description),
  };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined) (document as unknown as Record<string, unknown>)[key] = value;
  }
  return document;
}
