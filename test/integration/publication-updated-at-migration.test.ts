import { runner } from 'node-pg-migrate';
import { createProject } from '../../src/commands/create-project';
import { ensureDatabase, migrate } from '../../src/db/migrate';
import { createPool, type Pool } from '../../src/db/pool';
import { packagePath } from '../../src/package-root';
import { buildProjectConfig, TEST_DESIGN } from '../helpers/factories';

jest.setTimeout(60_000);

/** The migration that gives publications their own updated_at (src/db/migrations/1795480000000_...). */
const MIGRATION = 1795480000000;

/**
 * Existing publications get the document's updated_at as of their publish, as far as Postgres can tell:
 * written into a database migrated up to the migration before, then migrated.
 */
describe('migration: publications.updated_at for existing publications', () => {
  let pool: Pool;
  let databaseUrl: string;
  let projectId: number;
  let channelId: number;

  beforeAll(async () => {
    const url = new URL(process.env.DATABASE_URL ?? '');
    url.pathname = `${url.pathname}_pubupdated`;
    databaseUrl = url.toString();
    await ensureDatabase(databaseUrl);
    await runner({
      databaseUrl,
      dir: packagePath('src', 'db', 'migrations'),
      direction: 'up',
      migrationsTable: 'pgmigrations',
      count: MIGRATION - 1,
      timestamp: true,
      log: () => undefined,
    });
    pool = createPool(databaseUrl, 2);
    ({ projectId, channelId } = await createProject(pool, {
      config: buildProjectConfig(),
      designs: [TEST_DESIGN],
    }));
  });
  afterAll(async () => {
    await pool.end();
  });

  const at = (minute: number) => new Date(Date.UTC(2025, 5, 1, 12, minute));

  /** A document as the code before the migration left it, at `version`, updated at `updatedAt`. */
  async function document(version: number, updatedAt: Date, createdAt = at(0)): Promise<number> {
    const result = await pool.query<{ id: number }>(
      `INSERT INTO documents (project_id, channel_id, document_type, content_type, version, created_at, updated_at)
       VALUES ($1, $2, 'article', 'regular', $3, $4, $5) RETURNING id`,
      [projectId, channelId, version, createdAt, updatedAt],
    );
    return result.rows[0]!.id;
  }
  async function publication(documentId: number, version: number, publishedAt: Date, latest = true) {
    const result = await pool.query<{ id: number }>(
      `INSERT INTO publications (project_id, document_id, document_version, content_type, document_type,
         metadata, content, published_at)
       VALUES ($1, $2, $3, 'regular', 'article', '{}', '[]', $4) RETURNING id`,
      [projectId, documentId, version, publishedAt],
    );
    const id = result.rows[0]!.id;
    if (latest) {
      await pool.query(
        'UPDATE documents SET latest_publication_id = $2, published_version = $3 WHERE id = $1',
        [documentId, id, version],
      );
    }
    return id;
  }
  /** A commands request that moved the document to `versionAfter` at `createdAt`. */
  async function request(documentId: number, versionAfter: number, createdAt: Date, preserve = false) {
    await pool.query(
      `INSERT INTO document_command_transactions (project_id, document_id, version_before, version_after,
         commands, preserve_updated_at, created_at)
       VALUES ($1, $2, $3, $3 + 1, '[]', $4, $5)`,
      [projectId, documentId, versionAfter - 1, preserve, createdAt],
    );
  }

  it('when the migration runs, then each publication has the updated_at of its version, and publications stay immutable', async () => {
    // Published, nothing written since: the document's updated_at (what every view answered).
    const untouched = await document(2, at(5));
    await request(untouched, 2, at(5));
    const untouchedPublication = await publication(untouched, 2, at(6));

    // Published at version 2, then a draft edit (version 3) at minute 20: version 2's request time.
    const edited = await document(3, at(20));
    await request(edited, 2, at(10));
    await request(edited, 3, at(20));
    const editedPublication = await publication(edited, 2, at(10));

    // Edited at minute 3 (version 2), published with preserveUpdatedAt at minute 30 (version 3), edited again:
    // the kept updated_at of minute 3.
    const preserved = await document(4, at(40));
    await request(preserved, 2, at(3));
    await request(preserved, 3, at(30), true);
    await request(preserved, 4, at(40));
    const preservedPublication = await publication(preserved, 3, at(30));

    // Only preserveUpdatedAt requests since it was created: its created_at.
    const neverTouched = await document(3, at(50), at(1));
    await request(neverTouched, 2, at(45), true);
    await request(neverTouched, 3, at(50));
    const neverTouchedPublication = await publication(neverTouched, 2, at(45));

    // Version 2 was an import (no request on record), then a request: the publish time is all there is.
    const imported = await document(3, at(59));
    await request(imported, 3, at(59));
    const importedPublication = await publication(imported, 2, at(57));

    // An older publication of a republished document: its own version's time; the latest the document's.
    const republished = await document(3, at(15));
    await request(republished, 2, at(7));
    await request(republished, 3, at(15));
    const older = await publication(republished, 2, at(7), false);
    const newer = await publication(republished, 3, at(15));

    await migrate(databaseUrl);

    const rows = await pool.query<{ id: number; updated_at: Date }>(
      'SELECT id, updated_at FROM publications ORDER BY id',
    );
    expect(new Map(rows.rows.map((row) => [row.id, row.updated_at.toISOString()]))).toEqual(
      new Map([
        [untouchedPublication, at(5).toISOString()],
        [editedPublication, at(10).toISOString()],
        [preservedPublication, at(3).toISOString()],
        [neverTouchedPublication, at(1).toISOString()],
        [importedPublication, at(57).toISOString()],
        [older, at(7).toISOString()],
        [newer, at(15).toISOString()],
      ]),
    );
    await expect(
      pool.query('UPDATE publications SET updated_at = now() WHERE id = $1', [newer]),
    ).rejects.toThrow('publications are immutable');
    await expect(
      pool.query(
        `INSERT INTO publications (project_id, document_id, document_version, content_type, document_type,
           metadata, content)
         VALUES ($1, $2, 3, 'regular', 'article', '{}', '[]')`,
        [projectId, newer],
      ),
    ).rejects.toThrow('updated_at');
  });
});
