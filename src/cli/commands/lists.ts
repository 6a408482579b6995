import type { Command } from 'commander';
import { describeError, withContext } from '../run';
import { resolveProjectId } from './clients';

const listIds = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the action only (see run.ts)
  require('../../domain/document-lists') as typeof import('../../domain/document-lists');
const documentLists = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the action only (see run.ts)
  require('../../db/queries/document-lists') as typeof import('../../db/queries/document-lists');

/** `broadsheet list create|add|ls`: the document lists GET document-lists serves (api-spec §4.7, §4.8). */
export function listCommands(program: Command): void {
  const lists = program
    .command('list')
    .description("Manage a project's document lists (served by GET document-lists and document-lists/{id})");

  lists
    .command('create')
    .description('Create an empty list; names are unique within a project. Prints the list as JSON')
    .requiredOption('-p, --project <handle|id>', 'project the list belongs to')
    .requiredOption('-n, --name <name>', 'name of the list (what GET document-lists?name= finds)')
    .action(async (options: { project: string; name: string }) => {
      await withContext(async (ctx) => {
        const projectId = await resolveProjectId(ctx, options.project);
        try {
          const list = await ctx.commands.createDocumentList({ projectId, name: options.name });
          console.error(`list ${list.id} '${list.name}' created in project ${options.project}`);
          console.log(JSON.stringify({ id: list.id, name: list.name }, null, 2));
        } catch (error) {
          throw new Error(describeError(error));
        }
      });
    });

  lists
    .command('add')
    .description(
      "Append documents of the list's project to its end, in the order given (ids already in the list keep " +
        'their place); one unknown id refuses the whole call. Only published documents are served, newest-added first',
    )
    .argument('<listId>', 'id of the list (from `list create` or `list ls`)')
    .argument('<documentId...>', 'document ids, in list order')
    .action(async (listId: string, documentIds: string[]) => {
      if (!/^[1-9]\d*$/.test(listId) || !Number.isSafeInteger(Number(listId))) {
        throw new Error(`listId must be a positive integer, not '${listId}'`);
      }
      const ids = listIds().parseDocumentIds(documentIds);
      if (!ids.ok) throw new Error(`documentId ${ids.issues[0]!.message}`);
      await withContext(async (ctx) => {
        try {
          const result = await ctx.commands.addToDocumentList({
            listId: Number(listId),
            documentIds: ids.value,
          });
          console.error(
            `list ${result.list.id} '${result.list.name}': ${result.added.length} added` +
              (result.alreadyListed.length > 0 ? `, already listed: ${result.alreadyListed.join(', ')}` : ''),
          );
          console.log(
            JSON.stringify({ id: result.list.id, added: result.added, alreadyListed: result.alreadyListed }),
          );
        } catch (error) {
          throw new Error(describeError(error));
        }
      });
    });

  lists
    .command('ls')
    .description('Print the lists of a project as JSON: id, name, how many items and how many are published')
    .requiredOption('-p, --project <handle|id>', 'project whose lists to show')
    .action(async (options: { project: string }) => {
      await withContext(async (ctx) => {
        const projectId = await resolveProjectId(ctx, options.project);
        const summaries = await documentLists().documentListOverviewQueries(ctx.pool).summaries(projectId);
        console.log(
          JSON.stringify(
            summaries.map((list) => ({
              id: list.id,
              name: list.name,
              items: list.items,
              published: list.published,
              updatedAt: list.updatedAt.toISOString(),
            })),
            null,
            2,
          ),
        );
      });
    });
}
