import { randomUUID } from 'node:crypto';
import { withTransaction, type Pool } from '../db/pool';
import { designQueries } from '../db/queries/designs';
import { documentReferenceQueries } from '../db/queries/document-references';
import { documentQueries, type ImportedDraft } from '../db/queries/documents';
import { importJobQueries, type ImportJobRow } from '../db/queries/import-jobs';
import { projectQueries, type ProjectRow } from '../db/queries/projects';
import { ApiVersion } from '../domain/api-versions';
import type { Content } from '../domain/content';
import type { Design } from '../domain/design';
import { validateContentAgainstDesign } from '../domain/design-validation';
import { AppError } from '../domain/errors';
import {
  finalImportState,
  ImportRequestSchema,
  type ImportDocument,
  type ImportLog,
  type ImportRequest,
} from '../domain/import-request';
import { findDocumentProblem, formatJsonPath } from '../domain/json-limits';
import { findContentType } from '../domain/project-config';
import { extractReferences } from '../domain/references';
import { enqueue, type Boss } from '../jobs/boss';
import { publishDocument, unpublishDocument } from './publish-document';

export interface ImportDeps {
  pool: Pool;
  boss: Boss;
}

/** How many documents the worker processes between two saves of the job's logs (progress for status readers). */
const LOG_SAVE_EVERY = 50;
/** A failed document's reason lists at most this many design problems; the rest are counted. */
const MAX_REASONS = 5;

/**
 * `POST import/documents`: stores the job and enqueues it in one transaction (the outbox), so a job exists
 * exactly when its queue entry does. The request is validated before anything is stored.
 */
export async function startImportJob(
  deps: ImportDeps,
  projectId: number,
  apiVersion: ApiVersion,
  body: ImportRequest,
): Promise<{ id: string }> {
  const id = randomUUID();
  await withTransaction(deps.pool, async (tx) => {
    await importJobQueries(tx).insert({
      id,
      projectId,
      systemName: body.systemName,
      request: body,
      apiVersion: apiVersion.label,
    });
    await enqueue(deps.boss, tx, 'importDocuments', { importJobId: id });
  });
  return { id };
}

/** The CLI's synchronous import: the same job row and the same runner, without the queue. */
export async function importDocumentsNow(
  deps: ImportDeps,
  projectId: number,
  apiVersion: ApiVersion,
  body: ImportRequest,
  onProgress?: (done: number, total: number) => void,
): Promise<ImportJobRow> {
  const id = randomUUID();
  await importJobQueries(deps.pool).insert({
    id,
    projectId,
    systemName: body.systemName,
    request: body,
    apiVersion: apiVersion.label,
  });
  await runImportJob(deps, id, onProgress);
  return (await importJobQueries(deps.pool).findById(projectId, id))!;
}

/**
 * Runs one import job: each document in its own transaction, so one bad document never takes the others
 * with it. A finished job is not run again (a duplicate or retried queue entry is a no-op); a job that
 * crashed half-way is re-run from the start, which is safe because documents are matched by external id.
 */
export async function runImportJob(
  deps: ImportDeps,
  jobId: string,
  onProgress?: (done: number, total: number) => void,
): Promise<void> {
  const jobs = importJobQueries(deps.pool);
  const job = await jobs.findByIdAnyProject(jobId);
  if (!job || job.state !== 'started') return;
  const logs: ImportLog[] = [];
  try {
    const request = ImportRequestSchema.parse(job.request);
    const version = ApiVersion.parse(job.apiVersion) ?? ApiVersion.latest();
    const project = await projectQueries(deps.pool).findById(job.projectId);
    if (!project) throw new Error(`project ${job.projectId} no longer exists`);
    const designs = new DesignCache(deps.pool, project);
    for (const [index, document] of request.documents.entries()) {
      logs.push(await importOne(deps, project, designs, version, request.systemName, document));
      onProgress?.(index + 1, request.documents.length);
      if ((index + 1) % LOG_SAVE_EVERY === 0) await jobs.saveLogs(jobId, logs);
    }
    await jobs.finish(jobId, finalImportState(logs), logs);
  } catch (error) {
    await jobs.finish(jobId, 'failed', [
      ...logs,
      {
        state: 'failed',
        external_id: '',
        document_id: null,
        reason: `The import job failed: ${messageOf(error)}`,
      },
    ]);
  }
}

