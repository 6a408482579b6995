-- Up Migration

-- API processes cache API clients for authentication; every change to a client (revocation, scopes, a project
-- deleted with its clients) notifies its id at commit, so each process evicts it at once.
CREATE FUNCTION api_clients_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('broadsheet_api_clients', OLD.id::text);
  RETURN NULL;
END
$$;

CREATE TRIGGER api_clients_notify_change
  AFTER UPDATE OR DELETE ON api_clients
  FOR EACH ROW EXECUTE FUNCTION api_clients_notify_change();

-- Down Migration

DROP TRIGGER api_clients_notify_change ON api_clients;
DROP FUNCTION api_clients_notify_change();
