import type { Queryable } from '../pool';

export interface PublicationEventRow {
  id: number;
  createdAt: Date;
  projectId: number;
  channelId: number;
  documentId: number;
  documentType: string;
  eventType: 'publish' | 'unpublish' | 'update';
  publicationId: number | null;
}

type Range<T> = { gt?: T; gte?: T; lt?: T; lte?: T };

export interface PublicationEventFilter {
  projectId: number;
  channelId?: number;
  contentTypes?: string[];
  documentTypes?: string[];
  id?: Range<number>;
  createdAt?: Range<Date>;
  /** Descending id instead of ascending. */
  reverse: boolean;
  limit: number;
}

const OPERATORS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

export interface NewPublicationEvent {
  projectId: number;
  channelId: number;
  documentId: number;
  documentType: string;
  contentType: string;
  eventType: 'publish' | 'unpublish' | 'update';
  publicationId: number | null;
}

/** The one writer of `publication_events`. */
export function publicationEventQueries(db: Queryable) {
  const insertMany = async (projectId: number, events: readonly NewPublicationEvent[]): Promise<void> => {
    if (events.length === 0) return;
    // The lock is a materialised CTE every row is joined with: no row (so no id) before the lock is held.
    // createdAt is read from the clock once the lock is held, at the millisecond the API shows: not the time
    // the request began (a request that waited on a row lock, an import batch that took seconds, would put
    // an event behind ones that committed before it, and a client resuming with createdAt.gt skip it).
    await db.query({
      name: 'publication-events-insert',
      text: `WITH lock AS MATERIALIZED (SELECT pg_advisory_xact_lock(hashtext('publication_events'), $1)),
         at AS MATERIALIZED (SELECT date_trunc('milliseconds', clock_timestamp()) AS created_at FROM lock)
       INSERT INTO publication_events (project_id, channel_id, document_id, document_type, content_type,
         event_type, publication_id, created_at)
       SELECT $1, e.channel_id, e.document_id, e.document_type, e.content_type, e.event_type,
         e.publication_id, at.created_at
       FROM at, ROWS FROM (jsonb_to_recordset($2::jsonb) AS (channel_id integer, document_id bigint,
         document_type text, content_type text, event_type text, publication_id bigint)) WITH ORDINALITY AS e
       ORDER BY e.ordinality`,
      values: [
        projectId,
        JSON.stringify(
          events.map((event) => ({
            channel_id: event.channelId,
            document_id: event.documentId,
            document_type: event.documentType,
            content_type: event.contentType,
            event_type: event.eventType,
            publication_id: event.publicationId,
          })),
        ),
      ],
    });
  };

  return {
    /**
     * Appends an event inside the caller's transaction. Event ids must become visible in id order, or a reader
     * paging by id.gt could skip an event whose transaction commits late: a per-project lock, taken in the
     * same statement before the id is drawn and held until commit, makes id order commit order. Every
     * writer of the project waits for that lock from this statement to its commit, so callers write their
     * events last, just before they commit.
     */
    async insert(event: NewPublicationEvent): Promise<void> {
      await insertMany(event.projectId, [event]);
    },

    /** insert for many events of one project: one lock, one statement, ids in the order given. */
    insertMany,

    /**
     * Events in id order; ids only grow and become visible in id order, and createdAt never falls behind an
     * earlier id (see insert; migration 1795510000000 raised the events written before that). A page costs
     * the same wherever its bounds are: each id and createdAt bound is an index range over the project's ids.
     */
    async list(filter: PublicationEventFilter): Promise<PublicationEventRow[]> {
      const values: unknown[] = [filter.projectId];
      const where = ['e.project_id = $1'];
      const param = (value: unknown) => {
        values.push(value);
        return `$${values.length}`;
      };
      if (filter.channelId !== undefined) where.push(`e.channel_id = ${param(filter.channelId)}`);
      if (filter.contentTypes) where.push(`e.content_type = ANY(${param(filter.contentTypes)}::text[])`);
      if (filter.documentTypes) where.push(`e.document_type = ANY(${param(filter.documentTypes)}::text[])`);
      for (const [op, sql] of Object.entries(OPERATORS) as [keyof typeof OPERATORS, string][]) {
        const id = filter.id?.[op];
        if (id !== undefined) where.push(`e.id ${sql} ${param(id)}`);
        const createdAt = filter.createdAt?.[op];
        if (createdAt === undefined) continue;
        const at = param(createdAt);
        where.push(`e.created_at ${sql} ${at}`);
        // The same bound as an id: createdAt never falls behind an earlier id (insertMany), so the events
        // past a time are the ids from the first of them on (before it: up to the last). Postgres can only
        // walk the ids from an id: with the time alone, a poller far behind (createdAt.gt of a month ago)
        // had every event before its time read and dropped on each page (0.6 s per page with 270,000 of
        // them), or every event after it read and sorted. Found by the created_at index, one row.
        const [toward, order] = op === 'gt' || op === 'gte' ? ['>=', 'ASC'] : ['<=', 'DESC'];
        where.push(
          `e.id ${toward} (SELECT b.id FROM publication_events b WHERE b.project_id = $1 AND b.created_at ${sql} ${at}
             ORDER BY b.created_at ${order}, b.id ${order} LIMIT 1)`,
        );
      }
      const result = await db.query<PublicationEventRow>(
        `SELECT e.id, e.created_at AS "createdAt", e.project_id AS "projectId", e.channel_id AS "channelId",
           e.document_id AS "documentId", e.document_type AS "documentType", e.event_type AS "eventType",
           e.publication_id AS "publicationId"
         FROM publication_events e
         WHERE ${where.join(' AND ')}
         ORDER BY e.id ${filter.reverse ? 'DESC' : 'ASC'}
         LIMIT ${param(filter.limit)}`,
        values,
      );
      return result.rows;
    },
  };
}
