-- Up Migration

-- The search answer cache's generations (src/reads/search-answer-cache.ts). An indexer opens a window before it
-- writes a project's documents to Elasticsearch and closes it once a refresh has made them visible to searches;
-- both notify every API process at commit (channel broadsheet_search_windows is named in
-- src/db/queries/search-write-windows.ts). While a window is open nothing of its projects is cached, so a
-- cached answer can never outlive the moment Elasticsearch starts answering differently. The rows are what a
-- process that (re)connects reads to learn the windows open right now; project_ids NULL is every project (an
-- alias swap). A window whose writer died is ignored after expires_at and deleted by the next one opened.
CREATE TABLE search_write_windows (
  id          bigserial PRIMARY KEY,
  project_ids int[],
  expires_at  timestamptz NOT NULL
);

-- Down Migration

DROP TABLE search_write_windows;
