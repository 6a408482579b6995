import type { Queryable } from '../db/pool';
import { documentReferenceQueries } from '../db/queries/document-references';
import { mediaQueries } from '../db/queries/media';
import { mediaReferenceQueries } from '../db/queries/media-references';
import type { ApiVersion } from '../domain/api-versions';
import { AppError } from '../domain/errors';
import { quoted } from '../domain/shown-input';
import { incomingCursorSignature, nextKey } from '../domain/incoming-references';
import { toApiEntry, type MediaType } from '../domain/media';
import { cursorAnswer, type CursorCodec } from '../domain/search-cursor';
import { withoutTrailingSlashes } from '../domain/trailing-slashes';

/** The endpoints whose `after` cursors are signed apart, each with its entry (incomingCursorSignature). */
export const INCOMING_DOCUMENTS_CURSOR = 'mediaLibrary.incomingDocumentReferences:id';
export const INCOMING_MEDIA_CURSOR = 'mediaLibrary.incomingMediaReferences:id';

/** Where the entries' asset URLs point: the configured PUBLIC_BASE_URL, else the origin the request came to. */
export interface MediaView {
  version: ApiVersion;
  origin: string;
}

/** One page of an incoming-references list, and how to ask for the next one (api-spec §4.20). */
export interface ReferencePage {
  limit: number;
  offset: number;
  /** The id after which the page starts (opened from an `after` cursor at the edge). */
  after?: string | number | undefined;
}

/** GET mediaLibrary, mediaLibrary/{id} and the entry's incoming references (api-spec §2.7, §2.9, §4.18). */
export function mediaLibraryReads(db: Queryable, publicBaseUrl: string | undefined, cursors: CursorCodec) {
  const baseUrl = (view: MediaView) => withoutTrailingSlashes(publicBaseUrl ?? view.origin);
  const present = (view: MediaView) => (row: Parameters<typeof toApiEntry>[0]) =>
    toApiEntry(row, baseUrl(view), view.version.label);

  /**
   * The cursor of a page is its last id, signed for the list (the endpoint, the entry and its project): the
   * next page starts after it. A page shorter than `limit` is the last one and has none (''), as
   * documents/{id}/incoming*References and search (api-spec §4.20), so a client that pages until the cursor is
   * empty never asks for an empty page after a short one.
   */
  function paged<T extends { id: string | number }>(
    results: T[],
    total: number,
    page: ReferencePage,
    version: ApiVersion,
    list: { projectId: number; endpoint: string; id: string },
  ) {
    if (!version.wrapsLists) return results;
    const next = nextKey(results, (item) => item.id, page.limit);
    const signature = incomingCursorSignature(list.endpoint, list.id);
    return {
      results,
      total,
      cursor: cursorAnswer(next === null ? null : cursors.encode([next], signature, list.projectId)),
    };
  }

  /** The entry's media type; 404 for no such entry. */
  async function mediaTypeOf(projectId: number, id: string): Promise<MediaType> {
    const row = await mediaQueries(db).findById(projectId, id);
    if (!row) throw AppError.notFound(`Media library entry ${quoted(id)} not found`);
    return row.mediaType;
  }

  return {
    baseUrl,

    async byId(projectId: number, id: string, view: MediaView) {
      const row = await mediaQueries(db).findById(projectId, id);
      if (!row) throw AppError.notFound(`Media library entry ${quoted(id)} not found`);
      return present(view)(row);
    },

    /** By ids (in the order asked, unknown ones left out) or by a system's external id; `{results}` from 2026-01. */
    async list(
      projectId: number,
      query: { ids: string[] } | { systemName: string; externalId: string },
      view: MediaView,
    ) {
      const queries = mediaQueries(db);
      const rows =
        'ids' in query
          ? await queries.findByIds(projectId, query.ids)
          : [await queries.findByExternalId(projectId, query.systemName, query.externalId)].flatMap((row) =>
              row ? [row] : [],
            );
      const entries = rows.map(present(view));
      return view.version.wrapsLists ? { results: entries } : entries;
    },

    /**
     * The published documents that use the entry (image directives, image metadata), by document id; 404 for
     * no such entry. A bare array up to 2025-11, `{results, total, cursor}` from 2026-01.
     */
    async incomingDocumentReferences(
      projectId: number,
      id: string,
      page: ReferencePage,
      version: ApiVersion,
    ) {
      const mediaType = await mediaTypeOf(projectId, id);
      const after = typeof page.after === 'number' ? page.after : undefined;
      const { groups, total } = await documentReferenceQueries(db).incomingToMedia(
        projectId,
        { id, mediaType },
        { ...page, afterId: after },
      );
      return paged(groups, total, page, version, { projectId, endpoint: INCOMING_DOCUMENTS_CURSOR, id });
    },

    /** The media entries whose metadata refers to the entry, by entry id; 404 for no such entry. */
    async incomingMediaReferences(projectId: number, id: string, page: ReferencePage, version: ApiVersion) {
      const mediaType = await mediaTypeOf(projectId, id);
      const after = typeof page.after === 'string' ? page.after : undefined;
      const { groups, total } = await mediaReferenceQueries(db).incomingTo(
        projectId,
        { type: 'media', id, shownAs: mediaType },
        {
          ...page,
          afterId: after,
        },
      );
      return paged(groups, total, page, version, { projectId, endpoint: INCOMING_MEDIA_CURSOR, id });
    },
  };
}

export type MediaLibraryReads = ReturnType<typeof mediaLibraryReads>;
