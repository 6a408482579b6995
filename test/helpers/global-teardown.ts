import pg from 'pg';
import { Client } from '@elastic/elasticsearch';

/** Drops the run's throwaway database and Elasticsearch indices. */
export default async function globalTeardown(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  const prefix = process.env.ELASTICSEARCH_INDEX_PREFIX;
  if (prefix && process.env.ELASTICSEARCH_URL) {
    const es = new Client({ node: process.env.ELASTICSEARCH_URL });
    await es.indices.delete({ index: `${prefix}-*`, ignore_unavailable: true, allow_no_indices: true }).catch(() => undefined);
    await es.close();
  }
  if (databaseUrl && process.env.KEEP_TEST_DATABASE !== '1') {
    const url = new URL(databaseUrl);
    const name = url.pathname.slice(1);
    url.pathname = '/postgres';
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
    await client.end();
  }
}
