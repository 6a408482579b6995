import type { Queryable } from '../db/pool';
import { incomingDocumentReferenceQueries } from '../db/queries/document-references';
import { documentQueries } from '../db/queries/documents';
import { mediaReferenceQueries, type IncomingMediaReferenceGroup } from '../db/queries/media-references';
import { AppError } from '../domain/errors';
import {
  groupIncomingDocumentReferences,
  incomingCursorSignature,
  nextKey,
  type IncomingDocumentItem,
  type IncomingPage,
} from '../domain/incoming-references';
import type { CursorCodec } from '../domain/search-cursor';

/**
 * Whose references a read sees: `published` (documents/{id}/...) the references of published documents as
 * published, to a published document; `drafts` (drafts/{id}/...) those too, and those of every document's
 * current draft, published or not, to any document of the project.
 */
export type ReferenceScope = 'published' | 'drafts';

const SOURCE_KINDS = {
  published: ['publication'],
  drafts: ['publication', 'draft'],
} as const satisfies Record<ReferenceScope, readonly ('draft' | 'publication')[]>;

/**
 * The endpoints whose cursors are signed apart, each with its document (incomingCursorSignature): a cursor of
 * one endpoint or document is refused by another.
 */
export const INCOMING_CURSOR_SIGNATURES = {
  published: 'incomingDocumentReferences:publication',
  drafts: 'incomingDocumentReferences:draft',
  media: 'incomingMediaReferences:document',
} as const;

export interface IncomingPageAnswer<T> {
  results: T[];
  /** Counted only when asked (2026-01 and later answer it). */
  total?: number;
  /** The `after` of the next page when this one is full, else null. */
  cursor: string | null;
}

/** documents/{id}/incomingDocumentReferences, incomingMediaReferences and drafts/{id}/incomingDocumentReferences. */
export function incomingReferenceReads(deps: { db: Queryable; cursors: CursorCodec }) {
  const { db, cursors } = deps;

  async function assertTarget(projectId: number, documentId: number, scope: ReferenceScope): Promise<void> {
    const state = await documentQueries(db).findPublishedState(projectId, documentId);
    if (!state) throw AppError.notFound(`Document ${documentId} not found`);
    if (scope === 'published' && !state.published) {
      throw AppError.notFound(`Document ${documentId} is not published`);
    }
  }

  return {
    /** Documents pointing at the document, in ascending id, `limit` of them per page. */
    async documentReferences(
      projectId: number,
      documentId: number,
      scope: ReferenceScope,
      page: IncomingPage<number> & { withTotal: boolean },
    ): Promise<IncomingPageAnswer<IncomingDocumentItem>> {
      await assertTarget(projectId, documentId, scope);
      const references = incomingDocumentReferenceQueries(db);
      const sourceKinds = SOURCE_KINDS[scope];
      const rows = await references.page(projectId, documentId, sourceKinds, {
        limit: page.limit,
        offset: page.after === undefined ? page.offset : 0,
        afterSourceId: page.after,
      });
      const results = groupIncomingDocumentReferences(rows);
      const next = nextKey(results, (item) => item.id, page.limit);
      return {
        results,
        ...(page.withTotal
          ? { total: await references.countSources(projectId, documentId, sourceKinds) }
          : {}),
        cursor:
          next === null
            ? null
            : cursors.encode(
                [next],
                incomingCursorSignature(INCOMING_CURSOR_SIGNATURES[scope], documentId),
                projectId,
              ),
      };
    },

    /**
     * Media library entries whose metadata (or a translation's) points at the (published) document, in id
     * order: from `media_references`, written in the transaction of every entry write.
     */
    async mediaReferences(
      projectId: number,
      documentId: number,
      page: IncomingPage<string> & { withTotal: boolean },
    ): Promise<IncomingPageAnswer<IncomingMediaReferenceGroup>> {
      await assertTarget(projectId, documentId, 'published');
      const { groups, total } = await mediaReferenceQueries(db).incomingTo(
        projectId,
        { type: 'document', id: String(documentId) },
        {
          limit: page.limit,
          offset: page.after === undefined ? page.offset : 0,
          afterId: page.after,
        },
      );
      const next = nextKey(groups, (item) => item.id, page.limit);
      return {
        results: groups,
        ...(page.withTotal ? { total } : {}),
        cursor:
          next === null
            ? null
            : cursors.encode(
                [next],
                incomingCursorSignature(INCOMING_CURSOR_SIGNATURES.media, documentId),
                projectId,
              ),
      };
    },
  };
}

export type IncomingReferenceReads = ReturnType<typeof incomingReferenceReads>;
