import type { Pool } from '../db/pool';
import { importJobQueries, type ImportJobRow } from '../db/queries/import-jobs';
import type { ImportWebhookPayload } from '../domain/import-request';
import { loggableUrl } from '../domain/loggable-url';
import type { PublicAddressPolicy } from '../domain/public-addresses';
import type { Logger } from '../logger';
import { postToClientUrl } from './client-post';
import { AddressRefused } from './public-lookup';

export interface WebhookSettings {
  timeoutMs: number;
  attempts: number;
  retryDelayMs: number;
  allowPrivateAddresses: boolean;
}

export interface WebhookDeps {
  pool: Pool;
  logger: Logger;
  settings: WebhookSettings;
  addresses: PublicAddressPolicy;
  /** Counts each call's outcome (metrics). */
  onOutcome?: (outcome: 'delivered' | 'failed' | 'gave_up' | 'refused') => void;
}

export function importWebhookPayload(job: ImportJobRow): ImportWebhookPayload {
  const request = job.request as { context?: Record<string, unknown> };
  const count = (state: string) => job.logs.filter((log) => log.state === state).length;
  return {
    event: 'import.finished',
    id: job.id,
    finished: true,
    state: job.state === 'failed' ? 'failed' : 'success',
    systemName: job.systemName,
    ...(request.context === undefined ? {} : { context: request.context }),
    finishedAt: (job.finishedAt ?? new Date()).toISOString(),
    counts: { imported: count('imported'), published: count('published'), failed: count('failed') },
    logs: job.logs,
  };
}

/** How one call ended: delivered, worth another try, or not (another try would end the same way). */
type CallOutcome = { kind: 'delivered' } | { kind: 'retry' | 'final'; error: string; refused?: boolean };

/** The most of an answer's body that is read (and thrown away) before the connection is let go. */
const MAX_ANSWER_BYTES = 64 * 1024;

const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });

/**
 * Calls the webhook of a finished import: POST of the payload as JSON, up to `attempts` calls in all (those
 * made before a crash count), waiting `retryDelayMs`, then twice as long each time, between them. A 2xx
 * delivers; a network error, a timeout, 408, 429 or 5xx is tried again; a redirect or another 4xx is
 * final (another try would be answered the same). Each call's outcome is kept on the job (import_jobs).
 */
export async function deliverImportWebhook(
  deps: WebhookDeps,
  importJobId: string,
  signal?: AbortSignal,
): Promise<void> {
  const jobs = importJobQueries(deps.pool);
  const job = await jobs.findByIdAnyProject(importJobId);
  if (!job || job.webhookState !== 'pending') return;
  const webhook = (job.request as { webhook?: unknown }).webhook;
  if (typeof webhook !== 'string') return;
  // A webhook may carry its receiver's credentials (user:password@, ?token=): they stay out of the log.
  const log = deps.logger.child({ importJobId, webhook: loggableUrl(webhook) });
  const body = JSON.stringify(importWebhookPayload(job));
  const { settings } = deps;
  for (let attempt = job.webhookAttempts + 1; attempt <= settings.attempts; attempt += 1) {
    signal?.throwIfAborted();
    const outcome = await callWebhook(deps, webhook, body, importJobId, signal);
    if (outcome.kind === 'delivered') {
      await jobs.recordWebhookAttempt(importJobId, { state: 'delivered', error: null });
      deps.onOutcome?.('delivered');
      log.info({ attempt }, 'import webhook delivered');
      return;
    }
    const last = outcome.kind === 'final' || attempt === settings.attempts;
    await jobs.recordWebhookAttempt(importJobId, {
      state: last ? 'failed' : 'pending',
      error: outcome.error,
    });
    deps.onOutcome?.(outcome.kind === 'final' && outcome.refused ? 'refused' : last ? 'gave_up' : 'failed');
    if (last) {
      log.warn({ attempt, error: outcome.error }, 'import webhook not delivered; giving up');
      return;
    }
    log.info({ attempt, error: outcome.error }, 'import webhook call failed; will try again');
    await sleep(settings.retryDelayMs * 2 ** (attempt - job.webhookAttempts - 1), signal);
  }
  // Attempts already used up before this run (a crash right after the last one was recorded).
  await jobs.failWebhook(importJobId, job.webhookError ?? 'no attempts left');
}

async function callWebhook(
  deps: WebhookDeps,
  webhook: string,
  body: string,
  deliveryId: string,
  jobSignal: AbortSignal | undefined,
): Promise<CallOutcome> {
  let url: URL;
  try {
    url = new URL(webhook);
  } catch {
    return { kind: 'final', error: 'the webhook is not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { kind: 'final', error: `the webhook's scheme ${url.protocol} is not http or https` };
  }
  const timeout = AbortSignal.timeout(deps.settings.timeoutMs);
  const signal = jobSignal ? AbortSignal.any([timeout, jobSignal]) : timeout;
  try {
    // The status is the receiver's verdict: a 2xx whose body then stalls past the timeout was received, and
    // calling it again would hand it the import twice. The body is only drained (and cut off past
    // MAX_ANSWER_BYTES, or at the timeout, which still ends the exchange).
    const { status } = await postToClientUrl(
      url,
      body,
      {
        'content-type': 'application/json',
        'user-agent': 'Broadsheet-Webhook/1',
        'x-broadsheet-event': 'import.finished',
        // The same on every call of one delivery: a receiver that got it already can tell.
        'x-broadsheet-delivery': deliveryId,
      },
      signal,
      {
        addresses: deps.addresses,
        allowPrivate: deps.settings.allowPrivateAddresses,
        drainBytes: MAX_ANSWER_BYTES,
      },
    );
    return outcomeOfStatus(status);
  } catch (error) {
    if (error instanceof AddressRefused) {
      return { kind: 'final', error: `${error.message} (WEBHOOK_ALLOW_PRIVATE_ADDRESSES)`, refused: true };
    }
    if (timeout.aborted) return { kind: 'retry', error: `no answer within ${deps.settings.timeoutMs} ms` };
    if (jobSignal?.aborted) return { kind: 'retry', error: 'the delivery job was stopped' };
    return {
      kind: 'retry',
      error: `could not be reached: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

function outcomeOfStatus(status: number): CallOutcome {
  if (status >= 200 && status < 300) return { kind: 'delivered' };
  const error = `answered HTTP ${status}`;
  if (status === 408 || status === 429 || status >= 500) return { kind: 'retry', error };
  if (status >= 300 && status < 400)
    return { kind: 'final', error: `${error} (webhooks are not redirected)` };
  return { kind: 'final', error };
}
