-- Up Migration

-- API processes remember which asset keys serve-image may serve; every change to a project's media entries
-- (an import, a revocation, a translation removed, the project deleted) notifies the project's id at commit, so
-- each process forgets that project's keys at once. Postgres folds identical notifications of one transaction
-- into one, so an import of many entries is one notice.
CREATE FUNCTION media_entries_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('broadsheet_media_entries', '*');
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('broadsheet_media_entries', OLD.project_id::text);
  ELSE
    PERFORM pg_notify('broadsheet_media_entries', NEW.project_id::text);
    IF TG_OP = 'UPDATE' AND OLD.project_id <> NEW.project_id THEN
      PERFORM pg_notify('broadsheet_media_entries', OLD.project_id::text);
    END IF;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER media_entries_notify_change
  AFTER INSERT OR UPDATE OR DELETE ON media_entries
  FOR EACH ROW EXECUTE FUNCTION media_entries_notify_change();

CREATE TRIGGER media_entries_notify_truncate
  AFTER TRUNCATE ON media_entries
  FOR EACH STATEMENT EXECUTE FUNCTION media_entries_notify_change();

-- Down Migration

DROP TRIGGER media_entries_notify_truncate ON media_entries;
DROP TRIGGER media_entries_notify_change ON media_entries;
DROP FUNCTION media_entries_notify_change();
