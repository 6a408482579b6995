-- Up Migration

-- An API client may also have a secret, for integrations that authenticate with client credentials
-- (POST planner-integration/oauth/token, HTTP Basic): only its SHA-256 is kept, the secret is shown once by
-- `broadsheet client create --secret`. Null: the client has no secret and can only use its signed token.
ALTER TABLE api_clients ADD COLUMN secret_hash text;

-- A planning tool's element linked to the document it created or was linked to (planner/element): the
-- element as the tool last sent it, so the next update maps only what changed onto document commands.
-- One element per document and one document per element, within a project.
CREATE TABLE planner_elements (
  project_id   integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  element_id   text NOT NULL,
  document_id  bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  element      jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, element_id),
  UNIQUE (project_id, document_id)
);

-- The publications a planning tool follows (planner-integration/publication): the tool's own record of the
-- publication, as it sent it, beside the document whose publication state it follows.
CREATE TABLE planner_publications (
  project_id   integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  document_id  bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  record       jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, document_id)
);

-- Down Migration

DROP TABLE planner_publications, planner_elements;
ALTER TABLE api_clients DROP COLUMN secret_hash;
