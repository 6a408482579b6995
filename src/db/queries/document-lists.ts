import type { ViewSource } from '../../domain/document-view';
import type { Queryable } from '../pool';
import { PUBLICATION_VIEW_COLUMNS, PUBLICATION_VIEW_COLUMNS_WITHOUT_CONTENT } from './latest-publications';

/** The one writer of `document_lists` and their items, `document_list_items`. */
export function documentListQueries(db: Queryable) {
  return {
    /**
     * Replaces the items of the list of that name (created when missing, so a re-run does not duplicate it
     * and the list keeps its id), in editor order.
     */
    async replace(projectId: number, name: string, documentIds: readonly number[]): Promise<number> {
      const result = await db.query<{ id: number }>(
        `INSERT INTO document_lists (project_id, name) VALUES ($1, $2)
         ON CONFLICT (project_id, name) DO UPDATE SET updated_at = now()
         RETURNING id`,
        [projectId, name],
      );
      const listId = result.rows[0]!.id;
      await db.query('DELETE FROM document_list_items WHERE list_id = $1', [listId]);
      await db.query(
        `INSERT INTO document_list_items (list_id, document_id, position)
         SELECT $1, document_id, position - 1 FROM unnest($2::bigint[]) WITH ORDINALITY AS t(document_id, position)`,
        [listId, documentIds],
      );
      return listId;
    },

    /**
     * The published documents of each of the project's lists, in editor order, at most its limit (list id →
     * limit); empty for a list of another project or none. What includes of the lists resolve to, read in one
     * query however many lists the content names.
     */
    async findPublishedDocumentIds(
      projectId: number,
      limits: ReadonlyMap<number, number>,
    ): Promise<Map<number, number[]>> {
      const lists = new Map([...limits.keys()].map((listId): [number, number[]] => [listId, []]));
      if (limits.size === 0) return lists;
      const result = await db.query<{ listId: number; id: number }>(
        `SELECT l.id AS "listId", item.id
         FROM unnest($2::bigint[], $3::int[]) AS wanted(list_id, reach)
         JOIN document_lists l ON l.id = wanted.list_id AND l.project_id = $1
         CROSS JOIN LATERAL (
           SELECT d.id, i.position FROM document_list_items i
           JOIN documents d ON d.id = i.document_id AND d.project_id = l.project_id
           WHERE i.list_id = l.id AND d.latest_publication_id IS NOT NULL
           ORDER BY i.position, d.id
           LIMIT wanted.reach
         ) item
         ORDER BY l.id, item.position, item.id`,
        [projectId, [...limits.keys()], [...limits.values()]],
      );
      for (const row of result.rows) lists.get(row.listId)!.push(row.id);
      return lists;
    },
  };
}

