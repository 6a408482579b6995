import type { Content, Metadata } from './content';
import { extractReferences, type ApiReference } from './references';

/** Systemdata of a publication or draft as the API answers it (api-spec §2.1, supplement §4). */
export interface Systemdata {
  projectId: number;
  channelId: number;
  documentId: number;
  publicationId?: number;
  documentType: string;
  contentType: string;
  layout?: string;
  design?: { name: string; version: string };
  firstPublicationDate?: string;
  significantPublicationDate?: string;
  visiblePublicationDate?: string;
  lastPublicationDate?: string;
  updatedAt: string;
  /** latestDraft only: the draft's version, the `version` a commands request is checked against. */
  version?: number;
}

export interface DocumentView {
  systemdata: Systemdata;
  metadata: Metadata;
  content: Content;
  /** Made only when asked for (buildDocumentView): finding them walks the whole content. */
  references?: ApiReference[];
}

/** The facts about a document that its views are made of: the document row, or a row plus a publication. */
export interface ViewSource {
  projectId: number;
  channelId: number;
  documentId: number;
  publicationId?: number;
  documentType: string;
  contentType: string;
  layout: string | null;
  designName: string | null;
  designVersion: string | null;
  metadata: Metadata;
  content: Content;
  updatedAt: Date;
  firstPublicationDate: Date | null;
  lastPublicationDate: Date | null;
  significantPublicationDate: Date | null;
  visiblePublicationDateOverride: Date | null;
  /** A draft's version (latestDraft): shown as `systemdata.version`. Publications have none of their own. */
  draftVersion?: number;
}

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : undefined);

/**
 * The one place that shapes `{systemdata, metadata, content, references}`. The significant and visible
 * publication dates fall back to the first publication date unless the document overrides them. The
 * references are found only when `references` is true: finding them walks the whole content (most of a
 * second for a content of 30 MB), which an answer whose fields leave them out does not need.
 */
export function buildDocumentView(source: ViewSource, { references }: { references: boolean }): DocumentView {
  const systemdata: Systemdata = {
    projectId: source.projectId,
    channelId: source.channelId,
    documentId: source.documentId,
    ...(source.publicationId === undefined ? {} : { publicationId: source.publicationId }),
    documentType: source.documentType,
    contentType: source.contentType,
    ...(source.layout ? { layout: source.layout } : {}),
    ...(source.designName && source.designVersion
      ? { design: { name: source.designName, version: source.designVersion } }
      : {}),
    firstPublicationDate: iso(source.firstPublicationDate),
    significantPublicationDate: iso(source.significantPublicationDate ?? source.firstPublicationDate),
    visiblePublicationDate: iso(source.visiblePublicationDateOverride ?? source.firstPublicationDate),
    lastPublicationDate: iso(source.lastPublicationDate),
    updatedAt: source.updatedAt.toISOString(),
    version: source.draftVersion,
  };
  for (const key of Object.keys(systemdata) as (keyof Systemdata)[]) {
    if (systemdata[key] === undefined) delete systemdata[key];
  }
  return {
    systemdata,
    metadata: source.metadata,
    content: source.content,
    ...(references ? { references: extractReferences(source.metadata, source.content).documents } : {}),
  };
}

export type ViewField = 'systemdata' | 'metadata' | 'content' | 'references';

/** Keeps only the requested top-level fields of a view. */
export function pickFields(view: DocumentView, fields: readonly ViewField[]): Partial<DocumentView> {
  const picked: Partial<DocumentView> = {};
  for (const field of fields) (picked as Record<string, unknown>)[field] = view[field];
  return picked;
}
