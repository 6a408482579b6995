import pg from 'pg';
import { ensureDatabase, migrate } from '../../src/db/migrate';
import type { Queryable } from '../../src/db/pool';
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
});
