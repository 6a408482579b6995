-- Up Migration

-- A publication's systemdata.updatedAt is the document's updated_at as of the publication (api-spec §2.1,
-- §3.3: a publish with preserveUpdatedAt keeps it and lastPublicationDate takes it), snapshotted with the
-- publication like its metadata and content. The views answered the document's live updated_at instead, so an
-- edit of the draft that was never published changed the publication's updatedAt in latestPublication,
-- composition and document lists (and their ETags), while latestPublications and search kept the value of
-- the last indexing, which a rebuild could replace again.
ALTER TABLE publications ADD COLUMN updated_at timestamptz;

-- Existing publications, from what Postgres still knows. updated_at only moves with a new version (commands
-- requests and imports), so a publication of the document's current version has the document's updated_at.
-- An older version made by a commands request has the updated_at of the last request up to it that set one
-- (a preserveUpdatedAt request keeps the one before; version 1 has the document's created_at), provided
-- every version after that request was made by a request too; where an import wrote in between (it leaves
-- no record of its time), the publish's own time is the best estimate (a publish without preserveUpdatedAt
-- sets updated_at to it).
CREATE TEMPORARY TABLE publication_updated_at ON COMMIT DROP AS
SELECT p.id,
  CASE
    WHEN d.version = p.document_version THEN d.updated_at
    WHEN (SELECT count(*) FROM document_command_transactions t
          WHERE t.document_id = p.document_id AND t.version_after > coalesce(setter.version_after, 1)
            AND t.version_after <= p.document_version)
         = p.document_version - coalesce(setter.version_after, 1)
      THEN coalesce(setter.created_at, d.created_at)
    ELSE p.published_at
  END AS updated_at
FROM publications p
JOIN documents d ON d.id = p.document_id
LEFT JOIN LATERAL (
  SELECT t.version_after, t.created_at FROM document_command_transactions t
  WHERE t.document_id = p.document_id AND NOT t.preserve_updated_at AND t.version_after <= p.document_version
  ORDER BY t.version_after DESC LIMIT 1
) setter ON true;

-- Publications are immutable (publications_immutable); this one backfill is the exception.
ALTER TABLE publications DISABLE TRIGGER publications_immutable;
UPDATE publications p SET updated_at = u.updated_at FROM publication_updated_at u WHERE u.id = p.id;
ALTER TABLE publications ENABLE TRIGGER publications_immutable;
ALTER TABLE publications ALTER COLUMN updated_at SET NOT NULL;

-- The index and the stored search documents carry the updatedAt of their indexing: run `index rebuild` once
-- after this migration (SEARCH_DOCUMENT_VERSION 4 builds every stored document again from the publications),
-- so search and latestPublications answer the same updatedAt as latestPublication.

-- Down Migration

ALTER TABLE publications DROP COLUMN updated_at;
