-- Up Migration

-- publicationEvents polled by time (`createdAt.gt=<the last event seen>&limit=...`, the usual poller) could
-- use no index but (project_id, id): Postgres read every event of every project (a sequential scan) on each
-- poll. With this one it reads the project's events after the bound and sorts those few by id (Postgres
-- still prefers walking the ids when it expects more matches than the limit: a client far behind).
--
-- node-pg-migrate runs every SQL migration in a transaction, where CREATE INDEX CONCURRENTLY cannot run: the
-- build holds a SHARE lock on publication_events, so publishes, unpublishes and imports of every project wait
-- for it (about a second per million events). IF NOT EXISTS lets an operator build it concurrently before
-- upgrading a large database (README, "Upgrading"); the migration then only takes that lock for an instant.
CREATE INDEX IF NOT EXISTS publication_events_created_at_idx ON publication_events (project_id, created_at);

-- Down Migration
DROP INDEX publication_events_created_at_idx;
