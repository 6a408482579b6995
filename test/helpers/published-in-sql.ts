import type { Pool } from 'pg';

/**
 * Publishes `count` documents of the project, all with this content and titled '<title> 1', '<title> 2', …, made in
 * SQL: through the API (design checks, events, index jobs) documents of megabytes would take minutes. Nothing is
 * indexed. Answers their ids in order.
 */
export async function publishedInSql(
  pool: Pool,
  project: { projectId: number; channelId: number },
  content: unknown,
  { count = 1, title = 'Large' }: { count?: number; title?: string } = {},
): Promise<number[]> {
  const ids = (
    await pool.query<{ id: string }>(
      `WITH docs AS (
         INSERT INTO documents (project_id, channel_id, document_type, content_type, metadata, content)
         SELECT $1, $2, 'article', 'regular', jsonb_build_object('title', $5 || ' ' || n), $4::jsonb
         FROM generate_series(1, $3::int) n RETURNING id)
       SELECT id FROM docs ORDER BY id`,
      [project.projectId, project.channelId, count, JSON.stringify(content), title],
    )
  ).rows.map((row) => Number(row.id));
  await pool.query(
    `WITH pubs AS (
       INSERT INTO publications (project_id, document_id, document_version, content_type, document_type,
         metadata, content, updated_at)
       SELECT project_id, id, version, content_type, document_type, metadata, content, now()
       FROM documents WHERE id = ANY($1::bigint[]) RETURNING id, document_id)
     UPDATE documents d SET latest_publication_id = pubs.id, published_version = d.version,
       first_publication_date = now(), last_publication_date = now()
     FROM pubs WHERE pubs.document_id = d.id`,
    [ids],
  );
  return ids;
}
