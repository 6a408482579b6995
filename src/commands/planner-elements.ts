import { withTransaction, type Pool, type Transaction } from '../db/pool';
import { designQueries } from '../db/queries/designs';
import { documentQueries } from '../db/queries/documents';
import { plannerElementQueries, type PlannerElementRow } from '../db/queries/planner-elements';
import { projectQueries, type ProjectRow } from '../db/queries/projects';
import { AppError } from '../domain/errors';
import { quoted } from '../domain/shown-input';
import {
  elementCommands,
  plannerElementContentType,
  plannerElementsEnabled,
  storedElementFields,
  type ElementFields,
} from '../domain/planner-element';
import {
  assertPutPreconditions,
  assertWritePreconditions,
  type PreconditionTarget,
  type WritePreconditions,
} from '../domain/write-preconditions';
import type { Boss } from '../jobs/boss';
import { runDocumentCommandsIn } from './run-document-commands';

export interface PlannerElementInput {
  projectId: number;
  /** The element as parsed (its mapped fields checked); its id is what PUT planner/element/{documentId} may omit. */
  element: ElementFields & { id?: string | undefined };
  /** The element's body exactly as the tool sent it: what is stored. */
  received: unknown;
  /** The API client of the request, recorded with the command transaction. */
  clientId: string;
  now: Date;
}

export interface PlannerElementResult {
  /** The linked document. */
  id: number;
  /** True when the request created the document (201), false when it linked or updated one (200). */
  created: boolean;
}

/**
 * POST planner/element: creates a draft for an element the project does not know yet (its metadata set by
 * document commands, in one transaction with the draft and the link), or links it to `documentId`. An
 * element the project knows already is updated as PUT would, under the same preconditions (If-None-Match: *
 * makes the POST create-only): a tool that sends its POST again after a lost answer gets the same document,
 * not a second one. On an element not known yet, any If-Match is a 412 (there is nothing for it to match).
 */
export async function createPlannerElement(
  deps: { pool: Pool; boss: Boss },
  input: PlannerElementInput &
    WritePreconditions & { element: { id: string }; documentId?: number | undefined },
): Promise<PlannerElementResult> {
  return withTransaction(deps.pool, async (tx) => {
    const project = await enabledProject(tx, input.projectId);
    const links = plannerElementQueries(tx);
    await links.lockElementId(project.id, input.element.id);
    const known = await links.findByElementIdForUpdate(project.id, input.element.id);
    assertPutPreconditions(
      input,
      POSTED_ELEMENT,
      known,
      `planner element ${quoted(input.element.id)} is not linked to a document`,
    );
    if (known) {
      if (input.documentId !== undefined && input.documentId !== known.documentId) {
        throw AppError.conflict(
          `Planner element ${quoted(known.elementId)} is linked to document ${known.documentId}, not ${input.documentId}`,
        );
      }
      await updateLinked(tx, deps.boss, known, input);
      return { id: known.documentId, created: false };
    }

    let documentId: number;
    if (input.documentId !== undefined) {
      // Holding the document settles whether it is linked (links to it are made holding it too); the link's
      // row is read, not locked, since a PUT of its element holds that row and then waits for the document.
      const document = await documentQueries(tx).findByIdForUpdate(project.id, input.documentId);
      if (!document) throw AppError.notFound(`Document ${input.documentId} not found`);
      const linked = await links.findByDocumentId(project.id, document.id);
      if (linked) {
        throw AppError.conflict(
          `Document ${document.id} is linked to planner element ${quoted(linked.elementId)}`,
        );
      }
      documentId = document.id;
    } else {
      documentId = await insertDraft(tx, project);
    }
    await links.insert(project.id, { elementId: input.element.id, documentId, element: input.received });
    await writeMetadata(tx, deps.boss, { ...input, documentId }, undefined);
    return { id: documentId, created: input.documentId === undefined };
  });
}

/**
 * How a precondition's 412 names an element's link. A PUT never creates one (an unknown element is a 404), and
 * the API has no read of the stored element: If-Unmodified-Since compares with when the tool last sent it.
 */
const ELEMENT: PreconditionTarget = { noun: 'planner element' };

/** The same for a POST, which creates the link when the element is not known: If-None-Match: * asks for that. */
const POSTED_ELEMENT: PreconditionTarget = { ...ELEMENT, createdWhenAbsent: true };

