import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { ensureDatabase, migrate } from '../../src/db/migrate';
import type { Queryable } from '../../src/db/pool';
import { packagePath } from '../../src/package-root';
import {
  publicationEventQueries,
  type PublicationEventFilter,
} from '../../src/db/queries/publication-events';

/** A database of this run that does not exist yet (global-teardown drops it with the run's others). */
function freshDatabaseUrl(suffix: string): string {
  const url = new URL(process.env.DATABASE_URL ?? '');
  url.pathname = `${url.pathname}_${suffix}`;
  return url.toString();
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

interface AnalyzedNode extends PlanNode {
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: AnalyzedNode[];
}

/**
 * How Postgres runs the query publicationEvents sends for `filter`: the repository's own SQL, explained (a
 * Queryable that puts EXPLAIN before it), so the test follows the query wherever it goes.
 */
async function planOf(pool: pg.Pool, filter: PublicationEventFilter): Promise<PlanNode[]> {
  let plan: PlanNode | undefined;
  const explaining = {
    query: async (text: string, values: unknown[]) => {
      const result = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (FORMAT JSON) ${text}`,
        values,
      );
      plan = result.rows[0]!['QUERY PLAN'][0].Plan;
      return { rows: [] };
    },
  } as unknown as Queryable;
  await publicationEventQueries(explaining).list(filter);
  return nodesOf(plan!);
}

/**
 * The rows the query publicationEvents sends for `filter` read from the table and its indexes (kept or dropped
 * by a filter), as Postgres ran it: what a page costs.
 */
async function rowsReadBy(pool: pg.Pool, filter: PublicationEventFilter): Promise<number> {
  let read = 0;
  const explaining = {
    query: async (text: string, values: unknown[]) => {
      const result = await pool.query<{ 'QUERY PLAN': [{ Plan: AnalyzedNode }] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${text}`,
        values,
      );
      for (const node of nodesOf(result.rows[0]!['QUERY PLAN'][0].Plan) as AnalyzedNode[]) {
        if (!node['Node Type'].includes('Scan')) continue;
        read += (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'];
      }
      return { rows: [] };
    },
  } as unknown as Queryable;
  await publicationEventQueries(explaining).list(filter);
  return read;
}

describe('publicationEvents polled by createdAt, on a project with many events', () => {
  let pool: pg.Pool;
  let projectId: number;
  const last = new Date(Date.UTC(2026, 10, 20));

  beforeAll(async () => {
    // A fresh database: the migrations apply from nothing, and the planner sees only these events.
    const databaseUrl = freshDatabaseUrl('events_plan');
    await ensureDatabase(databaseUrl);
    await migrate(databaseUrl);
    pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    const projects = await pool.query<{ id: number }>(
      `INSERT INTO projects (handle, name) VALUES ('big', 'Big'), ('small', 'Small') RETURNING id`,
    );
    projectId = projects.rows[0]!.id;
    // 100,000 events, one every 80 seconds over ~3 months, one in ten of the other project.
    await pool.query(
      `INSERT INTO publication_events (project_id, channel_id, document_id, document_type, content_type,
         event_type, publication_id, created_at)
       SELECT CASE WHEN g % 10 = 0 THEN $2::int ELSE $1::int END, 1, g % 5000, 'article', 'regular', 'publish', g,
         $3::timestamptz - (100000 - g) * interval '80 seconds'
       FROM generate_series(1, 100000) g`,
      [projectId, projects.rows[1]!.id, last],
    );
    await pool.query('ANALYZE publication_events');
  });
  afterAll(async () => {
    await pool?.end();
  });

  it.each([
    ['createdAt.gt, oldest first', false],
    ['createdAt.gt, newest first', true],
  ])(
    'when a poller asks for the events after the last one it saw (%s), then the created_at index finds them, no scan of every event',
    async (_name, reverse) => {
      const nodes = await planOf(pool, {
        projectId,
        createdAt: { gt: new Date(last.getTime() - 3_600_000) },
        reverse,
        limit: 100,
      });
      expect(nodes.map((node) => node['Index Name'])).toContain('publication_events_created_at_idx');
      expect(nodes.map((node) => node['Node Type'])).not.toContain('Seq Scan');
    },
  );

  it('when a channel poller asks the same, then the same index serves it', async () => {
    const nodes = await planOf(pool, {
      projectId,
      channelId: 1,
      createdAt: { gte: new Date(last.getTime() - 600_000) },
      reverse: false,
      limit: 20,
    });
    expect(nodes.map((node) => node['Index Name'])).toContain('publication_events_created_at_idx');
    expect(nodes.map((node) => node['Node Type'])).not.toContain('Seq Scan');
  });

  // The big project's 90,000 events span 100,000 × 80 s: a cursor 5%, half and 95% of the way along them.
  let everyEvent: { id: string; created_at: Date }[] | undefined;
  const along = (share: number) => new Date(last.getTime() - (1 - share) * 100_000 * 80_000);
  it.each([
    ['createdAt.gt, oldest first', (share: number) => ({ createdAt: { gt: along(share) }, reverse: false })],
    [
      'createdAt.gte, oldest first',
      (share: number) => ({ createdAt: { gte: along(share) }, reverse: false }),
    ],
    ['createdAt.lt, newest first', (share: number) => ({ createdAt: { lt: along(share) }, reverse: true })],
    ['createdAt.lte, newest first', (share: number) => ({ createdAt: { lte: along(share) }, reverse: true })],
    ['id.gt, oldest first', (share: number) => ({ id: { gt: Math.round(share * 100_000) }, reverse: false })],
  ])(
    'when a poller is anywhere along the stream (%s), then a page reads about its own events, the same far behind as near the head',
    async (_name, bounds) => {
      for (const share of [0.05, 0.5, 0.95]) {
        const filter = { projectId, ...bounds(share), limit: 100 };
        // The events the page must answer, found the plain way: every event of the project, filtered here.
        everyEvent ??= (
          await pool.query<{ id: string; created_at: Date }>(
            'SELECT id, created_at FROM publication_events WHERE project_id = $1 ORDER BY id',
            [projectId],
          )
        ).rows;
        const time = (row: { created_at: Date }) => row.created_at.getTime();
        const { createdAt, id } = filter as Partial<PublicationEventFilter>;
        const expected = everyEvent
          .filter(
            (row) =>
              (createdAt?.gt === undefined || time(row) > createdAt.gt.getTime()) &&
              (createdAt?.gte === undefined || time(row) >= createdAt.gte.getTime()) &&
              (createdAt?.lt === undefined || time(row) < createdAt.lt.getTime()) &&
              (createdAt?.lte === undefined || time(row) <= createdAt.lte.getTime()) &&
              (id?.gt === undefined || Number(row.id) > id.gt),
          )
          .map((row) => Number(row.id));
        const page = await publicationEventQueries(pool).list(filter);
        expect(page.map((event) => Number(event.id))).toEqual(
          (filter.reverse ? expected.reverse() : expected).slice(0, 100),
        );
        // A page of 100 reads ~111 rows (the other project's among them). Before, Postgres read every event
        // on one side of a time bound, up to 95,000 rows for a page (0.6 s with 270,000 of them).
        expect(await rowsReadBy(pool, filter)).toBeLessThan(300);
      }
    },
  );

  it('when events written before createdAt followed the stream are behind an earlier id, then the migration raises them to it', async () => {
    // The old writer took the time a request began: a publish that waited on a row lock committed after a
    // later one, with an earlier time. Raised to the latest createdAt before it, a reader by time finds it.
    const project = await pool.query<{ id: number }>(
      `INSERT INTO projects (handle, name) VALUES ('legacy', 'Legacy') RETURNING id`,
    );
    const legacy = project.rows[0]!.id;
    const times = ['10:00:00', '10:00:05', '10:00:02', '10:00:01', '10:00:07', '10:00:06'];
    const inserted = await pool.query<{ id: string }>(
      `INSERT INTO publication_events (project_id, channel_id, document_id, document_type, content_type,
         event_type, publication_id, created_at)
       SELECT $1, 1, n, 'article', 'regular', 'publish', n, ('2026-01-01 ' || t)::timestamptz
       FROM unnest($2::text[]) WITH ORDINALITY AS u(t, n) ORDER BY n
       RETURNING id`,
      [legacy, times],
    );
    const { rows: before } = await pool.query<{ created_at: Date }>(
      'SELECT created_at FROM publication_events WHERE project_id <> $1 ORDER BY id',
      [legacy],
    );
    const file = await readFile(
      packagePath('src', 'db', 'migrations', '1795510000000_publication-events-created-at-order.sql'),
      'utf8',
    );
    await pool.query(file.split('-- Down Migration')[0]!);
    const { rows } = await pool.query<{ id: string; created_at: Date }>(
      'SELECT id, created_at FROM publication_events WHERE project_id = $1 ORDER BY id',
      [legacy],
    );
    expect(rows.map((row) => row.id)).toEqual(inserted.rows.map((row) => row.id));
    expect(rows.map((row) => row.created_at.toISOString().slice(11, 19))).toEqual([
      '10:00:00',
      '10:00:05',
      '10:00:05',
      '10:00:05',
      '10:00:07',
      '10:00:07',
    ]);
    // The other projects' events, in order already, are left as they were.
    const { rows: after } = await pool.query<{ created_at: Date }>(
      'SELECT created_at FROM publication_events WHERE project_id <> $1 ORDER BY id',
      [legacy],
    );
    expect(after).toEqual(before);
  });
});
