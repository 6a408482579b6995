import type { Request, Router } from 'express';
import {
  documentCursorKey,
  mediaCursorKey,
  openIncomingCursor,
  type IncomingPage,
} from '../../../domain/incoming-references';
import { cursorAnswer, type CursorCodec } from '../../../domain/search-cursor';
import { parseQueryOrThrow } from '../../query-params';
import { parseOrThrow, valueOrThrow, type Checked } from '../../../domain/validation';
import { INCOMING_CURSOR_SIGNATURES, type IncomingPageAnswer } from '../../../reads/incoming-references';
import { requireScope } from '../../middleware/authenticate';
import type { RouteDeps } from '../deps';
import { documentIdParams } from './document-commands.schema';
import { incomingReferencesQuery } from './incoming-references.schema';

/** A bare array up to 2025-11; `{results, total, cursor}` from 2026-01 (api-spec §4.20 rule 2). */
function answer<T>(req: Request, page: IncomingPageAnswer<T>) {
  return req.apiVersion.wrapsLists
    ? { results: page.results, total: page.total, cursor: cursorAnswer(page.cursor) }
    : page.results;
}

/**
 * How the incoming-reference lists of one kind of target (`noun`: a document here, a media library entry in
 * src/http/routes/media-library/media-library.routes.ts) read the page a request asks for on the list of
 * `endpoint` of target `id`: the query of `query`, and its cursor opened as one of that list in the token's
 * project (openIncomingCursor).
 */
export function incomingPages(cursors: CursorCodec, query: typeof incomingReferencesQuery, noun: string) {
  return <K>(
    req: Request,
    id: string | number,
    endpoint: string,
    keyOf: (values: readonly unknown[]) => Checked<K>,
  ): IncomingPage<K> & { withTotal: boolean } => {
    const { after, ...page } = parseQueryOrThrow(query(req.apiVersion), req.query);
    const target = { projectId: req.auth.projectId, id, noun };
    const key = openIncomingCursor(cursors, after, endpoint, target, keyOf);
    return { ...page, after: valueOrThrow(key), withTotal: req.apiVersion.wrapsLists };
  };
}

/**
 * GET documents/{documentId}/incomingDocumentReferences and incomingMediaReferences (api-spec §4.12, §4.13)
 * and GET drafts/{documentId}/incomingDocumentReferences (§4.18, scope public-api:drafts:read): who points at
 * a document of the project, paged by ascending source id. Another project's document is a 404.
 */
export function incomingReferenceRoutes(
  router: Router,
  { auth, reads, cursors }: Pick<RouteDeps, 'auth' | 'reads' | 'cursors'>,
): void {
  const pageOf = incomingPages(cursors, incomingReferencesQuery, 'document');
  router.get(
    '/documents/:documentId/incomingDocumentReferences',
    ...auth,
    requireScope('public-api:read'),
    async (req, res) => {
      const { documentId } = parseOrThrow(documentIdParams, req.params);
      const page = await reads.incomingReferences.documentReferences(
        req.auth.projectId,
        documentId,
        'published',
        pageOf(req, documentId, INCOMING_CURSOR_SIGNATURES.published, documentCursorKey),
      );
      res.json(answer(req, page));
    },
  );

  router.get(
    '/documents/:documentId/incomingMediaReferences',
    ...auth,
    requireScope('public-api:read'),
    async (req, res) => {
      const { documentId } = parseOrThrow(documentIdParams, req.params);
      const page = await reads.incomingReferences.mediaReferences(
        req.auth.projectId,
        documentId,
        pageOf(req, documentId, INCOMING_CURSOR_SIGNATURES.media, mediaCursorKey),
      );
      res.json(answer(req, page));
    },
  );

  router.get(
    '/drafts/:documentId/incomingDocumentReferences',
    ...auth,
    requireScope('public-api:drafts:read'),
    async (req, res) => {
      const { documentId } = parseOrThrow(documentIdParams, req.params);
      const page = await reads.incomingReferences.documentReferences(
        req.auth.projectId,
        documentId,
        'drafts',
        pageOf(req, documentId, INCOMING_CURSOR_SIGNATURES.drafts, documentCursorKey),
      );
      res.json(answer(req, page));
    },
  );
}
