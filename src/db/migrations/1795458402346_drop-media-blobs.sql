-- Up Migration

-- The bytes of media live in the object store (src/storage, MEDIA_STORAGE_DIR or MEDIA_S3_*): Postgres keeps
-- the entry and its key only. The demo, the table's last writer, imports its images like any client.
DROP TABLE media_blobs;

-- Down Migration
CREATE TABLE media_blobs (
  project_id  integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  key         text NOT NULL,
  mime_type   text NOT NULL,
  bytes       bytea NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, key)
);
