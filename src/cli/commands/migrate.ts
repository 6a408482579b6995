import type { Command } from 'commander';
import { cliConfig } from '../run';

const migrations = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the action only (see run.ts)
  require('../../db/migrate') as typeof import('../../db/migrate');
const pool = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the action only (see run.ts)
  require('../../db/pool') as typeof import('../../db/pool');

export function migrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('Create the database if it is missing and apply every pending migration')
    .action(async () => {
      const config = cliConfig();
      const { ensureDatabase, migrate } = migrations();
      const { databaseStartError } = pool();
      // Bounded by DATABASE_CONNECT_TIMEOUT_MS: a Postgres that never answers is named, not waited on forever.
      const connect = { connectTimeoutMs: config.database.connectTimeoutMs };
      const applied = await ensureDatabase(config.database.url, connect)
        .then(() => migrate(config.database.url, undefined, connect))
        .catch((error: unknown) => {
          throw databaseStartError(config.database.url, error);
        });
      console.error(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
    });
}
