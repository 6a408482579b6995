-- Up Migration

-- The search document the indexer last built for each published document, as the JSON text it sent to
-- Elasticsearch, stamped with what it was built from: the document's index_version, the project config
-- revision and the builder's version (SEARCH_DOCUMENT_VERSION in src/search/document-builder.ts). A rebuild
-- sends a row whose stamp is still current as it is, instead of reading the publication and building it
-- again; any other row is rebuilt and replaced. Nothing reads it to answer a request.
--
-- UNLOGGED: it is a cache of what Postgres already knows, so it skips the write-ahead log (half the cost of
-- storing what a cold rebuild builds). After a crash Postgres empties it and the next rebuild builds
-- everything again, which is correct, only slower.
CREATE UNLOGGED TABLE search_documents (
  document_id      bigint PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
  project_id       integer NOT NULL,
  index_version    bigint NOT NULL,
  project_revision integer NOT NULL,
  builder_version  integer NOT NULL,
  body             text NOT NULL
);

-- Rebuilds read every row once: lz4 decompresses several times faster than the default pglz, where the
-- server has it.
DO $$
BEGIN
  ALTER TABLE search_documents ALTER COLUMN body SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
  NULL;
END
$$;

-- Down Migration

DROP TABLE search_documents;
