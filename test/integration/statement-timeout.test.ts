import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../../src/config';
import { createContext, type AppContext } from '../../src/context';
import { createPool, isDatabaseUnavailable, type Pool } from '../../src/db/pool';
import { createApp } from '../../src/http/app';
import { listen } from '../../src/http/server';
import { createDraftDocument } from '../helpers/draft-documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';

/**
 * DATABASE_STATEMENT_TIMEOUT_MS: Postgres's statement_timeout on the API's and the workers' connections, a
 * bound on a statement's whole time. DATABASE_QUERY_TIMEOUT_MS bounds only a connection's silence, so a
 * statement that keeps sending rows, or one waiting on a lock another session holds, ran for good.
 */
describe('the statement timeout (DATABASE_STATEMENT_TIMEOUT_MS)', () => {
  const url = process.env.DATABASE_URL ?? '';

  describe('on the pool', () => {
    const pools: Pool[] = [];
    const poolOf = (statementTimeoutMs: number) => {
      const pool = createPool(url, 1, {
        connectTimeoutMs: 5_000,
        poolWaitMs: 5_000,
        queryTimeoutMs: 1_000,
        statementTimeoutMs,
      });
      pools.push(pool);
      return pool;
    };
    afterAll(async () => {
      await Promise.all(pools.map((pool) => pool.end()));
    });

    // Rows of 20 kB leave Postgres's send buffer as they are made, one every 250 ms, for 3 s: never silent
    // for the 1 s query timeout.
    const streaming = `SELECT n, repeat('x', 20000) || pg_sleep(0.25)::text AS text FROM generate_series(1, 12) AS n`;

    it('when an answer keeps streaming past it, then Postgres cancels the statement (57014): the database unavailable, and the connection serves the next query', async () => {
      const pool = poolOf(1_500);
      const started = performance.now();
      const error = await pool.query(streaming).catch((caught: unknown) => caught);
      const took = performance.now() - started;
      expect((error as { code?: string }).code).toBe('57014');
      expect((error as Error).message).toBe('canceling statement due to statement timeout');
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(took).toBeGreaterThanOrEqual(1_400);
      expect(took).toBeLessThan(2_900);
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    });

    it('when it is 0, then none is set: the same answer is read whole', async () => {
      const pool = poolOf(0);
      expect(
        (await pool.query<{ s: string }>("SELECT current_setting('statement_timeout') AS s")).rows,
      ).toEqual([{ s: '0' }]);
      expect((await pool.query(streaming)).rows).toHaveLength(12);
    });
  });

  describe('through the API, while another session holds the document a PATCH writes', () => {
    interface Running {
      ctx: AppContext;
      url: string;
      lines: string[];
      close(): Promise<void>;
    }
    /** The real API with its log captured, on the run's database, with DATABASE_STATEMENT_TIMEOUT_MS set. */
    const start = async (statementTimeoutMs: string): Promise<Running> => {
      const config = loadConfig(
        { ...process.env, LOG_LEVEL: 'info', DATABASE_STATEMENT_TIMEOUT_MS: statementTimeoutMs },
        { server: true },
      );
      const ctx = await createContext(config, { supervise: false });
      const lines: string[] = [];
      ctx.logger = pino(
        { level: 'info' },
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            lines.push(chunk.toString('utf8'));
            done();
          },
        }),
      );
      const server = await listen(createApp(ctx), 0, '127.0.0.1', config);
      return {
        ctx,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        lines,
        async close() {
          server.closeAllConnections();
          await new Promise<void>((resolve) => server.close(() => resolve()));
          await ctx.close();
        },
      };
    };

    const running: Running[] = [];
    const locker = new pg.Client({ connectionString: url });
    beforeAll(async () => {
      await locker.connect();
    });
    afterAll(async () => {
      await locker.end();
      await Promise.all(running.map((app) => app.close()));
    });

    /** A draft, and a client allowed to write it. */
    const draftOf = async (app: Running) => {
      const project = await createTestProject(app.ctx);
      const { token } = await tokenFor(app.ctx, project.projectId);
      const doc = await createDraftDocument(app.ctx, project);
      return { project, doc, api: apiClient(app.url, token) };
    };
    /** Holds the document's row in another session (its write waits); `released` once let go, after `ms`. */
    const holdRow = async (documentId: number, ms: number) => {
      await locker.query('BEGIN');
      await locker.query('SELECT id FROM documents WHERE id = $1 FOR UPDATE', [documentId]);
      const released = new Promise((resolve) => setTimeout(resolve, ms)).then(() => locker.query('ROLLBACK'));
      return { released };
    };
    const retitle = (version: number) => ({
      version,
      commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'Changed' }],
    });
    const titleOf = async (app: Running, documentId: number) =>
      (
        await app.ctx.pool.query<{ title: string }>(
          `SELECT metadata->>'title' AS title FROM documents WHERE id = $1`,
          [documentId],
        )
      ).rows[0]?.title;

    it('when it is 300 ms, then the waiting write is cancelled: 503 DatabaseUnavailable with Retry-After, nothing written, and the log names the bound', async () => {
      const app = await start('300');
      running.push(app);
      const { doc, api } = await draftOf(app);
      const { released } = await holdRow(doc.id, 3_000);
      let removed = 0;
      app.ctx.pool.on('remove', () => removed++);
      const started = performance.now();
      const response = await api.patch(`documents/${doc.id}/commands`, retitle(doc.version));
      const took = performance.now() - started;
      await released;

      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(response.body).toEqual({
        status: 503,
        error: 'Service Unavailable',
        error_details: {
          name: 'DatabaseUnavailable',
          message: 'The database is unavailable right now; try again in a few seconds',
        },
      });
      // Cut by the bound, not answered once the row was let go.
      expect(took).toBeLessThan(2_500);
      expect(await titleOf(app, doc.id)).toBe('A draft');
      // Its transaction rolled back, the connection answered: it stays in the pool, not destroyed as a lost one.
      expect(removed).toBe(0);
      const warning = app.lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.msg === 'database unavailable');
      expect(warning).toMatchObject({
        level: 40,
        bound: 'DATABASE_STATEMENT_TIMEOUT_MS',
        reason:
          'Postgres cancelled the statement after DATABASE_STATEMENT_TIMEOUT_MS (300 ms; statement_timeout)',
        url: `/api/2026-03/documents/${doc.id}/commands`,
      });

      // The row free again, the same write goes through on the same process.
      const again = await api.patch(`documents/${doc.id}/commands`, retitle(doc.version));
      expect(again.status).toBe(204);
      expect(await titleOf(app, doc.id)).toBe('Changed');
    });

    it("when it is 300 ms, then the API's connections have it and pg-boss's own do not (its migrations and maintenance)", async () => {
      const app = await start('300');
      running.push(app);
      const setting = "SELECT current_setting('statement_timeout') AS s";
      expect((await app.ctx.pool.query<{ s: string }>(setting)).rows).toEqual([{ s: '300ms' }]);
      const listening = app.ctx.pool.dedicatedClient();
      await listening.connect();
      try {
        expect((await listening.query<{ s: string }>(setting)).rows).toEqual([{ s: '300ms' }]);
      } finally {
        await listening.end();
      }
      expect((await app.ctx.boss.getDb().executeSql(setting)).rows).toEqual([{ s: '0' }]);
    });

    it('when it is 0 (off), then the write waits for the row and is written', async () => {
      const app = await start('0');
      running.push(app);
      const { doc, api } = await draftOf(app);
      const { released } = await holdRow(doc.id, 1_500);
      const started = performance.now();
      const response = await api.patch(`documents/${doc.id}/commands`, retitle(doc.version));
      const took = performance.now() - started;
      await released;
      expect(response.status).toBe(204);
      expect(took).toBeGreaterThanOrEqual(1_400);
      expect(await titleOf(app, doc.id)).toBe('Changed');
    });
  });
});
