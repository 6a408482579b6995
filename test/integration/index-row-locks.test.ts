import type pg from 'pg';
import { createProject } from '../../src/commands/create-project';
import { createPool, type Pool } from '../../src/db/pool';
import { indexRejectionQueries } from '../../src/db/queries/index-rejections';
import { searchDocumentQueries } from '../../src/db/queries/search-documents';
import { buildProjectConfig, TEST_DESIGN } from '../helpers/factories';
import { eventually } from '../helpers/http';

jest.setTimeout(60_000);

/**
 * The indexer's statements over many rows (pg-boss runs several index jobs at once, whose documents overlap):
 * each one locks its rows in document id order, so two of them over the same rows wait for each other
 * instead of each holding a row the other waits for (Postgres aborts one with 40P01 and its job fails).
 * Each statement runs on a connection of its own, autocommitted, as the indexer runs it.
 */
describe('row lock order of the indexer’s statements', () => {
  let pool: Pool;
  let projectId: number;

  beforeAll(async () => {
    pool = createPool(process.env.DATABASE_URL ?? '', 6);
    ({ projectId } = await createProject(pool, { config: buildProjectConfig(), designs: [TEST_DESIGN] }));
  });
  afterAll(() => pool.end());

  /** `count` new documents of the project, ids ascending. */
  async function newDocuments(count: number): Promise<number[]> {
    const result = await pool.query<{ id: number }>(
      `INSERT INTO documents (project_id, channel_id, document_type, content_type)
       SELECT $1, c.id, 'article', 'regular' FROM channels c, generate_series(1, $2)
       WHERE c.project_id = $1 AND c.is_default
       RETURNING id`,
      [projectId, count],
    );
    return result.rows.map((row) => row.id).sort((a, b) => a - b);
  }

  /** A connection of its own and its backend's pid, released after the test. */
  const connections: pg.PoolClient[] = [];
  afterEach(() => {
    for (const client of connections.splice(0)) client.release();
  });
  async function connection(): Promise<{ client: pg.PoolClient; pid: number }> {
    const client = await pool.connect();
    connections.push(client);
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    return { client, pid };
  }
  /** Whether the backend `waiting` waits for a lock `holding` has. */
  const blocks = async (holding: number, waiting: number) =>
    (await pool.query('SELECT 1 WHERE $1 = ANY(pg_blocking_pids($2))', [holding, waiting])).rowCount! > 0;
  /** Waits until `waiting` waits for `holding`, or until `settled` (it never had to wait). */
  const waitsFor = (holding: number, waiting: number, settled: () => boolean) =>
    eventually(async () => settled() || (await blocks(holding, waiting)), 10_000, 10);
  /** The promise's outcome, and whether it has one yet. */
  function track<T>(promise: Promise<T>) {
    const state = { done: false, outcome: Promise.allSettled([promise]).then(([settled]) => settled) };
    void state.outcome.then(() => (state.done = true));
    return state;
  }

  it('when one job removes documents from search_documents while another saves some of them, in the other order, then both finish', async () => {
    // The remove took its rows in the order it was given them (or as they lay in the table), the save in id
    // order: the remove held the highest while the save held the lowest, and each waited for the other's.
    const [low, middle, high] = (await newDocuments(3)) as [number, number, number];
    const stored = (documentId: number, indexVersion: number) => ({
      key: { projectId, documentId },
      indexVersion,
      projectRevision: 1,
      builderVersion: 1,
      body: `{"v":${indexVersion}}`,
    });
    // Stored highest first: the table holds them in the order the remove names them.
    for (const id of [high, middle, low]) await searchDocumentQueries(pool).save([stored(id, 1)]);

    // Another statement holds the middle row a moment: the remove takes what comes before it and waits.
    const holder = await connection();
    await holder.client.query('BEGIN');
    await holder.client.query('SELECT 1 FROM search_documents WHERE document_id = $1 FOR UPDATE', [middle]);
    const remover = await connection();
    const removing = track(
      searchDocumentQueries(remover.client).remove(
        [high, middle, low].map((documentId) => ({ key: { projectId, documentId }, indexVersion: 1 })),
      ),
    );
    await waitsFor(holder.pid, remover.pid, () => removing.done);
    const saver = await connection();
    const saving = track(searchDocumentQueries(saver.client).save([stored(low, 2), stored(high, 2)]));
    await waitsFor(remover.pid, saver.pid, () => saving.done);
    await holder.client.query('ROLLBACK');

    expect(await removing.outcome).toEqual({ status: 'fulfilled', value: undefined });
    expect(await saving.outcome).toEqual({ status: 'fulfilled', value: undefined });
    // One after the other: the remove (which held the rows first), then the save.
    const rows = await pool.query<{ id: number; v: number }>(
      `SELECT document_id AS id, index_version::int AS v FROM search_documents
       WHERE document_id = ANY($1::bigint[]) ORDER BY document_id`,
      [[low, middle, high]],
    );
    expect(rows.rows).toEqual([
      { id: low, v: 2 },
      { id: high, v: 2 },
    ]);
  });

  it('when two jobs record the outcome of the same documents, one refused where the other wrote it, then both finish', async () => {
    // A document whose content changed between two jobs' builds is refused by one and written by the other.
    // saveOutcome recorded the refusals first and forgot the written documents after: the first job held
    // the document it refused and waited for one it wrote, which the second job held as its refusal while
    // waiting for the first one's refusal, to forget it.
    const [lowest, low, high] = (await newDocuments(3)) as [number, number, number];
    const refusal = (documentId: number, reason: string) => ({
      key: { projectId, documentId },
      indexVersion: 1,
      reason,
    });
    await indexRejectionQueries(pool).saveOutcome(
      [lowest, low, high].map((id) => refusal(id, 'earlier')),
      [],
    );

    // Another statement holds the lowest refusal a moment: the first job waits for it there.
    const holder = await connection();
    await holder.client.query('BEGIN');
    await holder.client.query('SELECT 1 FROM index_rejections WHERE document_id = $1 FOR UPDATE', [lowest]);
    const first = await connection();
    const firstSaving = track(
      indexRejectionQueries(first.client).saveOutcome(
        [refusal(high, 'first job')],
        [lowest, low].map((documentId) => ({ projectId, documentId })),
      ),
    );
    await waitsFor(holder.pid, first.pid, () => firstSaving.done);
    const second = await connection();
    const secondSaving = track(
      indexRejectionQueries(second.client).saveOutcome(
        [refusal(low, 'second job')],
        [{ projectId, documentId: high }],
      ),
    );
    await waitsFor(first.pid, second.pid, () => secondSaving.done);
    await holder.client.query('ROLLBACK');

    expect(await firstSaving.outcome).toEqual({ status: 'fulfilled', value: undefined });
    expect(await secondSaving.outcome).toEqual({ status: 'fulfilled', value: undefined });
    const rows = await pool.query<{ id: number; reason: string }>(
      `SELECT document_id AS id, reason FROM index_rejections
       WHERE document_id = ANY($1::bigint[]) ORDER BY document_id`,
      [[lowest, low, high]],
    );
    // What the two leave one after the other, in either order.
    expect([[{ id: low, reason: 'second job' }], [{ id: high, reason: 'first job' }]]).toContainEqual(
      rows.rows,
    );
  });
});
