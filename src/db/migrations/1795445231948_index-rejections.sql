-- Up Migration

-- Documents Elasticsearch refused for good: a per-document rejection that is not 429 or 5xx (a parsing or
-- mapping error, e.g. JSON nested deeper than its 1,000 levels). Retrying cannot help until the document
-- changes, so the index job completes and the refusal is kept here, where `broadsheet index status` and
-- `index verify` show it. Written by the indexer (live writes and rebuilds); the next successful write of the
-- document to the index (index or delete) removes its row.
CREATE TABLE index_rejections (
  document_id   bigint PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
  project_id    integer NOT NULL,
  -- The document's index_version that was refused (null for the removal of a vanished document).
  index_version bigint,
  reason        text NOT NULL,
  rejected_at   timestamptz NOT NULL DEFAULT now()
);

-- Down Migration

DROP TABLE index_rejections;
