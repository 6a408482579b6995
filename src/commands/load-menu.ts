import { withTransaction, type Pool } from '../db/pool';
import { channelQueries } from '../db/queries/channels';
import { documentQueries } from '../db/queries/documents';
import { menuQueries, type MenuRow } from '../db/queries/menus';
import { AppError } from '../domain/errors';
import { findBodyProblem } from '../domain/json-limits';
import { inspectMenu, MAX_MENU_VERSION } from '../domain/menus';
import { issuesToPaths } from '../domain/validation';

export interface LoadMenuInput {
  projectId: number;
  /** The channel the menu belongs to; the project's default channel when absent. */
  channelHandle?: string | undefined;
  /** The menu as the file holds it (supplement §8). */
  menu: unknown;
}

/**
 * `broadsheet menu load`: checks a menu file (every problem at its path, e.g. `nodes.0.nodes.1.documentId`),
 * checks that its document nodes name documents of the project, and stores it under its handle in the
 * channel, replacing the menu of that handle, all in one transaction. The file's problems and its unknown
 * documents are refused together, in one run (a document node whose own shape is valid is looked up even
 * when other parts of the file are wrong).
 */
export async function loadMenu(pool: Pool, input: LoadMenuInput): Promise<MenuRow & { channel: string }> {
  // What the API's body walk refuses (depth, __proto__ keys, NUL), before validation copies the value.
  const problem = findBodyProblem(input.menu);
  if (problem) throw AppError.validation({ [problem.key]: problem.message });
  const { checked, documentNodes } = inspectMenu(input.menu);
  return withTransaction(pool, async (tx) => {
    const existing = new Set(
      await documentQueries(tx).findExistingIds(
        input.projectId,
        documentNodes.map((node) => node.documentId),
      ),
    );
    const missing = documentNodes
      .filter((node) => !existing.has(node.documentId))
      .map((node) => ({
        path: [...node.path, 'documentId'],
        message: `document ${node.documentId} does not exist in this project`,
      }));
    const issues = [...(checked.ok ? [] : checked.issues), ...missing];
    if (!checked.ok || issues.length > 0) throw AppError.validation(issuesToPaths(issues));
    const channels = channelQueries(tx);
    const channel =
      input.channelHandle === undefined
        ? await channels.findDefault(input.projectId)
        : await channels.findByHandle(input.projectId, input.channelHandle);
    if (!channel) throw AppError.notFound(`Channel '${input.channelHandle ?? '(default)'}' not found`);

    const stored = await menuQueries(tx).upsert(input.projectId, channel.id, checked.value);
    if (!stored) {
      throw AppError.conflict(
        `Menu '${checked.value.handle}' of channel '${channel.handle}' is at version ${MAX_MENU_VERSION}, ` +
          'the highest a menu can have: a change cannot count its version up; nothing was stored',
      );
    }
    return { ...stored, channel: channel.handle };
  });
}
