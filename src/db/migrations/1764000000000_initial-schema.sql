-- Up Migration

-- One data model for the whole contract (api-spec.md + supplement.md). Postgres is the source of truth;
-- Elasticsearch only ever holds a copy of the latest publication of each published document.

CREATE TABLE projects (
  id              serial PRIMARY KEY,
  handle          text NOT NULL UNIQUE,
  name            text NOT NULL,
  -- The whole project config as last applied (supplement §8); revision_number grows with every apply.
  config          jsonb NOT NULL DEFAULT '{}'::jsonb,
  revision_number integer NOT NULL DEFAULT 1,
  channel_mode    text NOT NULL DEFAULT 'configurable' CHECK (channel_mode IN ('static', 'configurable')),
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE project_config_revisions (
  project_id      integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  revision_number integer NOT NULL,
  config          jsonb NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, revision_number)
);

CREATE TABLE channels (
  id             serial PRIMARY KEY,
  project_id     integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  handle         text NOT NULL,
  label          text NOT NULL,
  design_name    text,
  design_version text,
  content_types  text[] NOT NULL DEFAULT '{}',
  is_default     boolean NOT NULL DEFAULT false,
  UNIQUE (project_id, handle)
);

-- An API client is what a token's `jti` names; revoking it kills every token it signed at once.
CREATE TABLE api_clients (
  id          uuid PRIMARY KEY,
  project_id  integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  channel_id  integer REFERENCES channels(id) ON DELETE SET NULL,
  name        text NOT NULL,
  scopes      text[] NOT NULL,
  expires_at  timestamptz,
  revoked_at  timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_clients_project_idx ON api_clients (project_id);

CREATE TABLE designs (
  id          serial PRIMARY KEY,
  project_id  integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name        text NOT NULL,
  version     text NOT NULL,
  definition  jsonb NOT NULL,
  is_current  boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, name, version)
);
CREATE UNIQUE INDEX designs_one_current_idx ON designs (project_id) WHERE is_current;

CREATE TABLE categories (
  project_id  integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  id          text NOT NULL,
  label       text NOT NULL,
  path        text NOT NULL,
  parent_id   text,
  metadata    jsonb NOT NULL DEFAULT '{}'::jsonb,
  position    integer NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, id)
);

CREATE TABLE documents (
  id                                 bigserial PRIMARY KEY,
  project_id                         integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  channel_id                         integer NOT NULL REFERENCES channels(id),
  document_type                      text NOT NULL CHECK (document_type IN ('article', 'page', 'data-record')),
  content_type                       text NOT NULL,
  layout                             text,
  design_name                        text,
  design_version                     text,
  -- (system_name, external_id) identifies an imported document: an import with the same pair updates it.
  system_name                        text,
  external_id                        text,
  -- The draft.
  metadata                           jsonb NOT NULL DEFAULT '{}'::jsonb,
  content                            jsonb NOT NULL DEFAULT '[]'::jsonb,
  version                            integer NOT NULL DEFAULT 1,
  created_at                         timestamptz NOT NULL DEFAULT now(),
  updated_at                         timestamptz NOT NULL DEFAULT now(),
  -- Publication state: latest_publication_id is null while the document is not published.
  latest_publication_id              bigint,
  published_version                  integer,
  first_publication_date             timestamptz,
  last_publication_date              timestamptz,
  significant_publication_date       timestamptz,
  visible_publication_date_override  timestamptz,
  -- Publish control (api-spec §3.3).
  embargo_reason                     text,
  embargo_until                      timestamptz,
  embargo_set                        boolean NOT NULL DEFAULT false,
  publish_schedule_at                timestamptz,
  unpublish_schedule_at              timestamptz,
  -- Grows on every publish and unpublish, so the index can refuse anything older than what it has.
  index_version                      bigint NOT NULL DEFAULT 0,
  UNIQUE (project_id, system_name, external_id)
);
CREATE INDEX documents_project_idx ON documents (project_id, id);
CREATE INDEX documents_published_idx ON documents (project_id, id) WHERE latest_publication_id IS NOT NULL;

