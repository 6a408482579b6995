-- Up Migration

-- Bytes sent to POST mediaLibrary/uploads, already in the object store under `key` and probed, waiting for
-- the POST import/mediaLibrary entry that names them (`asset: {uploadId}`); the import deletes the row in the
-- transaction that writes the entry. Unclaimed uploads expire: their rows and objects are swept.
CREATE TABLE media_uploads (
  project_id   integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  id           uuid NOT NULL,
  key          text NOT NULL,
  filename     text NOT NULL,
  mime_type    text NOT NULL,
  size         bigint NOT NULL,
  width        integer,
  height       integer,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id)
);
CREATE INDEX media_uploads_created_idx ON media_uploads (created_at);

-- Outgoing references of a media entry's metadata (and its translations' metadata), to documents and other
-- media entries, written in the transaction of every entry write: mediaLibrary/{id}/incomingMediaReferences
-- answers from here.
CREATE TABLE media_references (
  project_id       integer NOT NULL,
  source_media_id  text NOT NULL,
  target_type      text NOT NULL CHECK (target_type IN ('document', 'media')),
  target_id        text NOT NULL,
  location         text NOT NULL,
  property_name    text,
  FOREIGN KEY (project_id, source_media_id) REFERENCES media_entries (project_id, id) ON DELETE CASCADE
);
CREATE INDEX media_references_source_idx ON media_references (project_id, source_media_id);
CREATE INDEX media_references_target_idx ON media_references (project_id, target_type, target_id);

-- Down Migration
DROP TABLE media_references, media_uploads;