function messageOf(error: unknown): string {
  if (error instanceof AppError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

class ImportFailure extends Error {}

/** Designs by name@version, read once per job. */
class DesignCache {
  private readonly cache = new Map<string, Promise<Design | undefined>>();
  private current: Promise<Design | undefined> | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly project: ProjectRow,
  ) {}

  find(name: string, version: string): Promise<Design | undefined> {
    const key = `${name}@${version}`;
    let design = this.cache.get(key);
    if (!design) {
      design = designQueries(this.pool).findByVersion(this.project.id, version, name);
      this.cache.set(key, design);
    }
    return design;
  }

  /** The project's current design, else the one its config names. */
  async projectDesign(): Promise<{ name: string; version: string } | undefined> {
    this.current ??= designQueries(this.pool).findCurrent(this.project.id);
    const current = await this.current;
    return current ? { name: current.name, version: current.version } : this.project.config.design;
  }
}

async function importOne(
  deps: ImportDeps,
  project: ProjectRow,
  designs: DesignCache,
  version: ApiVersion,
  systemName: string,
  document: ImportDocument,
): Promise<ImportLog> {
  const log = (state: ImportLog['state'], documentId: number | null, reason?: string): ImportLog => ({
    state,
    external_id: document.id,
    document_id: documentId,
    ...(reason === undefined ? {} : { reason }),
  });
  try {
    const draft = await prepareDraft(project, designs, version, document);
    return await withTransaction(deps.pool, async (tx) => {
      const documents = documentQueries(tx);
      let existing;
      if (document.documentId !== undefined) {
        existing = await documents.findByIdForUpdate(project.id, document.documentId);
        if (!existing)
          throw new ImportFailure(`document ${document.documentId} does not exist in this project`);
      } else {
        existing = await documents.findByExternalIdForUpdate(project.id, systemName, document.id);
      }
      let documentId: number;
      if (existing) {
        documentId = existing.id;
        await documents.replaceImportedDraft(documentId, { ...draft, channelId: existing.channelId });
      } else {
        documentId = await documents.insertImported(draft, systemName, document.id);
      }
      const references = extractReferences(draft.metadata, draft.content);
      await documentReferenceQueries(tx).replace(project.id, documentId, 'draft', references.rows);

      const dates = document.publishControl ?? {};
      await documents.setPublicationDates(project.id, documentId, {
        firstPublicationDate: dates.firstPublicationDate,
        significantPublicationDate: dates.significantPublicationDate,
        visiblePublicationDateOverride: dates.visiblePublicationDateOverride,
      });
      const row = (await documents.findByIdForUpdate(project.id, documentId))!;
      const now = new Date();
      let state: ImportLog['state'] = 'imported';
      if (document.flags?.autoPublish) {
        await publishDocument(tx, deps.boss, row, { now });
        state = 'published';
      } else if (document.flags?.unpublish && row.latestPublicationId !== null) {
        await unpublishDocument(tx, deps.boss, row, now);
      }
      // After publishing, which sets lastPublicationDate to now: the imported date wins.
      if (dates.lastPublicationDate) {
        await documents.setPublicationDates(project.id, documentId, {
          lastPublicationDate: dates.lastPublicationDate,
        });
      }
      return log(state, documentId);
    });
  } catch (error) {
    // Whatever went wrong, it went wrong for this document only: its transaction rolled back, the job goes on.
    return log('failed', null, messageOf(error));
  }
}

/** The draft a document import writes, or an ImportFailure saying why the document cannot be imported. */
async function prepareDraft(
  project: ProjectRow,
  designs: DesignCache,
  version: ApiVersion,
  document: ImportDocument,
): Promise<ImportedDraft> {
  const contentType = findContentType(project.config, document.contentType);
  if (!contentType) {
    const known = project.config.contentTypes.map((type) => type.handle).join(', ');
    throw new ImportFailure(
      `unknown content type '${document.contentType}' (the project has: ${known || 'none'})`,
    );
  }
  const content = document.content as Content;
  const metadata = { ...document.metadata };
  if (document.title !== undefined && metadata.title === undefined) metadata.title = document.title;
  // The same bounds as document commands, before anything walks the content: whatever is stored can be
  // published and indexed.
  const problem = findDocumentProblem({ metadata, content });
  if (problem) throw new ImportFailure(`${formatJsonPath(problem.path)} ${problem.message}`);
  const designRef = document.design ?? (await designs.projectDesign());
  // From 2026-01 content that breaks its design fails (api-spec §9); earlier versions store it as sent.
  if (version.atLeast('2026-01')) {
    if (!designRef) throw new ImportFailure('the document names no design and the project has none');
    const design = await designs.find(designRef.name, designRef.version);
    if (!design) throw new ImportFailure(`unknown design ${designRef.name}@${designRef.version}`);
    const problems = validateContentAgainstDesign(content, design);
    if (problems.length > 0) {
      const more = problems.length > MAX_REASONS ? ` (and ${problems.length - MAX_REASONS} more)` : '';
      throw new ImportFailure(
        `content does not match design ${design.name}@${design.version}: ${problems.slice(0, MAX_REASONS).join('; ')}${more}`,
      );
    }
  }
  return {
    projectId: project.id,
    channelId: project.defaultChannelId,
    documentType: contentType.documentType,
    contentType: contentType.handle,
    designName: designRef?.name ?? null,
    designVersion: designRef?.version ?? null,
    metadata,
    content,
  };
}
