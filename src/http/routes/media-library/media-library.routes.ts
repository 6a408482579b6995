import type { Request, Router } from 'express';
import { documentCursorKey, mediaCursorKey } from '../../../domain/incoming-references';
import { fromZodIssues, issuesToPaths, parseOrThrow, readableIssueMessage } from '../../../domain/validation';
import { INCOMING_DOCUMENTS_CURSOR, INCOMING_MEDIA_CURSOR } from '../../../reads/media-library';
import { requireScope } from '../../middleware/authenticate';
import { jsonBody } from '../../middleware/json-body';
import { answerIsTheTargetsRepresentation } from '../../middleware/write-validators';
import type { RouteDeps } from '../deps';
import { incomingPages } from '../documents/incoming-references.routes';
import {
  importMediaBody,
  importMediaEntry,
  importReadOnlyField,
  incomingReferencesQuery,
  mediaListQuery,
  mediaParams,
  patchMediaBody,
  uploadQuery,
} from './media-library.schema';
import type { ImportMediaInput } from '../../../commands/import-media';
import { requestLifetime } from '../../request-lifetime';
import { preconditionHeaders, writePreconditionsOf } from '../../conditional-get';
import { noQueryParams, parseQueryOrThrow } from '../../query-params';

/** Where this request came to: the base of asset URLs when PUBLIC_BASE_URL is not configured. */
const originOf = (req: Request) => `${req.protocol}://${req.get('host') ?? 'localhost'}`;

/**
 * The media library (api-spec §2.7, §3.2, §4.18; supplement §9): entries by id, by ids or by external id,
 * their incoming references, the patch of revocation and metadata, the import, and the upload of bytes for it.
 * serve-image is src/http/routes/media-library/serve-image.routes.ts's.
 */
export function mediaLibraryRoutes(
  router: Router,
  { auth, reads, commands, cursors }: Pick<RouteDeps, 'auth' | 'reads' | 'commands' | 'cursors'>,
): void {
  const pageOf = incomingPages(cursors, incomingReferencesQuery, 'media library entry');
  router.get('/mediaLibrary', ...auth, requireScope('public-api:read'), async (req, res) => {
    const query = parseQueryOrThrow(mediaListQuery, req.query);
    res.json(
      await reads.mediaLibrary.list(req.auth.projectId, query, {
        version: req.apiVersion,
        origin: originOf(req),
      }),
    );
  });

  router.post('/mediaLibrary/uploads', ...auth, requireScope('public-api:write'), async (req, res) => {
    const { filename } = parseQueryOrThrow(uploadQuery, req.query);
    const length = req.headers['content-length'];
    const upload = await commands.uploadMedia(req.auth.projectId, {
      body: req,
      contentType: req.headers['content-type'],
      contentEncoding: req.headers['content-encoding'],
      contentLength: length === undefined ? undefined : Number(length),
      filename,
      signal: requestLifetime(res),
    });
    res.status(201).json(upload);
  });

  router.get('/mediaLibrary/:id', ...auth, requireScope('public-api:read'), async (req, res) => {
    const { id } = parseOrThrow(mediaParams, req.params);
    parseQueryOrThrow(noQueryParams, req.query);
    res.json(
      await reads.mediaLibrary.byId(req.auth.projectId, id, {
        version: req.apiVersion,
        origin: originOf(req),
      }),
    );
  });

  router.get(
    '/mediaLibrary/:id/incomingDocumentReferences',
    ...auth,
    requireScope('public-api:read'),
    async (req, res) => {
      const { id } = parseOrThrow(mediaParams, req.params);
      const page = pageOf(req, id, INCOMING_DOCUMENTS_CURSOR, documentCursorKey);
      res.json(
        await reads.mediaLibrary.incomingDocumentReferences(req.auth.projectId, id, page, req.apiVersion),
      );
    },
  );

  router.get(
    '/mediaLibrary/:id/incomingMediaReferences',
    ...auth,
    requireScope('public-api:read'),
    async (req, res) => {
      const { id } = parseOrThrow(mediaParams, req.params);
      const page = pageOf(req, id, INCOMING_MEDIA_CURSOR, mediaCursorKey);
      res.json(
        await reads.mediaLibrary.incomingMediaReferences(req.auth.projectId, id, page, req.apiVersion),
      );
    },
  );

  router.patch('/mediaLibrary/:id', ...auth, requireScope('public-api:write'), jsonBody, async (req, res) => {
    const { id } = parseOrThrow(mediaParams, req.params);
    parseQueryOrThrow(noQueryParams, req.query);
    const body = parseOrThrow(patchMediaBody(req.apiVersion), req.body);
    const entry = await commands.patchMedia(
      { projectId: req.auth.projectId, id, ...body, ...writePreconditionsOf(preconditionHeaders(req)) },
      {
        version: req.apiVersion,
        baseUrl: reads.mediaLibrary.baseUrl({ version: req.apiVersion, origin: originOf(req) }),
      },
    );
    // The entry as GET mediaLibrary/{id} answers it (the same view, version and origin): its ETag is the GET's.
    answerIsTheTargetsRepresentation(res);
    res.json(entry);
  });

  router.post(
    '/import/mediaLibrary',
    ...auth,
    requireScope('public-api:write'),
    jsonBody,
    async (req, res) => {
      parseQueryOrThrow(noQueryParams, req.query);
      const body = parseOrThrow(importMediaBody, req.body);
      // Each entry on its own: an invalid one is its own 400 in the results, the others still import.
      // Its problems are keyed inside the entry (`asset.url`); one with the entry itself (not an object) by
      // where it is in the body, as document commands key `commands.0`: at the root it would read as the body's.
      const inputs: ImportMediaInput[] = body.mediaLibraryEntries.map((raw, index) => {
        const parsed = importMediaEntry.safeParse(raw, { error: readableIssueMessage });
        if (parsed.success) return { ok: true, entry: parsed.data };
        const issues = fromZodIssues(parsed.error.issues, importReadOnlyField).map((issue) =>
          issue.path.length === 0 ? { ...issue, path: ['mediaLibraryEntries', index] } : issue,
        );
        return { ok: false, details: issuesToPaths(issues) };
      });
      const results = await commands.importMedia(
        req.auth.projectId,
        inputs,
        {
          version: req.apiVersion,
          baseUrl: reads.mediaLibrary.baseUrl({ version: req.apiVersion, origin: originOf(req) }),
        },
        requestLifetime(res),
      );
      res.json(req.apiVersion.wrapsLists ? { results } : results);
    },
  );
}
