-- Up Migration

-- publicationEvents reads a createdAt bound as the id range of the events past it (queries/publication-events.ts),
-- which holds when createdAt never falls behind an earlier id of the project. Events written since 6ee04b4 take
-- their createdAt once the project's event lock is held, so they hold it; the ones written before took the
-- time their request began, and one that waited on a row lock, or an import batch that took seconds, can be
-- behind an event committed before it. Those are raised to the latest createdAt before them: the earliest
-- time they can have joined the stream (they were committed after that event), so a reader by time sees
-- each event once, in id order. Reads every event once (7 s per million on a busy test machine) and
-- updates only the few behind; publishes and reads go on meanwhile (no lock but the rows updated).
WITH behind AS MATERIALIZED (
  SELECT id, latest
  FROM (
    SELECT id, created_at,
      max(created_at) OVER (PARTITION BY project_id ORDER BY id ROWS UNBOUNDED PRECEDING) AS latest
    FROM publication_events
  ) running
  WHERE created_at < latest
)
UPDATE publication_events e SET created_at = behind.latest FROM behind WHERE e.id = behind.id;

-- Down Migration
-- Nothing to undo: the events keep their raised createdAt (the earlier times are not kept).
