import { withTransaction, type Pool } from '../db/pool';
import { documentListEditQueries, type DocumentListRow } from '../db/queries/document-lists';
import { documentQueries } from '../db/queries/documents';
import { AppError } from '../domain/errors';
import { quoted } from '../domain/shown-input';
import { checkListName } from '../domain/document-lists';
import { valueOrThrow } from '../domain/validation';

/** `broadsheet list create`: a new, empty list of the project; a name the project already uses is refused. */
export async function createDocumentList(
  pool: Pool,
  input: { projectId: number; name: string },
): Promise<DocumentListRow> {
  const name = valueOrThrow(checkListName(input.name), 'name');
  const list = await documentListEditQueries(pool).create(input.projectId, name);
  if (!list) throw AppError.conflict(`The project already has a list named ${quoted(name)}`);
  return list;
}

/**
 * `broadsheet list add`: appends documents of the list's project to it, in the order given, in one
 * transaction; an id that names no document of the project refuses the whole call, an id already in the
 * list keeps its place. Unpublished documents may be added: the API resolves a list's published ones.
 * Unlike `menu load` (and document commands), an id the list holds already needs no pass of its own: a
 * deleted document leaves every list with it (ON DELETE CASCADE), so a listed id always names a document of
 * the project, and a deleted one is not listed any more: adding it again is a new id, refused. The ids checked
 * are held (FOR KEY SHARE) until the commit, so a document deleted during the call is refused the same way
 * (the delete waits for it or it waits for the delete), never a foreign key error.
 */
export async function addToDocumentList(
  pool: Pool,
  input: { listId: number; documentIds: readonly number[] },
): Promise<{ list: DocumentListRow; added: number[]; alreadyListed: number[] }> {
  const documentIds = [...new Set(input.documentIds)];
  return withTransaction(pool, async (tx) => {
    const lists = documentListEditQueries(tx);
    const list = await lists.findForUpdate(input.listId);
    if (!list) throw AppError.notFound(`Document list ${input.listId} not found`);
    // Held until the commit: a document deleted meanwhile is refused like any other unknown id, instead of
    // the append meeting the foreign key.
    const existing = new Set(
      await documentQueries(tx).findExistingIdsForKeyShare(list.projectId, documentIds),
    );
    const unknown = documentIds.filter((id) => !existing.has(id));
    if (unknown.length > 0) {
      throw AppError.notFound(
        `No document ${unknown.join(', ')} in the project of list ${list.id}; nothing was added`,
      );
    }
    const added = await lists.append(list.id, documentIds);
    const { projectId: _projectId, ...row } = list;
    return { list: row, added, alreadyListed: documentIds.filter((id) => !added.includes(id)) };
  });
}