/**
 * PUT planner/element (the element named by its `id`) and PUT planner/element/{documentId} (the element
 * linked to that document; an `id` in the body must be that element's): the element replaces the stored one
 * and what changed of its mapped fields becomes document commands. The preconditions (If-Match,
 * If-None-Match, If-Unmodified-Since) are judged on the link, locked, once it is found (an unknown one stays a
 * 404) and before the body's id is compared with it.
 */
export async function updatePlannerElement(
  deps: { pool: Pool; boss: Boss },
  input: PlannerElementInput & WritePreconditions & { documentId?: number | undefined },
): Promise<PlannerElementResult> {
  return withTransaction(deps.pool, async (tx) => {
    const project = await enabledProject(tx, input.projectId);
    const links = plannerElementQueries(tx);
    const { id: elementId } = input.element;
    let link: PlannerElementRow | undefined;
    if (input.documentId !== undefined) {
      link = await links.findByDocumentIdForUpdate(project.id, input.documentId);
      if (!link) throw AppError.notFound(`Document ${input.documentId} is not linked to a planner element`);
      assertWritePreconditions(input, ELEMENT, link);
      if (elementId !== undefined && elementId !== link.elementId) {
        throw AppError.conflict(
          `Document ${link.documentId} is linked to planner element ${quoted(link.elementId)}, not ${quoted(elementId)}`,
        );
      }
    } else {
      if (elementId === undefined) throw new Error('an element without id names no link');
      link = await links.findByElementIdForUpdate(project.id, elementId);
      if (!link) throw AppError.notFound(`Planner element ${quoted(elementId)} is not linked to a document`);
      assertWritePreconditions(input, ELEMENT, link);
    }
    await updateLinked(tx, deps.boss, link, input);
    return { id: link.documentId, created: false };
  });
}

/**
 * DELETE planner/element/{documentId}: the document stays as it is, only its link to the element goes.
 * Preconditions are judged on the link, locked, as a PUT's.
 */
export async function unlinkPlannerElement(
  pool: Pool,
  projectId: number,
  documentId: number,
  preconditions: WritePreconditions = {},
): Promise<void> {
  await withTransaction(pool, async (tx) => {
    const project = await enabledProject(tx, projectId);
    const links = plannerElementQueries(tx);
    const link = await links.findByDocumentIdForUpdate(project.id, documentId);
    if (!link) throw AppError.notFound(`Document ${documentId} is not linked to a planner element`);
    assertWritePreconditions(preconditions, ELEMENT, link);
    await links.deleteByDocumentId(project.id, documentId);
  });
}

async function enabledProject(tx: Transaction, projectId: number): Promise<ProjectRow> {
  const project = await projectQueries(tx).findById(projectId);
  if (!project || !plannerElementsEnabled(project.config)) {
    throw AppError.configuration(
      `Planner element sync is not enabled for project '${project?.handle ?? projectId}' (projectId=${projectId})`,
    );
  }
  return project;
}

async function updateLinked(
  tx: Transaction,
  boss: Boss,
  link: PlannerElementRow,
  input: PlannerElementInput,
): Promise<void> {
  await plannerElementQueries(tx).saveElement(input.projectId, link.elementId, input.received);
  await writeMetadata(tx, boss, { ...input, documentId: link.documentId }, storedElementFields(link.element));
}

/** The element's mapped fields as document commands, in the caller's transaction; none when nothing changed. */
async function writeMetadata(
  tx: Transaction,
  boss: Boss,
  input: PlannerElementInput & { documentId: number },
  previous: ElementFields | undefined,
): Promise<void> {
  const commands = elementCommands(previous, input.element);
  if (commands.length === 0) return;
  await runDocumentCommandsIn(tx, boss, {
    projectId: input.projectId,
    documentId: input.documentId,
    request: { commands },
    clientId: input.clientId,
    now: input.now,
  });
}

/** A new empty draft of the planner's content type, in the project's current design and default channel. */
async function insertDraft(tx: Transaction, project: ProjectRow): Promise<number> {
  const contentType = plannerElementContentType(project.config);
  if (!contentType) {
    throw AppError.configuration(
      `Project '${project.handle}' (projectId=${project.id}) has no content type for planner elements: name ` +
        'one in planner.elements.contentType or add an article content type',
    );
  }
  const design = (await designQueries(tx).findCurrent(project.id)) ?? project.config.design;
  return documentQueries(tx).insertDraft({
    projectId: project.id,
    channelId: project.defaultChannelId,
    documentType: contentType.documentType,
    contentType: contentType.handle,
    designName: design?.name ?? null,
    designVersion: design?.version ?? null,
  });
}
