import type { Queryable } from '../db/pool';
import { documentListReadQueries, type DocumentListRow } from '../db/queries/document-lists';
import type { ProjectRow } from '../db/queries/projects';
import type { ConditionRequest } from '../domain/component-conditions';
import { pickFields, type ViewField, type ViewSource } from '../domain/document-view';
import { AppError } from '../domain/errors';
import { SLICE_WORK, runInSlices } from '../time-slices';
import { viewOf } from './documents';

/** The fields a list's documents may have (api-spec §4.8: content also accepted, no renditions). */
export type ListDocumentField = Extract<ViewField, 'systemdata' | 'metadata' | 'content'>;

/** GET document-lists as the edge parsed it (api-spec §4.7). */
export interface DocumentListsRead {
  name?: string | undefined;
  /** Documents resolved per list. */
  limit: number;
  /** Lists skipped. */
  offset: number;
}

/** GET document-lists/{id} as the edge parsed it (api-spec §4.8). */
export interface DocumentListRead {
  reverse: boolean;
  fields: readonly ListDocumentField[];
  limit: number;
  /** null: the client asked to ignore component conditions. */
  conditions: ConditionRequest | null;
}

/** At most this many lists in one answer of GET document-lists; `offset` pages through more. */
export const LISTS_PER_PAGE = 100;

/** The listing's documents: systemdata and metadata, newest-added first (supplement §8's default). */
const LISTING_FIELDS: readonly ListDocumentField[] = ['systemdata', 'metadata'];

function listBody(list: DocumentListRow, documents: unknown[]) {
  return {
    id: list.id,
    name: list.name,
    documents,
    createdAt: list.createdAt.toISOString(),
    updatedAt: list.updatedAt.toISOString(),
  };
}

/** Document lists of a project with their published documents resolved (supplement §8). */
export function documentListReads(db: Queryable) {
  const queries = documentListReadQueries(db);

  /**
   * The documents' views, made in slices (runInSlices): with their content, each can take tens of ms (its
   * conditions applied, its references found), and a list shows up to 100. Stopped once `signal` (the
   * request's lifetime) says the client went away.
   */
  function documentsOf(
    project: ProjectRow,
    sources: readonly ViewSource[],
    fields: readonly ListDocumentField[],
    conditions: ConditionRequest | null,
    signal: AbortSignal | undefined,
  ) {
    return runInSlices(function* (pause) {
      const documents = [];
      for (const source of sources) {
        // A document is large work: the clock is read before each.
        if (pause(SLICE_WORK)) yield;
        documents.push(pickFields(viewOf(project, source, conditions, fields), fields));
      }
      return documents;
    }, signal);
  }

  return {
    /** GET document-lists: the project's lists (by name), each with its first `limit` published documents. */
    async search(project: ProjectRow, read: DocumentListsRead, signal?: AbortSignal) {
      const lists = await queries.search(project.id, {
        name: read.name,
        limit: LISTS_PER_PAGE,
        offset: read.offset,
      });
      const sources = await queries.publishedDocuments(
        project.id,
        lists.map((list) => list.id),
        { limit: read.limit, reverse: true, content: LISTING_FIELDS.includes('content') },
      );
      const documents = await documentsOf(project, sources, LISTING_FIELDS, {}, signal);
      return lists.map((list) =>
        listBody(
          list,
          documents.filter((_, index) => sources[index]!.listId === list.id),
        ),
      );
    },

    /** GET document-lists/{id}: one list of the project with its first `limit` published documents. */
    async byId(project: ProjectRow, listId: number, read: DocumentListRead, signal?: AbortSignal) {
      const list = await queries.findById(project.id, listId);
      if (!list) throw AppError.notFound(`Document list ${listId} not found`);
      const sources = await queries.publishedDocuments(project.id, [list.id], {
        limit: read.limit,
        reverse: read.reverse,
        content: read.fields.includes('content'),
      });
      return listBody(list, await documentsOf(project, sources, read.fields, read.conditions, signal));
    },
  };
}

export type DocumentListReads = ReturnType<typeof documentListReads>;
