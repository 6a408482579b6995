-- Up Migration

-- Failed secret checks (the planner's client-credentials login) per key and fixed window, shared by every API
-- process (README, "Rate limits"): a key is `address:<client address>` or `client:<API client id>`. An attempt
-- adds itself before its secret is checked (so a burst in flight cannot overshoot the limit) and takes itself
-- back when the secret was right, so only failures stay counted. Old windows are deleted by the processes.
CREATE TABLE auth_failure_windows (
  key             text NOT NULL,
  period_seconds  integer NOT NULL,
  window_start    timestamptz NOT NULL,
  failures        integer NOT NULL,
  PRIMARY KEY (key, period_seconds, window_start)
);
CREATE INDEX auth_failure_windows_start ON auth_failure_windows (window_start);

-- Down Migration

DROP TABLE auth_failure_windows;
