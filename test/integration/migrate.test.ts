import pg from 'pg';
import { ensureDatabase, migrate } from '../../src/db/migrate';

/** A database of this run that does not exist yet (global-teardown drops it with the run's others). */
function freshDatabaseUrl(suffix: string): string {
  const url = new URL(process.env.DATABASE_URL ?? '');
  url.pathname = `${url.pathname}_${suffix}`;
  return url.toString();
}

describe('broadsheet migrate, run several times at once', () => {
  it('when several migrates create the same missing database at once, then every one succeeds', async () => {
    // The losers of the race failed with 'duplicate key value violates unique constraint
    // "pg_database_datname_index"', exit 1.
    const databaseUrl = freshDatabaseUrl('created_at_once');
    await expect(Promise.all([1, 2, 3, 4].map(() => ensureDatabase(databaseUrl)))).resolves.toHaveLength(4);
    await expect(ensureDatabase(databaseUrl)).resolves.toBeUndefined();
  });

  it('when several migrates run at once, then one applies the migrations and the others wait and find them applied', async () => {
    // The others failed with "Another migration is already running. Advisory lock mode is set to 'fail'.".
    const databaseUrl = freshDatabaseUrl('migrated_at_once');
    await ensureDatabase(databaseUrl);
    const results = await Promise.all([1, 2, 3].map(() => migrate(databaseUrl)));
    const applied = results.filter((names) => names.length > 0);
    expect(applied).toHaveLength(1);
    expect(results.filter((names) => names.length === 0)).toHaveLength(2);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(
        'SELECT name FROM pgmigrations ORDER BY run_on, id',
      );
      expect(rows.map((row) => row.name)).toEqual(applied[0]);
    } finally {
      await client.end();
    }
  });
});
