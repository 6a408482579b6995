import type { Queryable } from '../pool';

/** A planning tool's element and the document it is linked to (planner/element). */
export interface PlannerElementRow {
  elementId: string;
  documentId: number;
  /** The element's body as the tool last sent it. */
  element: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `element_id AS "elementId", document_id AS "documentId", element,
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The one writer of `planner_elements`. */
export function plannerElementQueries(db: Queryable) {
  return {
    /**
     * Holds the tool's element id until the transaction ends, linked or not: a row lock cannot guard an element
     * that has no row yet, so two POSTs of one new element would both create a draft and one would fail on
     * the link's unique key. The second waits, then finds the first's link.
     */
    async lockElementId(projectId: number, elementId: string): Promise<void> {
      await db.query(
        `SELECT pg_advisory_xact_lock(hashtext('planner_elements'), hashtext($1::text || ':' || $2))`,
        [projectId, elementId],
      );
    },

    /** The link of the tool's element, locked for the rest of the transaction. */
    async findByElementIdForUpdate(
      projectId: number,
      elementId: string,
    ): Promise<PlannerElementRow | undefined> {
      const result = await db.query<PlannerElementRow>(
        `SELECT ${COLUMNS} FROM planner_elements WHERE project_id = $1 AND element_id = $2 FOR UPDATE`,
        [projectId, elementId],
      );
      return result.rows[0];
    },

    /** The link of the document, locked for the rest of the transaction. */
    async findByDocumentIdForUpdate(
      projectId: number,
      documentId: number,
    ): Promise<PlannerElementRow | undefined> {
      const result = await db.query<PlannerElementRow>(
        `SELECT ${COLUMNS} FROM planner_elements WHERE project_id = $1 AND document_id = $2 FOR UPDATE`,
        [projectId, documentId],
      );
      return result.rows[0];
    },

    /**
     * The link of the document, not locked: for a writer that holds the document's row already. Every link to
     * a document is inserted by a transaction holding that row, so what this reads is settled; locking the
     * link's row too would wait for a writer of the element that in turn waits for the document (a deadlock).
     */
    async findByDocumentId(projectId: number, documentId: number): Promise<PlannerElementRow | undefined> {
      const result = await db.query<PlannerElementRow>(
        `SELECT ${COLUMNS} FROM planner_elements WHERE project_id = $1 AND document_id = $2`,
        [projectId, documentId],
      );
      return result.rows[0];
    },

    async insert(
      projectId: number,
      link: { elementId: string; documentId: number; element: unknown },
    ): Promise<void> {
      await db.query(
        `INSERT INTO planner_elements (project_id, element_id, document_id, element) VALUES ($1, $2, $3, $4)`,
        [projectId, link.elementId, link.documentId, JSON.stringify(link.element)],
      );
    },

    /** Keeps the element as the tool sent it this time. */
    async saveElement(projectId: number, elementId: string, element: unknown): Promise<void> {
      await db.query(
        'UPDATE planner_elements SET element = $3, updated_at = now() WHERE project_id = $1 AND element_id = $2',
        [projectId, elementId, JSON.stringify(element)],
      );
    },

    /** Removes the document's link; false when it had none. */
    async deleteByDocumentId(projectId: number, documentId: number): Promise<boolean> {
      const result = await db.query(
        'DELETE FROM planner_elements WHERE project_id = $1 AND document_id = $2',
        [projectId, documentId],
      );
      return (result.rowCount ?? 0) > 0;
    },
  };
}
