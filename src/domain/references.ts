import { componentName, walkComponents, type Component, type Content, type Metadata } from './content';

/** An item of a publication's `references` field (api-spec §2.4, supplement §4). */
export interface ApiReference {
  id: string;
  type: 'document' | 'language-group';
  location: 'metadata';
  propertyName: string;
}

export type ReferenceTargetType = 'document' | 'media';
export type ReferenceLocation = 'metadata' | 'link-directive' | 'include-directive' | 'image-directive';

/** One outgoing reference as stored, enough to answer the incoming-references endpoints (api-spec §2.9). */
export interface ReferenceRow {
  targetType: ReferenceTargetType;
  targetId: string;
  location: ReferenceLocation;
  /** The metadata property, or the include parameter that holds the reference. */
  propertyName?: string;
  componentId?: string;
  componentName?: string;
  directiveName?: string;
  serviceName?: string;
}

export interface ExtractedReferences {
  /** For the API's `references` field: metadata references to documents, and the language group. */
  documents: ApiReference[];
  /** Every outgoing reference to a document or a media library entry, metadata and content alike. */
  rows: ReferenceRow[];
}

const DOCUMENT_REFS = new Set(['document', 'documents']);
const MEDIA_REFS = new Set(['mediaLibrary', 'media']);

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asId(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * The targets of a `$ref` value: `{$ref, reference: {id}}` (possibly preloaded with a `value`) or
 * `{$ref, references: [{id}]}`. Undefined when the value is not a `$ref` at all.
 */
function refTargets(value: Json): { targetType: ReferenceTargetType; ids: string[] } | undefined {
  const ref = value.$ref;
  if (typeof ref !== 'string') return undefined;
  const targetType = DOCUMENT_REFS.has(ref) ? 'document' : MEDIA_REFS.has(ref) ? 'media' : undefined;
  if (!targetType) return undefined;
  const entries = Array.isArray(value.references) ? value.references : [value.reference];
  const ids = entries.flatMap((entry) => {
    const id = isObject(entry) ? asId(entry.id) : undefined;
    return id === undefined ? [] : [id];
  });
  return { targetType, ids };
}

interface IncludeDirective {
  service: string;
  params: Json;
}

function isIncludeDirective(value: Json): value is Json & IncludeDirective {
  return typeof value.service === 'string' && isObject(value.params);
}

class ReferenceCollector {
  readonly documents: ApiReference[] = [];
  readonly rows: ReferenceRow[] = [];
  private readonly seenDocuments = new Set<string>();
  private readonly seenRows = new Set<string>();

  addApi(reference: ApiReference): void {
    const key = JSON.stringify([reference.type, reference.id, reference.propertyName]);
    if (this.seenDocuments.has(key)) return;
    this.seenDocuments.add(key);
    this.documents.push(reference);
  }

  addRow(row: ReferenceRow): void {
    const key = JSON.stringify([
      row.targetType,
      row.targetId,
      row.location,
      row.propertyName,
      row.componentId,
      row.componentName,
      row.directiveName,
      row.serviceName,
    ]);
    if (this.seenRows.has(key)) return;
    this.seenRows.add(key);
    this.rows.push(row);
  }
}

/**
 * Everything a document points at (api-spec §2.2–2.4): document and media references in its metadata,
 * link, include and image directives. Ids are always strings; duplicates are dropped, first seen wins.
 */
export function extractReferences(metadata: Metadata, content: Content): ExtractedReferences {
  const collector = new ReferenceCollector();
  for (const [propertyName, value] of Object.entries(metadata)) {
    if (propertyName === 'language' && isObject(value)) {
      const groupId = asId(value.groupId);
      if (groupId !== undefined) {
        collector.addApi({ id: groupId, type: 'language-group', location: 'metadata', propertyName });
      }
      continue;
    }
    collectMetadataValue(value, propertyName, collector);
  }
  for (const component of walkComponents(content)) {
    collectComponent(component, collector);
  }
  return { documents: collector.documents, rows: collector.rows };
}

/**
 * The documents and media entries one metadata property's value references (as extractReferences finds them
 * there; a language group is neither), in order, once each.
 */
export function metadataReferences(
  propertyName: string,
  value: unknown,
): { targetType: ReferenceTargetType; id: string }[] {
  const { rows } = extractReferences({ [propertyName]: value }, []);
  return uniqueTargets(rows.map((row) => ({ targetType: row.targetType, id: row.targetId })));
}

/**
 * The documents and media entries an include directive's params reference (`$ref` document(s) or media, the
 * legacy teaser's `mediaId`, which names a document), each with its param, in order, once each.
 */
export function includeReferences(
  params: Json,
): { param: string; targetType: ReferenceTargetType; id: string }[] {
  const collector = new ReferenceCollector();
  collectInclude({ service: '', params }, { directiveName: '' }, collector);
  return collector.rows.map((row) => ({
    param: row.propertyName!,
    targetType: row.targetType,
    id: row.targetId,
  }));
}

function uniqueTargets<T extends { targetType: ReferenceTargetType; id: string }>(targets: T[]): T[] {
  const seen = new Set<string>();
  return targets.filter((target) => {
    const key = `${target.targetType}:${target.id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Looks through nested objects and arrays of one metadata property, but never into a preloaded value. */
function collectMetadataValue(value: unknown, propertyName: string, collector: ReferenceCollector): void {
  if (Array.isArray(value)) {
    for (const item of value) collectMetadataValue(item, propertyName, collector);
    return;
  }
  if (!isObject(value)) return;
  const targets = refTargets(value);
  if (targets) {
    for (const id of targets.ids) {
      collector.addRow({ targetType: targets.targetType, targetId: id, location: 'metadata', propertyName });
      if (targets.targetType === 'document') {
        collector.addApi({ id, type: 'document', location: 'metadata', propertyName });
      }
    }
    return;
  }
  const mediaId = asId(value.mediaId);
  if (mediaId !== undefined) {
    collector.addRow({ targetType: 'media', targetId: mediaId, location: 'metadata', propertyName });
  }
  for (const nested of Object.values(value)) collectMetadataValue(nested, propertyName, collector);
}

function collectComponent(component: Component, collector: ReferenceCollector): void {
  if (!isObject(component.content)) return;
  const where = {
    ...(typeof component.id === 'string' ? { componentId: component.id } : {}),
    ...(componentName(component) ? { componentName: componentName(component) } : {}),
  };
  for (const [directiveName, value] of Object.entries(component.content)) {
    if (!isObject(value)) continue;
    if (isIncludeDirective(value)) {
      collectInclude(value, { ...where, directiveName }, collector);
      continue;
    }
    const targets = refTargets(value);
    if (targets) {
      // A document $ref in content is a link; a media $ref can only be an image.
      const location = targets.targetType === 'document' ? 'link-directive' : 'image-directive';
      for (const id of targets.ids) {
        collector.addRow({ targetType: targets.targetType, targetId: id, location, ...where, directiveName });
      }
      continue;
    }
    const mediaId = asId(value.mediaId);
    if (mediaId !== undefined) {
      collector.addRow({
        targetType: 'media',
        targetId: mediaId,
        location: 'image-directive',
        ...where,
        directiveName,
      });
    }
  }
}

function collectInclude(
  include: IncludeDirective,
  where: { componentId?: string; componentName?: string; directiveName: string },
  collector: ReferenceCollector,
): void {
  const serviceName = include.service;
  for (const [param, value] of Object.entries(include.params)) {
    const base = { location: 'include-directive' as const, propertyName: param, ...where, serviceName };
    if (isObject(value)) {
      const targets = refTargets(value);
      if (!targets) continue;
      for (const id of targets.ids)
        collector.addRow({ targetType: targets.targetType, targetId: id, ...base });
      continue;
    }
    // The legacy teaser include (most includes of test/fixtures/magazine) names the teased document `mediaId`.
    const legacyDocumentId = param === 'mediaId' ? asId(value) : undefined;
    if (legacyDocumentId !== undefined) {
      collector.addRow({ targetType: 'document', targetId: legacyDocumentId, ...base });
    }
  }
}
