import { randomUUID } from 'node:crypto';
import { createPool, type Pool } from '../../src/db/pool';
import {
  apiClientRequestWindowQueries,
  type WindowIncrement,
} from '../../src/db/queries/api-client-request-windows';
import { commitWhenBlocked } from '../helpers/held-transaction';

/**
 * The shared per-client request counts that every API process adds to (RateLimitCounter's sync adds all the
 * clients it saw in one UPSERT): the statement as two processes run it at once.
 */
describe('shared rate-limit counts (api_client_request_windows)', () => {
  let pool: Pool;

  beforeAll(() => {
    pool = createPool(process.env.DATABASE_URL ?? '', 4);
  });
  afterAll(() => pool.end());

  /** A day's window of its own for each test, long past, so no other test's counts meet these. */
  let day = 0;
  const windowOf = () => Date.UTC(2001, 0, 1) + (day += 1) * 86_400_000;
  const increments = (clients: readonly string[], windowStartMs: number, requests = 1): WindowIncrement[] =>
    clients.map((clientId) => ({ clientId, periodSeconds: 86_400, windowStartMs, requests }));

  it('when one process adds many clients’ counts while another holds one of them, then it has locked exactly those before it in key order, whatever order it was given', async () => {
    // Rows taken in key order by every statement: two processes' syncs over overlapping clients then never
    // hold one row each while waiting for the other's (a deadlock, which aborts one of them).
    const clients = Array.from({ length: 16 }, () => randomUUID()).sort();
    const windowStartMs = windowOf();
    const queries = apiClientRequestWindowQueries(pool);
    await queries.add(increments(clients, windowStartMs));
    const held = 8;
    let unlocked: string[] | undefined;
    const outcome = await commitWhenBlocked(
      pool,
      {
        text: `SELECT 1 FROM api_client_request_windows
               WHERE client_id = $1 AND period_seconds = 86400 AND window_start = to_timestamp($2 / 1000.0)
               FOR UPDATE`,
        values: [clients[held], windowStartMs],
      },
      () => queries.add(increments([...clients].reverse(), windowStartMs)),
      async () => {
        const free = await pool.query<{ clientId: string }>(
          `SELECT client_id AS "clientId" FROM api_client_request_windows
           WHERE client_id = ANY($1::uuid[]) AND period_seconds = 86400
             AND window_start = to_timestamp($2 / 1000.0)
           FOR UPDATE SKIP LOCKED`,
          [clients, windowStartMs],
        );
        unlocked = free.rows.map((row) => row.clientId).sort();
      },
    );
    expect(unlocked).toEqual(clients.slice(held + 1));
    expect(outcome).toEqual({ status: 'fulfilled', value: clients.map(() => 2) });
  });

  it('when two processes add overlapping clients in opposite orders at once, then both finish and every count is the sum', async () => {
    const clients = Array.from({ length: 40 }, () => randomUUID());
    const windowStartMs = windowOf();
    const queries = apiClientRequestWindowQueries(pool);
    const rounds = 25;
    const forward = increments(clients, windowStartMs);
    const backward = increments(clients.slice(5).reverse(), windowStartMs);
    for (let round = 0; round < rounds; round += 1) {
      await Promise.all([queries.add(forward), queries.add(backward)]);
    }
    const counts = await pool.query<{ clientId: string; requests: number }>(
      `SELECT client_id AS "clientId", requests FROM api_client_request_windows
       WHERE client_id = ANY($1::uuid[]) AND window_start = to_timestamp($2 / 1000.0)`,
      [clients, windowStartMs],
    );
    const byClient = new Map(counts.rows.map((row) => [row.clientId, row.requests]));
    expect(clients.map((client) => byClient.get(client))).toEqual(
      clients.map((_, index) => (index < 5 ? rounds : 2 * rounds)),
    );
  });
});
