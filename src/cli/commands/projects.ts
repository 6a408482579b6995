import type { Command } from 'commander';
import { describeError, readJsonFile, withContext } from '../run';

const projectCreation = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the action only (see run.ts)
  require('../../commands/create-project') as typeof import('../../commands/create-project');

export function projectCommands(program: Command): void {
  const projects = program.command('project').description('Manage projects');
  projects
    .command('create')
    .description('Create a project from a project config file (JSON, see supplement §8)')
    .requiredOption('-c, --config <file>', 'project config JSON file')
    .option(
      '-d, --design <file...>',
      'design JSON file(s) to store with the project, {name, version, components, ...}, at most 5 MiB each as JSON; the one the config names is current',
    )
    .option('-n, --name <name>', 'display name (default: settings.label or settings.handle)')
    .action(async (options: { config: string; design?: string[]; name?: string }) => {
      const config = await readJsonFile(options.config);
      const designs: unknown[] = [];
      for (const file of options.design ?? []) designs.push(await readJsonFile(file));
      await withContext(async (ctx) => {
        try {
          const project = await projectCreation().createProject(ctx.pool, {
            config,
            designs,
            ...(options.name ? { name: options.name } : {}),
          });
          console.log(JSON.stringify(project));
        } catch (error) {
          throw new Error(describeError(error));
        }
      });
    });
}
