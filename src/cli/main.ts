#!/usr/bin/env node
import { Command } from 'commander';
import { clientCommands } from './commands/clients';
import { demoCommand } from './commands/demo';
import { exportCommand } from './commands/export';
import { importCommand } from './commands/import';
import { indexCommands } from './commands/index';
import { listCommands } from './commands/lists';
import { mediaCommands } from './commands/media';
import { menuCommands } from './commands/menus';
import { migrateCommand } from './commands/migrate';
import { projectCommands } from './commands/projects';
import { heapGrowingPercentOf, setHeapGrowth } from '../heap-growth';
import { errorMessage, exitCodeOf, ignoreClosedPipes, oneLineUsageErrors } from './run';

/**
 * `broadsheet <command>`: the operators' CLI. Thin: it parses arguments and prints; the work is done by
 * the same modules the API uses.
 */
const program = new Command()
  .name('broadsheet')
  .description(
    'Operate a Broadsheet installation: migrate, create projects and API tokens, import, export, load the demo, index, menus, lists, backfill media.',
  );

ignoreClosedPipes();
// Exports, imports and rebuilds move many megabytes a second through the heap (see HEAP_GROWING_PERCENT).
setHeapGrowth(heapGrowingPercentOf(process.env));

migrateCommand(program);
projectCommands(program);
clientCommands(program);
importCommand(program);
exportCommand(program);
demoCommand(program);
indexCommands(program);
menuCommands(program);
listCommands(program);
mediaCommands(program);
oneLineUsageErrors(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  console.error(`broadsheet: ${errorMessage(error)}`);
  process.exit(exitCodeOf(error));
});
