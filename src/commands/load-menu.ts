import { withTransaction, type Pool } from '../db/pool';
import { channelQueries } from '../db/queries/channels';
import { documentQueries } from '../db/queries/documents';
import { menuQueries, type MenuRow } from '../db/queries/menus';
import { AppError } from '../domain/errors';
import { findBodyProblem } from '../domain/json-limits';
import { addedDocumentNodes, inspectMenu, MAX_MENU_VERSION, menuDocumentIds } from '../domain/menus';
import { quoted } from '../domain/shown-input';
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
 * checks that the document nodes it adds name documents of the project, and stores it under its handle in the
 * channel, replacing the menu of that handle, all in one transaction. A node naming a document the stored menu
 * of that handle links to already passes, gone since or not (addedDocumentNodes): reloading an unchanged file
 * after a linked document was deleted must not block every other change to the menu. The file's problems and
 * the unknown documents it adds are refused together, in one run (a document node whose own shape is valid is
 * looked up even when other parts of the file are wrong).
 */
export async function loadMenu(pool: Pool, input: LoadMenuInput): Promise<MenuRow & { channel: string }> {
  // What the API's body walk refuses (depth, __proto__ keys, NUL), before validation copies the value.
  const problem = findBodyProblem(input.menu);
  if (problem) throw AppError.validation({ [problem.key]: problem.message });
  const { checked, documentNodes } = inspectMenu(input.menu);
  return withTransaction(pool, async (tx) => {
    const channels = channelQueries(tx);
    const channel =
      input.channelHandle === undefined
        ? await channels.findDefault(input.projectId)
        : await channels.findByHandle(input.projectId, input.channelHandle);
    const menus = menuQueries(tx);
    // The menu the file replaces; its handle as the file gives it, also when other parts of the file are wrong.
    const handle = checked.ok ? checked.value.handle : rawHandle(input.menu);
    const storedNodes =
      channel === undefined || handle === undefined || documentNodes.length === 0
        ? undefined
        : await menus.findNodesForUpdate(input.projectId, channel.id, handle);
    const added = addedDocumentNodes(documentNodes, menuDocumentIds(storedNodes ?? []));
    const existing = new Set(
      added.length === 0
        ? []
        : await documentQueries(tx).findExistingIds(
            input.projectId,
            added.map((node) => node.documentId),
          ),
    );
    const missing = added
      .filter((node) => !existing.has(node.documentId))
      .map((node) => ({
        path: [...node.path, 'documentId'],
        message: `document ${node.documentId} does not exist in this project`,
      }));
    const issues = [...(checked.ok ? [] : checked.issues), ...missing];
    if (!checked.ok || issues.length > 0) throw AppError.validation(issuesToPaths(issues));
    if (!channel) throw AppError.notFound(`Channel ${quoted(input.channelHandle ?? '(default)')} not found`);

    const stored = await menus.upsert(input.projectId, channel.id, checked.value);
    if (!stored) {
      throw AppError.conflict(
        `Menu '${checked.value.handle}' of channel '${channel.handle}' is at version ${MAX_MENU_VERSION}, ` +
          'the highest a menu can have: a change cannot count its version up; nothing was stored',
      );
    }
    return { ...stored, channel: channel.handle };
  });
}

/** The file's `handle` when it is a string (the menu it would replace), checked or not. */
function rawHandle(menu: unknown): string | undefined {
  if (typeof menu !== 'object' || menu === null || !('handle' in menu)) return undefined;
  return typeof menu.handle === 'string' ? menu.handle : undefined;
}
