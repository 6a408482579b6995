import type { Command } from 'commander';
import { describeError, readJsonFile, withContext } from '../run';
import { resolveProjectId } from './clients';

/** `broadsheet menu load <file>`: store a menu of a project's channel (supplement §8). */
export function menuCommands(program: Command): void {
  const menus = program
    .command('menu')
    .description("Manage a project's menus (served by GET menus up to 2025-03)");
  menus
    .command('load')
    .description(
      'Load a menu from a JSON file {handle, label, version?, maxDepth, nodes} and store it under its handle, ' +
        'replacing the menu of that handle; a document node must name a document of the project, unless the ' +
        'stored menu of that handle links to that document already (deleted since or not). Prints the stored menu',
    )
    .argument('<file>', 'menu JSON file, in the shape sites send and expect')
    .requiredOption('-p, --project <handle|id>', 'project the menu belongs to')
    .option('-c, --channel <handle>', "channel of the menu (default: the project's default channel)")
    .action(async (file: string, options: { project: string; channel?: string }) => {
      const menu = await readJsonFile(file);
      await withContext(async (ctx) => {
        const projectId = await resolveProjectId(ctx, options.project);
        try {
          const stored = await ctx.commands.loadMenu({ projectId, channelHandle: options.channel, menu });
          console.error(
            `menu ${stored.handle} version ${stored.version} stored in channel ${stored.channel}`,
          );
          const { channel: _channel, ...shown } = stored;
          console.log(JSON.stringify(shown, null, 2));
        } catch (error) {
          throw new Error(describeError(error));
        }
      });
    });
}
