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
import type { PublicAddressPolicy } from '../domain/public-addresses';
import type { QueuePayload } from '../jobs/queues';
import { AnswerTooLarge, postToClientUrl } from './client-post';
import { AddressRefused } from './public-lookup';
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
  deps: { pool: Pool; boss: Boss } & EnrichmentCallDeps,
  job: QueuePayload<'reEnrichDocument'>,
  options: { now: Date; signal?: AbortSignal | undefined },
): Promise<EnrichmentOutcome> {
  const project = await projectQueries(deps.pool).findById(job.projectId);
  const settings = project && enrichmentSettings(project.config);
  if (!project || !settings) return { outcome: 'skipped', reason: 'enrichment is not enabled' };
  const document = await documentQueries(deps.pool).findById(job.projectId, job.documentId);
  if (!document) return { outcome: 'skipped', reason: 'the document no longer exists' };

  const entities = await callEnrichmentService(
    deps,
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

/** What a re-enrich job needs beyond Postgres and the queue: which addresses the service may have. */
export interface EnrichmentCallDeps {
  addresses: PublicAddressPolicy;
  config: { enrichment: { allowPrivateAddresses: boolean } };
}

/**
 * One call of the enrichment service: POST the request as JSON, expect 200 with `{entities: [...]}`. The
 * timeout bounds the whole exchange, answer included; the job's own signal (its expiry) stops it too. The
 * service's URL is a project's (any client with config:write sets it), so, as an import's webhook, it may
 * only reach public addresses unless ENRICHMENT_ALLOW_PRIVATE_ADDRESSES allows the others, the address
 * checked being the one connected to. Whatever goes wrong is an EnrichmentFailure saying what.
 */
async function callEnrichmentService(
  deps: EnrichmentCallDeps,
  settings: EnrichmentSettings,
  request: EnrichmentRequest,
  jobSignal: AbortSignal | undefined,
): Promise<Entity[]> {
  const failure = (why: string) => new EnrichmentFailure(`the enrichment service ${why}`);
  const url = new URL(settings.url);
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  const signal = jobSignal ? AbortSignal.any([timeout, jobSignal]) : timeout;

  let answer: { status: number; text: string };
  try {
    const { status, body } = await postToClientUrl(
      url,
      JSON.stringify(request),
      { 'content-type': 'application/json', accept: 'application/json' },
      signal,
      {
        addresses: deps.addresses,
        allowPrivate: deps.config.enrichment.allowPrivateAddresses,
        // Only a 200 is read; any other answer is let go at once.
        read: { when: (code) => code === 200, maxBytes: MAX_ANSWER_BYTES },
        drainBytes: 0,
      },
    );
    answer = { status, text: body?.toString('utf8') ?? '' };
  } catch (error) {
    if (error instanceof AnswerTooLarge) throw failure(error.message);
    if (error instanceof AddressRefused) {
      throw failure(`may not be called: ${error.message} (ENRICHMENT_ALLOW_PRIVATE_ADDRESSES)`);
    }
    if (timeout.aborted) throw failure(`did not answer within ${settings.timeoutMs} ms`);
    if (jobSignal?.aborted) throw error;
    throw failure(`could not be reached: ${causeOf(error)}`);
  }
  // A POST is not replayed elsewhere: a service that moved (3xx) must be configured with its new URL.
  if (answer.status !== 200) throw failure(`answered HTTP ${answer.status} instead of 200`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.text);
  } catch {
    throw failure(`answered something that is not JSON: ${JSON.stringify(answer.text.slice(0, 80))}`);
  }
  const checked = parseEnrichmentAnswer(parsed);
  if (!checked.ok)
    throw failure(`answered JSON that is not an entity list: ${describeIssues(checked.issues)}`);
  return checked.value;
}

function causeOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}
