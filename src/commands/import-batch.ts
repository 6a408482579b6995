import { withTransaction, type Pool } from '../db/pool';
import { documentReferenceQueries } from '../db/queries/document-references';
import { documentQueries, type ImportedDraft, type ImportTargetRow } from '../db/queries/documents';
import { publicationEventQueries, type NewPublicationEvent } from '../db/queries/publication-events';
import { embargoBlocksPublish, embargoOf } from '../domain/document-commands/apply';
import type { ImportDocument, ImportLog } from '../domain/import-request';
import type { ReferenceRow } from '../domain/references';
import { storedInstant } from '../domain/storable-dates';
import { enqueueMany, type Boss } from '../jobs/boss';
import { indexJobsFor } from '../jobs/index-jobs';
import { embargoMessage } from './run-document-commands';

/** A document of an import that passed every check that needs no writing: what a batch writes of it. */
export interface PreparedImport {
  document: ImportDocument;
  draft: ImportedDraft;
  /** The outgoing references of the draft (and of its publication when it is published). */
  references: ReferenceRow[];
}

/**
 * The key a batch must hold at most once: two writes of one document in one statement are not possible
 * (and their order matters), so a batch ends before a document it already holds comes again.
 */
export function importTargetKey(document: ImportDocument): string {
  return document.documentId === undefined ? `external:${document.id}` : `document:${document.documentId}`;
}

/**
 * Cuts documents into batches of at most `size`, in order, none holding the same target twice (see
 * importTargetKey). Pure, so tested on its own.
 */
export function cutImportBatches<T>(items: readonly T[], size: number, keyOf: (item: T) => string): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let keys = new Set<string>();
  for (const item of items) {
    const key = keyOf(item);
    if (current.length >= size || keys.has(key)) {
      batches.push(current);
      current = [];
      keys = new Set();
    }
    current.push(item);
    keys.add(key);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** Two documents of a batch turned out to be one (by external id and by id): the batch is written one by one. */
class SameDocumentTwice extends Error {}

/**
 * How many times a batch is written when another writer keeps creating, at the same moment, a document it
 * creates by external id (see writeImportBatch).
 */
const IMPORT_RACE_ATTEMPTS = 3;

/** The unique key of imported documents (initial schema: UNIQUE (project_id, system_name, external_id)). */
const EXTERNAL_ID_KEY = 'documents_project_id_system_name_external_id_key';

/**
 * Whether Postgres refused a new document because another transaction created the same external id first:
 * both looked for it before either committed, and this one's insert waited for the other's commit.
 */
function isExternalIdTaken(error: unknown): boolean {
  const pg = error as { code?: unknown; constraint?: unknown } | null;
  return pg?.code === '23505' && pg.constraint === EXTERNAL_ID_KEY;
}

/**
 * Writes one batch (see writeImportBatchOnce). When another import (another job, another process) creates
 * one of its new documents by the same external id at the same moment, Postgres refuses the second insert
 * (its unique key) only once the first has committed: the batch is written again, and finds that document
 * and updates it, as it would have a moment later. Refused that way IMPORT_RACE_ATTEMPTS times in a row,
 * it fails saying so, in words rather than Postgres's.
 */
export async function writeImportBatch(
  deps: { pool: Pool; boss: Boss },
  projectId: number,
  systemName: string,
  batch: readonly PreparedImport[],
  now: Date,
): Promise<ImportLog[]> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await writeImportBatchOnce(deps, projectId, systemName, batch, now);
    } catch (error) {
      if (!isExternalIdTaken(error)) throw error;
      if (attempt >= IMPORT_RACE_ATTEMPTS) {
        throw new Error(
          `another writer created a document of the same external id at the same time, ${attempt} times in ` +
            'a row; import it again',
          { cause: error },
        );
      }
    }
  }
}

/**
 * Writes one batch of prepared documents in one transaction, every step one statement for the whole batch:
 * lock the targets, insert the new drafts, replace the existing ones, their references, publish or unpublish
 * (publications, events, publication references), the imported lastPublicationDate, and one index job naming
 * the batch's published and unpublished documents (the outbox, in the same transaction; see indexJobsFor).
 * `autoPublish` of a live document sent again unchanged publishes nothing new (it is `published` already).
 * Returns one log per document, in order. A document that names a missing `documentId` fails alone; anything
 * Postgres refuses throws, the whole batch rolls back, and the caller writes its documents one by one to find
 * which one it was.
 */
