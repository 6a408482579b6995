import type { Queryable } from '../db/pool';
import { documentQueries } from '../db/queries/documents';
import { latestPublicationQueries } from '../db/queries/latest-publications';
import type { ProjectRow } from '../db/queries/projects';
import {
  applyComponentConditions,
  conditionContext,
  hasConditions,
  type ConditionRequest,
} from '../domain/component-conditions';
import {
  buildDocumentView,
  pickFields,
  type DocumentView,
  type ViewField,
  type ViewSource,
} from '../domain/document-view';
import type { Content } from '../domain/content';
import { AppError } from '../domain/errors';
import { conditionDefaults } from '../domain/project-config';
import { renditionSteps, type Rendition } from '../domain/renditions';
import { runInSlices, throwIfAbandoned } from '../time-slices';

/** documents/{id}/latestDraft and latestPublication as the edge parsed them. */
export interface DocumentViewRead {
  fields: readonly ViewField[];
  /** Rendition handles (up to 2025-07): the view gets a `renditions` array of them. */
  renditions?: readonly string[] | undefined;
  /** null: the client asked to ignore component conditions. */
  conditions: ConditionRequest | null;
}

/**
 * The view with the project's component conditions applied as the request asks, its references found only
 * when `fields` has them. Content without conditions is not walked twice, and applying them copies only what
 * held a dropped component (applyComponentConditions): a copy per component was tens of ms for a 1 MB
 * content, the same answer.
 */
export function viewOf(
  project: ProjectRow,
  source: ViewSource,
  conditions: ConditionRequest | null,
  fields: readonly ViewField[],
): DocumentView {
  const context = conditions && conditionContext(conditions, conditionDefaults(project.config));
  const unchanged = context === null || (Array.isArray(source.content) && !hasConditions(source.content));
  return buildDocumentView(
    { ...source, content: unchanged ? source.content : applyComponentConditions(source.content, context) },
    { references: fields.includes('references') },
  );
}

/**
 * The renditions rendered in slices: a 2 MB content takes seconds, which other requests need not wait for;
 * stopped once `signal` says the client went away.
 */
function renditionsOf(
  content: Content,
  handles: readonly string[],
  signal: AbortSignal | undefined,
): Promise<Rendition[]> {
  return runInSlices((pause) => renditionSteps(content, handles, pause), signal);
}

async function answer(
  view: DocumentView,
  read: DocumentViewRead,
  signal: AbortSignal | undefined,
): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = pickFields(view, read.fields);
  if (read.renditions !== undefined)
    body.renditions = await renditionsOf(view.content, read.renditions, signal);
  return body;
}

/**
 * A document's draft and latest publication from Postgres. Another project's document is not found. `signal`
 * (the request's lifetime): once the client went away, what is left of the read is not done (RequestAbandonedError).
 */
export function documentReads(db: Queryable) {
  async function publicationView(
    project: ProjectRow,
    documentId: number,
    conditions: ConditionRequest | null,
    fields: readonly ViewField[],
    signal: AbortSignal | undefined,
  ): Promise<DocumentView> {
    const source = await latestPublicationQueries(db).findViewSource(project.id, documentId);
    if (!source) throw AppError.notFound(`Document ${documentId} has no publication`);
    throwIfAbandoned(signal);
    return viewOf(project, source, conditions, fields);
  }

  return {
    /**
     * documents/{id}/latestDraft (api-spec §4.14): the draft as it is now, without publicationId, with its version
     * (what a commands request sends as `version` to be refused when someone changed the draft since).
     */
    async latestDraft(project: ProjectRow, documentId: number, read: DocumentViewRead, signal?: AbortSignal) {
      const document = await documentQueries(db).findById(project.id, documentId);
      if (!document) throw AppError.notFound(`Document ${documentId} not found`);
      throwIfAbandoned(signal);
      const source = { ...document, documentId: document.id, draftVersion: document.version };
      return answer(viewOf(project, source, read.conditions, read.fields), read, signal);
    },

    /** documents/{id}/latestPublication (api-spec §4.19): unpublished documents are not found. */
    async latestPublication(
      project: ProjectRow,
      documentId: number,
      read: DocumentViewRead,
      signal?: AbortSignal,
    ) {
      const view = await publicationView(project, documentId, read.conditions, read.fields, signal);
      return answer(view, read, signal);
    },

    /**
     * documents/{id}/latestPublication/renditions/{handles} (up to 2025-07), with the component conditions asked
     * for (null: ignored).
     */
    async latestPublicationRenditions(
      project: ProjectRow,
      documentId: number,
      handles: readonly string[],
      conditions: ConditionRequest | null,
      signal?: AbortSignal,
    ): Promise<Rendition[]> {
      const view = await publicationView(project, documentId, conditions, ['content'], signal);
      return renditionsOf(view.content, handles, signal);
    },
  };
}

export type DocumentReads = ReturnType<typeof documentReads>;
