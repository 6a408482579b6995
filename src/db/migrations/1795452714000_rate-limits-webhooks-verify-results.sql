-- Up Migration

-- Rate limits per API client (README, "Rate limits"): `rate_limit_requests` per `rate_limit_period_seconds`,
-- both null for the installation's default (RATE_LIMIT_DEFAULT); 0 requests means no limit for this client.
-- A change notifies like any update of api_clients (api_clients_notify_change), so every API process's cache
-- sees the new limit at once.
ALTER TABLE api_clients
  ADD COLUMN rate_limit_requests integer CHECK (rate_limit_requests >= 0),
  ADD COLUMN rate_limit_period_seconds integer CHECK (rate_limit_period_seconds > 0),
  ADD CONSTRAINT api_clients_rate_limit_pair
    CHECK ((rate_limit_requests IS NULL) = (rate_limit_period_seconds IS NULL));

-- The requests each client made in a fixed window, shared by every API process: each adds what it let
-- through since its last sync (one UPSERT for all its clients every few hundred ms, or per request near the
-- limit) and reads back the total. Old windows are deleted by the processes as they go.
CREATE TABLE api_client_request_windows (
  client_id       uuid NOT NULL,
  period_seconds  integer NOT NULL,
  window_start    timestamptz NOT NULL,
  requests        integer NOT NULL,
  PRIMARY KEY (client_id, period_seconds, window_start)
);
CREATE INDEX api_client_request_windows_start ON api_client_request_windows (window_start);

-- The delivery of an import's webhook (POST import/documents `webhook`): null when the import has none,
-- else pending, delivered or failed (gave up); the calls made, when it was delivered, and the last failure,
-- for operators. The delivery itself is a queue job (import-webhook) sent when the import finishes.
ALTER TABLE import_jobs
  ADD COLUMN webhook_state text CHECK (webhook_state IN ('pending', 'delivered', 'failed')),
  ADD COLUMN webhook_attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN webhook_delivered_at timestamptz,
  ADD COLUMN webhook_error text;

-- The outcome of each `index verify`, so the API and the workers can report the index drift it found as a
-- metric. Only the counts are kept; the command prints the documents.
CREATE TABLE index_verifications (
  id           bigserial PRIMARY KEY,
  verified_at  timestamptz NOT NULL DEFAULT now(),
  checked      integer NOT NULL,
  missing      integer NOT NULL,
  stale        integer NOT NULL,
  extra        integer NOT NULL,
  rejected     integer NOT NULL,
  repaired     integer NOT NULL
);

-- Down Migration

DROP TABLE index_verifications;
ALTER TABLE import_jobs
  DROP COLUMN webhook_state,
  DROP COLUMN webhook_attempts,
  DROP COLUMN webhook_delivered_at,
  DROP COLUMN webhook_error;
DROP TABLE api_client_request_windows;
ALTER TABLE api_clients
  DROP CONSTRAINT api_clients_rate_limit_pair,
  DROP COLUMN rate_limit_requests,
  DROP COLUMN rate_limit_period_seconds;
