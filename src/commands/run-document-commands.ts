import { withTransaction, type Pool, type Transaction } from '../db/pool';
import { documentCommandTransactionQueries } from '../db/queries/document-command-transactions';
import { designQueries } from '../db/queries/designs';
import { documentQueries, type DocumentRow } from '../db/queries/documents';
import { mediaQueries } from '../db/queries/media';
import { projectQueries } from '../db/queries/projects';
import {
  embargoBlocksPublish,
  embargoOf,
  applyCommands,
  referencedDocumentIds,
  referencedMediaIds,
  setsProjectValues,
  writesDirective,
  type DraftState,
  type Embargo,
  type ProjectValues,
} from '../domain/document-commands/apply';
import type { CommandRequest } from '../domain/document-commands/schema';
import type { Design } from '../domain/design';
import { AppError } from '../domain/errors';
import { extractReferences } from '../domain/references';
import { shownInput } from '../domain/shown-input';
import { storedInstant } from '../domain/storable-dates';
import {
  assertWritePreconditions,
  type PreconditionTarget,
  type WritePreconditions,
} from '../domain/write-preconditions';
import { enqueue, type Boss } from '../jobs/boss';
import {
  completePublicationChanges,
  writePublish,
  writeUnpublish,
  type PublicationChange,
} from './publish-document';

/**
 * A command request and its preconditions (WritePreconditions: If-Match, If-None-Match, If-Unmodified-Since,
 * judged on the locked row: a 412 before anything runs).
 */
export interface RunDocumentCommandsInput extends WritePreconditions {
  projectId: number;
  documentId: number;
  request: CommandRequest;
  /** The API client that sent the request, recorded with the transaction. */
  clientId?: string;
  /** Injected so tests can pin time; production passes `new Date()`. */
  now: Date;
  /**
   * A publish keeps the document's lastPublicationDate: for writes of the system's own (enrichment) that
   * publish again what was live already, so lists sorted by it do not reorder.
   */
  keepLastPublicationDate?: boolean;
}

/** How a precondition's 412 names a document. */
const DOCUMENT: PreconditionTarget = {
  noun: 'document',
  versionShown: "latestDraft's systemdata.version",
  readAgain: 'latestDraft',
};

const iso = (date: Date | null) => (date === null ? null : date.toISOString());
/**
 * Dates are stored and put in job payloads at millisecond precision, the precision a row read back into JS
 * has, so a schedule read and written again by a later request is still the instant its job compares with.
 */
const normalise = (date: string | null) => (date === null ? null : storedInstant(date));

/** What the commands may see of a locked document row. */
export function toDraftState(row: DocumentRow): DraftState {
  const isPublished = row.latestPublicationId !== null;
  return {
    version: row.version,
    metadata: row.metadata,
    content: row.content,
    isPublished,
    hasUnpublishedChanges: isPublished && row.publishedVersion !== row.version,
    embargo: embargoOf(row),
    publishSchedule: iso(row.publishScheduleAt),
    unpublishSchedule: iso(row.unpublishScheduleAt),
  };
}

/** What the search document shows of an embargo (enforced, until); its reason is not indexed. */
const indexedEmbargo = (embargo: Embargo | null): string =>
  embargo === null ? 'none' : `until ${embargo.until ?? 'removed'}`;

export function embargoMessage(embargo: Embargo): string {
  const until = embargo.until === null ? 'it is removed' : embargo.until;
  return `The document is under embargo until ${until} (${shownInput(embargo.reason)})`;
}

/**
 * `PATCH documents/{documentId}/commands`: every command of the request in one transaction on the locked
 * document row. The draft is persisted (version + 1 exactly once) before any publish, because a publication
 * snapshots the row as it is in the database. Any failure rolls everything back.
 */
export async function runDocumentCommands(
  pool: Pool,
  boss: Boss,
  input: RunDocumentCommandsInput,
): Promise<void> {
  await withTransaction(pool, (tx) => runDocumentCommandsIn(tx, boss, input));
}

/**
 * The same, inside the caller's transaction: for use cases that write more than the document (a planner
 * element's link, a new draft) and must commit or roll back with its commands.
 */
