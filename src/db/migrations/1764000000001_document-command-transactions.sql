-- Up Migration

-- Every successful PATCH documents/{id}/commands, as applied: who sent which commands, and the document
-- version it moved from and to. Written in the transaction of the change itself.
CREATE TABLE document_command_transactions (
  id                   bigserial PRIMARY KEY,
  project_id           integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  document_id          bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  client_id            uuid REFERENCES api_clients(id) ON DELETE SET NULL,
  version_before       integer NOT NULL,
  version_after        integer NOT NULL,
  commands             jsonb NOT NULL,
  preconditions        jsonb NOT NULL DEFAULT '[]'::jsonb,
  preserve_updated_at  boolean NOT NULL DEFAULT false,
  created_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX document_command_transactions_document_idx ON document_command_transactions (document_id, id);

-- Down Migration
DROP TABLE document_command_transactions;
