import type { Command } from 'commander';
import { ensureDatabase, migrate } from '../../db/migrate';
import { cliConfig } from '../run';

export function migrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('Create the database if it is missing and apply every pending migration')
    .action(async () => {
      const config = cliConfig();
      await ensureDatabase(config.database.url);
      const applied = await migrate(config.database.url);
      console.error(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
    });
}