-- Publications are immutable snapshots of a draft at publish time.
CREATE TABLE publications (
  id                bigserial PRIMARY KEY,
  project_id        integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  document_id       bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  document_version  integer NOT NULL,
  content_type      text NOT NULL,
  document_type     text NOT NULL,
  layout            text,
  design_name       text,
  design_version    text,
  metadata          jsonb NOT NULL,
  content           jsonb NOT NULL,
  published_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX publications_document_idx ON publications (document_id, id DESC);

ALTER TABLE documents
  ADD CONSTRAINT documents_latest_publication_fk FOREIGN KEY (latest_publication_id) REFERENCES publications(id);

CREATE FUNCTION publications_are_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'publications are immutable';
END $$;
CREATE TRIGGER publications_immutable BEFORE UPDATE ON publications
  FOR EACH ROW EXECUTE FUNCTION publications_are_immutable();

-- Written in the same transaction as the publish/unpublish it records; ids only grow (supplement §7).
CREATE TABLE publication_events (
  id              bigserial PRIMARY KEY,
  project_id      integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  channel_id      integer NOT NULL,
  document_id     bigint NOT NULL,
  document_type   text NOT NULL,
  content_type    text NOT NULL,
  event_type      text NOT NULL CHECK (event_type IN ('publish', 'unpublish', 'update')),
  publication_id  bigint,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX publication_events_project_idx ON publication_events (project_id, id);

CREATE TABLE delivery_reports (
  id               uuid PRIMARY KEY,
  project_id       integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  document_id      bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  publication_id   bigint NOT NULL,
  delivery_handle  text NOT NULL,
  status           text NOT NULL CHECK (status IN ('success', 'failed', 'in-progress', 'aborted')),
  message          text,
  user_choices     jsonb,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX delivery_reports_document_idx ON delivery_reports (project_id, document_id);

CREATE TABLE media_entries (
  project_id     integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  id             text NOT NULL CHECK (id ~ '^[a-zA-Z0-9-]{1,32}$'),
  media_type     text NOT NULL CHECK (media_type IN ('image', 'video', 'file')),
  system_name    text,
  external_id    text,
  metadata       jsonb NOT NULL DEFAULT '{}'::jsonb,
  asset          jsonb,
  translations   jsonb NOT NULL DEFAULT '[]'::jsonb,
  version        integer NOT NULL DEFAULT 1,
  revoked        boolean NOT NULL DEFAULT false,
  revoke_note    text CHECK (char_length(revoke_note) <= 200),
  invalid        boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id),
  UNIQUE (project_id, system_name, external_id)
);

-- The stored bytes behind an asset key (served by mediaLibrary/serve-image/{key}).
CREATE TABLE media_blobs (
  project_id  integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  key         text NOT NULL,
  mime_type   text NOT NULL,
  bytes       bytea NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, key)
);

CREATE TABLE document_lists (
  id          serial PRIMARY KEY,
  project_id  integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX document_lists_project_idx ON document_lists (project_id, id);

CREATE TABLE document_list_items (
  list_id      integer NOT NULL REFERENCES document_lists(id) ON DELETE CASCADE,
  document_id  bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  position     integer NOT NULL,
  added_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (list_id, document_id)
);

CREATE TABLE menus (
  id             serial PRIMARY KEY,
  project_id     integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  channel_id     integer NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
  handle         text NOT NULL,
  label          text NOT NULL,
  version        integer NOT NULL DEFAULT 1,
  max_depth      integer NOT NULL DEFAULT 3,
  nodes          jsonb NOT NULL DEFAULT '[]'::jsonb,
  UNIQUE (project_id, channel_id, handle)
);

CREATE TABLE import_jobs (
  id           uuid PRIMARY KEY,
  project_id   integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  kind         text NOT NULL DEFAULT 'documents',
  system_name  text NOT NULL,
  state        text NOT NULL DEFAULT 'started' CHECK (state IN ('started', 'success', 'failed')),
  request      jsonb NOT NULL,
  logs         jsonb NOT NULL DEFAULT '[]'::jsonb,
  api_version  text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz
);

-- Outgoing references of a document's draft and of its latest publication, to documents and media,
-- so incoming-reference lookups are an index scan.
CREATE TABLE document_references (
  project_id          integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  source_document_id  bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  source_kind         text NOT NULL CHECK (source_kind IN ('draft', 'publication')),
  target_type         text NOT NULL CHECK (target_type IN ('document', 'media')),
  target_id           text NOT NULL,
  location            text NOT NULL,
  property_name       text,
  component_id        text,
  component_name      text,
  directive_name      text,
  service_name        text
);
CREATE INDEX document_references_source_idx ON document_references (source_document_id, source_kind);
CREATE INDEX document_references_target_idx ON document_references (project_id, target_type, target_id, source_kind);

-- Down Migration
DROP TABLE document_references, import_jobs, menus, document_list_items, document_lists, media_blobs,
  media_entries, delivery_reports, publication_events;
ALTER TABLE documents DROP CONSTRAINT documents_latest_publication_fk;
DROP TABLE publications, documents, categories, designs, api_clients, channels, project_config_revisions, projects;
DROP FUNCTION publications_are_immutable();