export async function runDocumentCommandsIn(
  tx: Transaction,
  boss: Boss,
  input: RunDocumentCommandsInput,
): Promise<void> {
  const documents = documentQueries(tx);
  const row = await documents.findByIdForUpdate(input.projectId, input.documentId);
  if (row === undefined) throw AppError.notFound(`Document ${input.documentId} not found`);
  assertWritePreconditions(input, DOCUMENT, row);

  const state = {
    ...toDraftState(row),
    design: await directiveDesign(tx, row, input.request),
    documentTargets: await documentTargets(tx, row.projectId, input.request),
    mediaTargets: await mediaTargets(tx, row.projectId, input.request),
    projectValues: await projectValues(tx, row.projectId, input.request),
  };
  const outcome = applyCommands(state, input.request, input.now);

  // Judged on the state the request leaves behind: a request cannot publish and stay (or become) embargoed.
  if (
    outcome.effects.some((effect) => effect.type === 'publish') &&
    embargoBlocksPublish(outcome.embargo, input.now)
  ) {
    throw AppError.conflict(embargoMessage(outcome.embargo!));
  }

  const publishSchedule = normalise(outcome.publishSchedule);
  const unpublishSchedule = normalise(outcome.unpublishSchedule);
  const preserveUpdatedAt = input.request.preserveUpdatedAt ?? false;
  const embargo = outcome.embargo && {
    reason: outcome.embargo.reason,
    until: normalise(outcome.embargo.until),
  };
  // The search document carries the embargo (publishControl.embargo.*): a published document whose embargo
  // changes without a publish or unpublish (which index anyway) is indexed again.
  const reindex =
    row.latestPublicationId !== null &&
    outcome.effects.length === 0 &&
    indexedEmbargo(embargo) !== indexedEmbargo(state.embargo);
  let current = await documents.saveCommandedDraft(row.projectId, row.id, {
    metadata: outcome.metadata,
    content: outcome.content,
    preserveUpdatedAt,
    now: input.now,
    draftChanged: outcome.draftChanged,
    reindex,
    embargo,
    publishSchedule,
    unpublishSchedule,
  });
  await documentCommandTransactionQueries(tx).insert({
    projectId: row.projectId,
    documentId: row.id,
    clientId: input.clientId ?? null,
    versionBefore: row.version,
    commands: input.request.commands,
    preconditions: input.request.preconditions ?? [],
    preserveUpdatedAt,
    createdAt: input.now,
  });
  await scheduleJobs(tx, boss, row, state, publishSchedule, unpublishSchedule);
  if (reindex) await enqueue(boss, tx, 'indexDocument', { projectId: row.projectId, documentId: row.id });

  // Each effect sees the row the one before left (save → publish → ...); their references, index job and
  // events are written together after them, the events last (see completePublicationChanges).
  const changes: PublicationChange[] = [];
  for (const effect of outcome.effects) {
    const change =
      effect.type === 'publish'
        ? await writePublish(tx, current, {
            now: input.now,
            preserveUpdatedAt,
            keepLastPublicationDate: input.keepLastPublicationDate ?? false,
          })
        : await writeUnpublish(tx, current);
    changes.push(change);
    current = change.document;
  }
  await completePublicationChanges(tx, boss, row, {
    changes,
    ...(outcome.draftChanged && {
      draftReferences: extractReferences(outcome.metadata, outcome.content).rows,
    }),
  });
}

/**
 * The design the document names, read only when the request writes a directive (a publish needs none); undefined
 * when it names none or the project does not have it.
 */
async function directiveDesign(
  tx: Transaction,
  row: DocumentRow,
  request: CommandRequest,
): Promise<Design | undefined> {
  if (row.designName === null || row.designVersion === null) return undefined;
  if (!request.commands.some(writesDirective)) return undefined;
  return designQueries(tx).findByVersion(row.projectId, row.designVersion, row.designName);
}

/**
 * Which of the documents the request references (links, includes' params, metadata) are the project's
 * (undefined when it references none): a reference the request adds to another project's document, or to an
 * id no document has, is refused; one the stored draft has already passes (see applyCommands).
 */
async function documentTargets(
  tx: Transaction,
  projectId: number,
  request: CommandRequest,
): Promise<ReadonlySet<string> | undefined> {
  const ids = referencedDocumentIds(request);
  if (ids.length === 0) return undefined;
  // An id that is not the digits of an exact number names no document (and Postgres would refuse it as a bigint).
  const numbers = ids.filter((id) => /^[1-9]\d*$/.test(id) && Number.isSafeInteger(Number(id))).map(Number);
  const existing = numbers.length === 0 ? [] : await documentQueries(tx).findExistingIds(projectId, numbers);
  return new Set(existing.map(String));
}

/**
 * Which of the media library entries the request references (metadata, includes' params) are the project's
 * (undefined when it references none): a reference the request adds to another project's entry, or to an id
 * no entry has, is refused; one the stored draft has already passes (see applyCommands). A revoked entry is
 * still the project's: the reference stays valid, the image is not served.
 */
async function mediaTargets(
  tx: Transaction,
  projectId: number,
  request: CommandRequest,
): Promise<ReadonlySet<string> | undefined> {
  const ids = referencedMediaIds(request);
  if (ids.length === 0) return undefined;
  return new Set(await mediaQueries(tx).findExistingIds(projectId, ids));
}

/**
 * The project config's brand handles and category ids, read only when the request sets a brands condition or
 * a `category` metadata value (undefined otherwise): one that names neither a brand or category of the
 * project nor a value the document carries already is refused (see applyCommands).
 */
async function projectValues(
  tx: Transaction,
  projectId: number,
  request: CommandRequest,
): Promise<ProjectValues | undefined> {
  if (!setsProjectValues(request)) return undefined;
  const project = await projectQueries(tx).findById(projectId);
  if (project === undefined) return undefined;
  return {
    brands: project.config.brands.map((brand) => brand.handle),
    categories: new Set(project.config.categories.map((category) => category.id)),
  };
}

/**
 * A new or replaced schedule gets its job (outbox, same transaction). A cancelled or replaced one keeps its
 * old job, which finds the stored schedule changed when it runs and does nothing.
 */
async function scheduleJobs(
  tx: Transaction,
  boss: Boss,
  row: DocumentRow,
  before: DraftState,
  publishSchedule: string | null,
  unpublishSchedule: string | null,
): Promise<void> {
  const ids = { projectId: row.projectId, documentId: row.id };
  if (publishSchedule !== null && publishSchedule !== before.publishSchedule) {
    await enqueue(
      boss,
      tx,
      'scheduledPublish',
      { ...ids, at: publishSchedule },
      {
        startAfter: new Date(publishSchedule),
      },
    );
  }
  if (unpublishSchedule !== null && unpublishSchedule !== before.unpublishSchedule) {
    await enqueue(
      boss,
      tx,
      'scheduledUnpublish',
      { ...ids, at: unpublishSchedule },
      {
        startAfter: new Date(unpublishSchedule),
      },
    );
  }
}
