import type { Content, Metadata } from '../../domain/content';
import type { Queryable } from '../pool';

/**
 * What the search index is built from: a document's publication state joined with its latest publication
 * and its project's config. `publicationId` is null when the document is not published.
 */
export interface IndexSourceRow {
  projectId: number;
  documentId: number;
  channelId: number;
  indexVersion: number;
  /** The latest publication's updatedAt (the document's updated_at as of the publish); null when not published. */
  updatedAt: Date | null;
  firstPublicationDate: Date | null;
  lastPublicationDate: Date | null;
  significantPublicationDate: Date | null;
  visiblePublicationDateOverride: Date | null;
  embargoSet: boolean;
  embargoUntil: Date | null;
  publicationId: number | null;
  /** When the latest publication was made (null: not published); the start of the index lag. */
  publishedAt: Date | null;
  contentType: string | null;
  documentType: string | null;
  layout: string | null;
  designName: string | null;
  designVersion: string | null;
  metadata: Metadata | null;
  content: Content | null;
  projectConfig: unknown;
  projectRevision: number;
  /**
   * The component names the project's designs declare (designs come from operators only): the only names that
   * become `statistics.componentCount.<name>` fields (see buildSearchDocument).
   */
  declaredComponents: ReadonlySet<string>;
}

const COLUMNS = `d.project_id AS "projectId", d.id AS "documentId", d.channel_id AS "channelId",
  d.index_version AS "indexVersion", p.updated_at AS "updatedAt",
  d.first_publication_date AS "firstPublicationDate", d.last_publication_date AS "lastPublicationDate",
  d.significant_publication_date AS "significantPublicationDate",
  d.visible_publication_date_override AS "visiblePublicationDateOverride",
  d.embargo_set AS "embargoSet", d.embargo_until AS "embargoUntil",
  p.id AS "publicationId", p.published_at AS "publishedAt", p.content_type AS "contentType", p.document_type AS "documentType", p.layout,
  p.design_name AS "designName", p.design_version AS "designVersion", p.metadata, p.content`;

const FROM = `documents d
  LEFT JOIN publications p ON p.id = d.latest_publication_id`;

type RowWithoutProject = Omit<IndexSourceRow, 'projectConfig' | 'projectRevision' | 'declaredComponents'>;

/**
 * Each project's config and its designs' component names are read once per page and shared by its rows:
 * joining them in would make Postgres send, and the driver parse, the same config once per document.
 *
 * Read FOR SHARE (for the statement only): a config apply in flight holds its project's row (FOR NO KEY
 * UPDATE) until it commits, so the read waits for it and builds from the config as applied. The apply
 * re-indexes the documents published when it began; one first published while it ran was built from the old
 * config by an index job that read it before the commit, and stayed so (not found by a newly indexed field)
 * until it was published again. Publishes are not held off (their KEY SHARE does not conflict).
 */
async function withProjectConfigs(db: Queryable, rows: RowWithoutProject[]): Promise<IndexSourceRow[]> {
  if (rows.length === 0) return [];
  const projectIds = [...new Set(rows.map((row) => row.projectId))];
  const projects = await db.query<{ id: number; config: unknown; revision: number; components: string[] }>(
    `SELECT id, config, revision_number AS revision,
       ARRAY(SELECT DISTINCT component->>'name' FROM designs d,
               jsonb_array_elements(d.definition->'components') AS component
             WHERE d.project_id = projects.id AND jsonb_typeof(d.definition->'components') = 'array'
               AND component->>'name' IS NOT NULL) AS components
     FROM projects WHERE id = ANY($1::int[]) ORDER BY id FOR SHARE`,
    [projectIds],
  );
  const byId = new Map(
    projects.rows.map((project) => [project.id, { ...project, declared: new Set(project.components) }]),
  );
  return rows.flatMap((row) => {
    const project = byId.get(row.projectId);
    return project
      ? [
          {
            ...row,
            projectConfig: project.config,
            projectRevision: project.revision,
            declaredComponents: project.declared,
          },
        ]
      : [];
  });
}

export interface DocumentKey {
  projectId: number;
  documentId: number;
}

export function indexSourceQueries(db: Queryable) {
  return {
    /** The current truth for every key in one query; keys whose document no longer exists are simply absent. */
    async findByKeys(keys: readonly DocumentKey[]): Promise<IndexSourceRow[]> {
      if (keys.length === 0) return [];
      const result = await db.query<RowWithoutProject>(
        `SELECT ${COLUMNS} FROM ${FROM}
         WHERE (d.project_id, d.id) IN (SELECT * FROM unnest($1::int[], $2::bigint[]))`,
        [keys.map((key) => key.projectId), keys.map((key) => key.documentId)],
      );
      return withProjectConfigs(db, result.rows);
    },

    /** One page of published documents in (project, id) order, for rebuilds: keyset paging, no offset. */
    async findPublishedPage(after: DocumentKey | undefined, limit: number): Promise<IndexSourceRow[]> {
      const result = await db.query<RowWithoutProject>(
        `SELECT ${COLUMNS} FROM ${FROM}
         WHERE d.latest_publication_id IS NOT NULL AND (d.project_id, d.id) > ($1, $2)
         ORDER BY d.project_id, d.id LIMIT $3`,
        [after?.projectId ?? 0, after?.documentId ?? 0, limit],
      );
      return withProjectConfigs(db, result.rows);
    },

    async countPublished(): Promise<number> {
      const result = await db.query<{ count: number }>(
        'SELECT count(*)::int AS count FROM documents WHERE latest_publication_id IS NOT NULL',
      );
      return result.rows[0]?.count ?? 0;
    },

    /** (project, document, publication) of every published document, in key order, a page at a time. */
    async findPublishedKeys(after: DocumentKey | undefined, limit: number) {
      const result = await db.query<DocumentKey & { publicationId: number; indexVersion: number }>(
        `SELECT project_id AS "projectId", id AS "documentId", latest_publication_id AS "publicationId",
           index_version AS "indexVersion"
         FROM documents WHERE latest_publication_id IS NOT NULL AND (project_id, id) > ($1, $2)
         ORDER BY project_id, id LIMIT $3`,
        [after?.projectId ?? 0, after?.documentId ?? 0, limit],
      );
      return result.rows;
    },
  };
}
