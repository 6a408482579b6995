import type { Command } from 'commander';
import { ensureDatabase, migrate } from '../../db/migrate';
import { databaseStartError } from '../../db/pool';
import { cliConfig } from '../run';

export function migrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('Create the database if it is missing and apply every pending migration')
    .action(async () => {
      const config = cliConfig();
      const applied = await ensureDatabase(config.database.url)
        .then(() => migrate(config.database.url))
        .catch((error: unknown) => {
          throw databaseStartError(config.database.url, error);
        });
      console.error(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
    });
}