async function writeImportBatchOnce(
  deps: { pool: Pool; boss: Boss },
  projectId: number,
  systemName: string,
  batch: readonly PreparedImport[],
  now: Date,
): Promise<ImportLog[]> {
  return withTransaction(deps.pool, async (tx) => {
    const documents = documentQueries(tx);
    const references = documentReferenceQueries(tx);
    const targets = await documents.findImportTargetsForUpdate(
      projectId,
      systemName,
      batch.filter((item) => item.document.documentId === undefined).map((item) => item.document.id),
      batch.flatMap((item) => (item.document.documentId === undefined ? [] : [item.document.documentId])),
    );
    const byId = new Map(targets.map((row) => [row.id, row]));
    const byExternalId = new Map(
      targets.filter((row) => row.systemName === systemName).map((row) => [row.externalId, row]),
    );

    const logs: ImportLog[] = [];
    const written: { item: PreparedImport; existing: ImportTargetRow | undefined; log: ImportLog }[] = [];
    const seen = new Set<number>();
    for (const item of batch) {
      const { document } = item;
      const log: ImportLog = { state: 'imported', external_id: document.id, document_id: null };
      logs.push(log);
      let existing: ImportTargetRow | undefined;
      if (document.documentId !== undefined) {
        existing = byId.get(document.documentId);
        if (!existing) {
          Object.assign(log, {
            state: 'failed',
            reason: `document ${document.documentId} does not exist in this project`,
          });
          continue;
        }
      } else {
        existing = byExternalId.get(document.id);
      }
      if (existing) {
        if (seen.has(existing.id)) throw new SameDocumentTwice();
        seen.add(existing.id);
        // As for document commands and scheduled publishes: nothing publishes a document under embargo.
        const embargo = embargoOf(existing);
        if (document.flags?.autoPublish && embargoBlocksPublish(embargo, now)) {
          Object.assign(log, { state: 'failed', reason: embargoMessage(embargo!) });
          continue;
        }
      }
      written.push({ item, existing, log });
    }

    const fresh = written.filter((entry) => !entry.existing);
    const insertedRow = ({ item }: (typeof written)[number]) => ({
      draft: item.draft,
      dates: datesOf(item.document),
      externalId: item.document.id,
    });
    const inserted = await documents.insertImportedMany(
      projectId,
      systemName,
      fresh.filter((entry) => !entry.item.document.flags?.autoPublish).map(insertedRow),
    );
    const insertedPublished = await documents.insertPublishedImportedMany(
      projectId,
      systemName,
      fresh.filter((entry) => entry.item.document.flags?.autoPublish).map(insertedRow),
      now,
    );
    for (const [externalId, ids] of insertedPublished) inserted.set(externalId, ids.documentId);
    // Live documents sent again unchanged: published already, as the import asks, so not published again (a
    // migration run again to resume made every document's publication, event and lastPublicationDate anew).
    const alreadyLive = await documents.replaceImportedDrafts(
      written.flatMap(({ item, existing }) =>
        existing ? [{ draft: item.draft, dates: datesOf(item.document), documentId: existing.id }] : [],
      ),
    );
    for (const entry of written) {
      entry.log.document_id = entry.existing?.id ?? inserted.get(entry.item.document.id)!;
    }
    const idOf = (entry: (typeof written)[number]) => entry.log.document_id!;
    await references.replaceMany(
      projectId,
      'draft',
      written.map((entry) => ({
        documentId: idOf(entry),
        rows: entry.item.references,
        new: !entry.existing,
      })),
    );

    const publishing = written.filter((entry) => entry.item.document.flags?.autoPublish);
    const republishing = publishing.filter((entry) => !alreadyLive.has(idOf(entry)));
    const unpublishing = written.filter(
      (entry) => entry.item.document.flags?.unpublish && entry.existing?.latestPublicationId != null,
    );
    const unpublished = new Set(unpublishing);
    const publications = await documents.publishDrafts(
      projectId,
      republishing.filter((entry) => entry.existing).map(idOf),
      now,
    );
    for (const ids of insertedPublished.values()) publications.set(ids.documentId, ids.publicationId);
    const unpublishedTypes = await documents.markUnpublishedMany(projectId, unpublishing.map(idOf));
    for (const entry of publishing) entry.log.state = 'published';

    const events: NewPublicationEvent[] = [];
    for (const entry of written) {
      const { draft } = entry.item;
      const base = {
        projectId,
        channelId: entry.existing?.channelId ?? draft.channelId,
        documentId: idOf(entry),
        documentType: draft.documentType,
        contentType: draft.contentType,
      };
      if (publications.has(base.documentId)) {
        const wasPublished = entry.existing?.latestPublicationId != null;
        events.push({
          ...base,
          eventType: wasPublished ? 'update' : 'publish',
          publicationId: publications.get(base.documentId)!,
        });
      } else if (unpublished.has(entry)) {
        // The publication's types, not the draft's: the import may have changed its content type.
        const types = unpublishedTypes.get(base.documentId)!;
        events.push({
          ...base,
          documentType: types.unpublishedDocumentType,
          contentType: types.unpublishedContentType,
          eventType: 'unpublish',
          publicationId: entry.existing!.latestPublicationId,
        });
      }
    }
    await references.replaceMany(projectId, 'publication', [
      ...republishing.map((entry) => ({
        documentId: idOf(entry),
        rows: entry.item.references,
        new: !entry.existing,
      })),
      ...unpublishing.map((entry) => ({ documentId: idOf(entry), rows: [] })),
    ]);
    // After publishing, which sets lastPublicationDate to now: the imported date wins.
    await documents.setLastPublicationDates(
      written.flatMap((entry) => {
        const date = entry.item.document.publishControl?.lastPublicationDate;
        return date ? [{ documentId: idOf(entry), lastPublicationDate: storedInstant(date) }] : [];
      }),
    );
    // A published document whose publication dates the import changes without publishing or unpublishing
    // it: latestPublication answers the new dates, and its search document carries them (latestPublications
    // and search), so it is indexed again and a poller of publicationEvents hears of it (an update naming
    // the publication it has). Dates sent again as they are (an import run again to resume) change nothing.
    const redated = written.filter(
      (entry) =>
        entry.existing?.latestPublicationId != null &&
        !publications.has(idOf(entry)) &&
        !unpublished.has(entry) &&
        changesPublicationDates(entry.item.document.publishControl, entry.existing),
    );
    const redatedTypes = await documents.bumpIndexVersions(projectId, redated.map(idOf));
    for (const entry of redated) {
      const types = redatedTypes.get(idOf(entry))!;
      events.push({
        projectId,
        channelId: entry.existing!.channelId,
        documentId: idOf(entry),
        documentType: types.documentType,
        contentType: types.contentType,
        eventType: 'update',
        publicationId: entry.existing!.latestPublicationId,
      });
    }
    await enqueueMany(
      deps.boss,
      tx,
      'indexDocuments',
      indexJobsFor(projectId, [...republishing, ...unpublishing, ...redated].map(idOf)),
    );
    // Last: the events take the project's event lock (their ids must be in commit order), held until the
    // commit, so another batch of the import waits only for this statement and the commit, not for the rest.
    await publicationEventQueries(tx).insertMany(projectId, events);
    return logs;
  });
}

/**
 * Whether the publication dates an import names differ from the document's, at the millisecond they are
 * stored and answered (whatever offset the client wrote them in). Pure, so tested on its own.
 */
export function changesPublicationDates(
  named: ImportDocument['publishControl'],
  current: Pick<
    ImportTargetRow,
    | 'firstPublicationDate'
    | 'significantPublicationDate'
    | 'visiblePublicationDateOverride'
    | 'lastPublicationDate'
  >,
): boolean {
  if (!named) return false;
  return (Object.keys(named) as (keyof typeof named)[]).some((key) => {
    const date = named[key];
    return date !== undefined && Date.parse(date) !== current[key]?.getTime();
  });
}

const stored = (date: string | undefined) => (date === undefined ? undefined : storedInstant(date));

/** The imported dates as Postgres reads them: in UTC (storedInstant), whatever offset the client wrote. */
function datesOf(document: ImportDocument) {
  const dates = document.publishControl ?? {};
  return {
    firstPublicationDate: stored(dates.firstPublicationDate),
    significantPublicationDate: stored(dates.significantPublicationDate),
    visiblePublicationDateOverride: stored(dates.visiblePublicationDateOverride),
  };
}
