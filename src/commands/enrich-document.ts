import { withTransaction, type Pool } from '../db/pool';
import { documentQueries } from '../db/queries/documents';
import { projectQueries } from '../db/queries/projects';
import { embargoBlocksPublish } from '../domain/document-commands/apply';
import type { Command } from '../domain/document-commands/schema';
import {
  describeIssues,
  enrichmentCommands,
  enrichmentRequest,
  enrichmentSettings,
  parseEnrichmentAnswer,
  type Entity,
  type EnrichmentRequest,
  type EnrichmentSettings,
} from '../domain/enrichment';
import type { Boss } from '../jobs/boss';
import type { QueuePayload } from '../jobs/queues';
import { runDocumentCommandsIn, toDraftState } from './run-document-commands';

/** The most an answer may weigh: 500 entities of a few hundred bytes each fit many times over. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * Why one enrichment attempt failed, worded for the log; the document is left as it was. The worker lets
 * pg-boss retry the job with backoff and, past its retries, gives up with this reason.
 */
export class EnrichmentFailure extends Error {
  override name = 'EnrichmentFailure';
}

export type EnrichmentOutcome =
  /** The entities were written: a new version of the draft, republished when it was live and unchanged. */
  | { outcome: 'enriched'; entities: number; republished: boolean }
  /** The service answered what the document holds already: nothing was written. */
  | { outcome: 'unchanged'; entities: number }
  /** Enrichment is no longer enabled for the project, or the document is gone: nothing to do. */
  | { outcome: 'skipped'; reason: string };

/**
 * Enriches one document (a re-enrich job): sends its text to the project's enrichment service and writes the
 * entities it answers into the metadata through the document commands, in one transaction, as
 * `PATCH documents/{id}/commands` would: a new version, a command transaction record, the references.
 *
 * Published documents: when the draft is what is live (no unpublished changes, no embargo in force) the
 * commands also publish it again, keeping its lastPublicationDate, so the live document and the search index
 * carry the new entities without reordering lists sorted by publication date. A draft with unpublished
 * changes only gets the entities in the draft: a robot never publishes an editor's unfinished work, and the
 * entities go live with the editor's next publish.
 *
 * The service is called outside any transaction, bounded by the project's timeout; if the document changed
 * meanwhile, the attempt fails (its text was not the one enriched) and the retry sends the new text.
 */
export async function enrichDocument(
  deps: { pool: Pool; boss: Boss },
  job: QueuePayload<'reEnrichDocument'>,
  options: { now: Date; signal?: AbortSignal | undefined },
): Promise<EnrichmentOutcome> {
  const project = await projectQueries(deps.pool).findById(job.projectId);
  const settings = project && enrichmentSettings(project.config);
  if (!project || !settings) return { outcome: 'skipped', reason: 'enrichment is not enabled' };
  const document = await documentQueries(deps.pool).findById(job.projectId, job.documentId);
  if (!document) return { outcome: 'skipped', reason: 'the document no longer exists' };

  const entities = await callEnrichmentService(
    settings,
    enrichmentRequest(project, document),
    options.signal,
  );

  return withTransaction(deps.pool, async (tx) => {
    const row = await documentQueries(tx).findByIdForUpdate(job.projectId, job.documentId);
    if (!row) return { outcome: 'skipped', reason: 'the document no longer exists' };
    if (row.version !== document.version) {
      throw new EnrichmentFailure(
        `document ${row.id} changed while it was enriched (version ${document.version} → ${row.version}); ` +
          'the next attempt sends its new text',
      );
    }
    const commands: Command[] = enrichmentCommands(row.metadata, entities, settings);
    if (commands.length === 0) return { outcome: 'unchanged', entities: entities.length };
    const state = toDraftState(row);
    const republish =
      state.isPublished && !state.hasUnpublishedChanges && !embargoBlocksPublish(state.embargo, options.now);
    if (republish) commands.push({ operation: 'publish' });
    await runDocumentCommandsIn(tx, deps.boss, {
      projectId: row.projectId,
      documentId: row.id,
      request: { version: row.version, commands },
      now: options.now,
      keepLastPublicationDate: true,
    });
    return { outcome: 'enriched', entities: entities.length, republished: republish };
  });
}

/**
 * One call of the enrichment service: POST the request as JSON, expect 200 with `{entities: [...]}`. The
 * timeout bounds the whole exchange, answer included; the job's own signal (its expiry) stops it too.
 * Whatever goes wrong is an EnrichmentFailure saying what.
 */
async function callEnrichmentService(
  settings: EnrichmentSettings,
  request: EnrichmentRequest,
  jobSignal: AbortSignal | undefined,
): Promise<Entity[]> {
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  const signal = jobSignal ? AbortSignal.any([timeout, jobSignal]) : timeout;
  const failure = (why: string) => new EnrichmentFailure(`the enrichment service ${why}`);
  const aborted = (error: unknown) => {
    if (timeout.aborted) return failure(`did not answer within ${settings.timeoutMs} ms`);
    if (jobSignal?.aborted) return error;
    return failure(`could not be reached: ${causeOf(error)}`);
  };

  let response: Response;
  try {
    response = await fetch(settings.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(request),
      // A POST is not replayed elsewhere: a service that moved must be configured with its new URL.
      redirect: 'manual',
      signal,
    });
  } catch (error) {
    throw aborted(error);
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    throw failure(`answered HTTP ${response.status} instead of 200`);
  }
  let text: string;
  try {
    text = await readAtMost(response, MAX_ANSWER_BYTES);
  } catch (error) {
    throw error instanceof EnrichmentFailure ? error : aborted(error);
  }
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw failure(`answered something that is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
  const checked = parseEnrichmentAnswer(answer);
  if (!checked.ok)
    throw failure(`answered JSON that is not an entity list: ${describeIssues(checked.issues)}`);
  return checked.value;
}

/** The answer's body as text, refusing one larger than `limit` bytes before it is all in memory. */
async function readAtMost(response: Response, limit: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      // Leaving the loop by a throw cancels the rest of the body.
      if (size > limit)
        throw new EnrichmentFailure(`the enrichment service answered more than ${limit} bytes`);
      chunks.push(chunk);
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

function causeOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}
