-- Up Migration
-- serve-image finds the entry behind an asset key (its own asset, or a translation's) on every request.
CREATE INDEX media_entries_asset_key_idx ON media_entries (project_id, (asset->>'key'));
CREATE INDEX media_entries_translations_idx ON media_entries USING gin (translations jsonb_path_ops);

-- Down Migration
DROP INDEX media_entries_translations_idx;
DROP INDEX media_entries_asset_key_idx;
