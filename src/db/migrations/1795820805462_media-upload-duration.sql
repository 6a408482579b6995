-- Up Migration

-- A video's duration in seconds, read from its container's header at upload (src/domain/video-header.ts), kept
-- with its width and height until the import that names the upload copies them into the entry's asset.
ALTER TABLE media_uploads ADD COLUMN duration double precision;

-- Down Migration

ALTER TABLE media_uploads DROP COLUMN duration;