/** A document list as GET document-lists answers it, without its documents (supplement §8). */
export interface DocumentListRow {
  id: number;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

const LIST_COLUMNS = 'l.id, l.name, l.created_at AS "createdAt", l.updated_at AS "updatedAt"';

/**
 * How list names compare: Unicode's root collation (ICU, built into Postgres), not the database's own, which
 * depends on how it was created: by code point in a C or C.UTF-8 database ('Zebra' before 'apple', 'Ñews'
 * after 'zoo'), where lower() and ILIKE also left 'Ñ' and 'ñ' apart. In this one, letters first, then accents,
 * then case: apple, eclair, Éclair, news, News, Ñews, Zebra. Names stay unique as spelt ('news' and 'News'
 * are two lists): only the order and the case-insensitive matching use it.
 */
const BY_NAME = 'COLLATE "und-x-icu"';

/** `%`, `_` and `\` of a name searched for stand for themselves in ILIKE. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The operators' writes of lists (`broadsheet list create|add`): one list per name within a project. */
export function documentListEditQueries(db: Queryable) {
  return {
    /** A new empty list, or undefined when the project already has a list of that name. */
    async create(projectId: number, name: string): Promise<DocumentListRow | undefined> {
      const result = await db.query<DocumentListRow>(
        `INSERT INTO document_lists AS l (project_id, name) VALUES ($1, $2)
         ON CONFLICT (project_id, name) DO NOTHING
         RETURNING ${LIST_COLUMNS}`,
        [projectId, name],
      );
      return result.rows[0];
    },

    /** The list with its project, locked for an edit; undefined when there is no such list. */
    async findForUpdate(listId: number): Promise<(DocumentListRow & { projectId: number }) | undefined> {
      const result = await db.query<DocumentListRow & { projectId: number }>(
        `SELECT ${LIST_COLUMNS}, l.project_id AS "projectId" FROM document_lists l WHERE l.id = $1::bigint FOR UPDATE`,
        [listId],
      );
      return result.rows[0];
    },

    /**
     * Appends the documents after the list's last item, in the order given; ids already in the list stay
     * where they are. The ids of the documents added. The list's updatedAt moves only when one was: a call
     * that adds nothing leaves the list, and what GET document-lists answers about it (its ETag too), as it was.
     */
    async append(listId: number, documentIds: readonly number[]): Promise<number[]> {
      const result = await db.query<{ documentId: number }>(
        `INSERT INTO document_list_items (list_id, document_id, position)
         SELECT $1, t.document_id,
           (SELECT coalesce(max(position), -1) FROM document_list_items WHERE list_id = $1) + t.n
         FROM unnest($2::bigint[]) WITH ORDINALITY AS t(document_id, n)
         ON CONFLICT (list_id, document_id) DO NOTHING
         RETURNING document_id AS "documentId"`,
        [listId, documentIds],
      );
      if (result.rows.length > 0) {
        await db.query('UPDATE document_lists SET updated_at = now() WHERE id = $1', [listId]);
      }
      return result.rows.map((row) => row.documentId);
    },
  };
}

/** Reads of lists for GET document-lists[/{id}] (api-spec §4.7, §4.8): only the project's own lists. */
export function documentListReadQueries(db: Queryable) {
  return {
    /**
     * The project's lists whose name contains `name` (case-insensitive; all without it): the name as spelt
     * first, then as spelt in another case, then by name (BY_NAME) and id.
     */
    async search(
      projectId: number,
      query: { name?: string | undefined; limit: number; offset: number },
    ): Promise<DocumentListRow[]> {
      const result = await db.query<DocumentListRow>(
        `SELECT ${LIST_COLUMNS} FROM document_lists l
         WHERE l.project_id = $1 AND ($2::text IS NULL OR l.name ${BY_NAME} ILIKE $3)
         ORDER BY l.name = $2 DESC NULLS LAST, lower(l.name ${BY_NAME}) = lower($2 ${BY_NAME}) DESC NULLS LAST,
           l.name ${BY_NAME}, l.id
         LIMIT $4 OFFSET $5`,
        [
          projectId,
          query.name ?? null,
          query.name === undefined ? null : likePattern(query.name),
          query.limit,
          query.offset,
        ],
      );
      return result.rows;
    },

    async findById(projectId: number, listId: number): Promise<DocumentListRow | undefined> {
      const result = await db.query<DocumentListRow>(
        `SELECT ${LIST_COLUMNS} FROM document_lists l WHERE l.project_id = $1 AND l.id = $2::bigint`,
        [projectId, listId],
      );
      return result.rows[0];
    },

    /**
     * The latest publications of the first `limit` published documents of each list, in list order (editor
     * order, or newest-added first with `reverse`); items whose document is not published are skipped. Each
     * list is walked along its position index and stops at its limit: numbering every item of the list to
     * keep the first few read all of them (5 s for a list of 300,000), on every read. Without `content`, the
     * sources' content is empty (not fetched).
     */
    async publishedDocuments(
      projectId: number,
      listIds: readonly number[],
      options: { limit: number; reverse: boolean; content: boolean },
    ): Promise<(ViewSource & { listId: number })[]> {
      if (listIds.length === 0 || options.limit === 0) return [];
      const order = options.reverse ? 'DESC' : 'ASC';
      const columns = options.content ? PUBLICATION_VIEW_COLUMNS : PUBLICATION_VIEW_COLUMNS_WITHOUT_CONTENT;
      const result = await db.query<ViewSource & { listId: number }>(
        `SELECT item.list_id AS "listId", ${columns}
         FROM unnest($2::int[]) AS wanted(list_id)
         CROSS JOIN LATERAL (
           SELECT i.list_id, i.position, i.document_id FROM document_list_items i
           JOIN documents d ON d.id = i.document_id
           WHERE i.list_id = wanted.list_id AND d.project_id = $1 AND d.latest_publication_id IS NOT NULL
           ORDER BY i.position ${order}
           LIMIT $3
         ) item
         JOIN documents d ON d.id = item.document_id
         JOIN publications p ON p.id = d.latest_publication_id
         ORDER BY item.list_id, item.position ${order}`,
        [projectId, listIds, options.limit],
      );
      return result.rows;
    },
  };
}

/** The operators' overview (`broadsheet list ls`): every list of the project with its item counts. */
export function documentListOverviewQueries(db: Queryable) {
  return {
    async summaries(projectId: number): Promise<(DocumentListRow & { items: number; published: number })[]> {
      const result = await db.query<DocumentListRow & { items: number; published: number }>(
        `SELECT ${LIST_COLUMNS}, count(d.id)::int AS items,
           count(d.id) FILTER (WHERE d.latest_publication_id IS NOT NULL)::int AS published
         FROM document_lists l
         LEFT JOIN document_list_items i ON i.list_id = l.id
         LEFT JOIN documents d ON d.id = i.document_id AND d.project_id = l.project_id
         WHERE l.project_id = $1
         GROUP BY l.id ORDER BY l.name ${BY_NAME}, l.id`,
        [projectId],
      );
      return result.rows;
    },
  };
}
