import pg from 'pg';
import { Client } from '@elastic/elasticsearch';

/** Drops the run's throwaway database and Elasticsearch indices. */
export default async function globalTeardown(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  const prefix = process.env.ELASTICSEARCH_INDEX_PREFIX;
  if (prefix && process.env.ELASTICSEARCH_URL) {
    const es = new Client({ node: process.env.ELASTICSEARCH_URL });
    // Elasticsearch refuses wildcard deletes (action.destructive_requires_name): name every index of the run.
    const indices = Object.keys(await es.indices.get({ index: `${prefix}-*`, allow_no_indices: true }));
    if (indices.length > 0) await es.indices.delete({ index: indices });
    await es.close();
  }
  if (databaseUrl && process.env.KEEP_TEST_DATABASE !== '1') {
    const url = new URL(databaseUrl);
    const name = url.pathname.slice(1);
    url.pathname = '/postgres';
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    // The run's database and the isolated ones some files make beside it (`<name>_<suffix>`).
    const { rows } = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname = $1 OR starts_with(datname, $1 || '_')`,
      [name],
    );
    for (const { datname } of rows) {
      await client.query(`DROP DATABASE IF EXISTS "${datname.replaceAll('"', '""')}" WITH (FORCE)`);
    }
    await client.end();
  }
}
