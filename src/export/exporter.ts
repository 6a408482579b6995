import { constants } from 'node:fs';
import { access, open, readFile, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CHUNK_IDS,
  chunkProgress,
  nextChunk,
  parseExportState,
  planRanges,
  type ExportRange,
  type ExportState,
} from '../domain/export-plan';
import { loggableUrl } from '../domain/loggable-url';
import { JsonSkimmer } from '../search/raw-hits';
import { withoutTrailingSlashes } from '../domain/trailing-slashes';
import { httpGetter, type HttpAnswer, type HttpGetter } from './http-get';

/**
 * `broadsheet export`: every published document of the token's project, through the public API, as NDJSON
 * (one latestPublications item per line). Pullers walk disjoint id ranges in parallel (see
 * domain/export-plan.ts); one writer appends their chunks in the order they arrive and, every STATE_EVERY_MS,
 * records in `<out>.state.json` how far each range got and how many bytes of the output that is. A rerun with
 * the state file there resumes: it truncates the output to the recorded bytes and continues each range.
 * Done, the state file is removed.
 */

const API_VERSION = '2026-03';
const STATE_EVERY_MS = 500;
/** Tries of one request when the API is unavailable (429, 502, 503, 504, or no connection). */
const TRIES = 5;

export interface ExportOptions {
  /** The API's base URL, e.g. `http://127.0.0.1:3000`. */
  url: string;
  token: string;
  out: string;
  parallel: number;
  /** Only documents whose latest publication is at or after this instant. */
  since?: Date | undefined;
  /** Overwrite an existing output that has no state file (a finished export, or someone else's file). */
  force?: boolean | undefined;
  /** Stops the pullers after their current chunk; the state is saved, a rerun resumes. */
  signal?: AbortSignal | undefined;
  /** Called when the plan is known and after each chunk. */
  onProgress?: ((progress: ExportProgress) => void) | undefined;
  /**
   * Called when a request failed in a way worth trying again (429, 502-504, no connection), before the wait:
   * what failed and how long until the next try, so a wait (a 429's Retry-After may be an hour) is not silence.
   */
  onRetry?: ((notice: string) => void) | undefined;
}

export interface ExportProgress {
  chunks: number;
  chunksDone: number;
  documents: number;
  /** Whether this run continues an earlier one. */
  resumed: boolean;
}

export interface ExportResult {
  documents: number;
  /** Documents this run wrote (less than `documents` when it resumed). */
  written: number;
  resumed: boolean;
  /** False when stopped by the signal. */
  complete: boolean;
  /**
   * Whether a state file is kept for a rerun to resume: stopped after the plan. Stopped before it (waiting out a
   * 429's Retry-After at the first request), nothing was written and a rerun starts afresh.
   */
  resumable: boolean;
}

export class ExportError extends Error {
  constructor(
    message: string,
    /** The export failed after its state was saved: a rerun resumes it. */
    readonly resumable = false,
  ) {
    super(message);
    this.name = 'ExportError';
  }
}

/**
 * The signal stopped a request that was waiting to be tried again (a 429's Retry-After, a 503's backoff): the
 * export stops as it does between chunks, rather than waiting out the wait or failing.
 */
class ExportStopped extends Error {
  constructor() {
    super('the export was stopped');
    this.name = 'ExportStopped';
  }
}

export const statePath = (out: string) => `${out}.state.json`;

const exists = (path: string) =>
  stat(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw error;
    },
  );

/**
 * What makes `out` unusable as the export's output (with its state file beside it), or undefined: a directory
 * that does not exist, is not one or cannot be written, or `out` being a directory itself. Asked before any
 * request: the export planned its ranges over the network first (five tries of an unreachable API) and only
 * then failed to open the file.
 */
export async function outputProblem(out: string): Promise<string | undefined> {
  const directory = dirname(out);
  const problem = await stat(directory).then(
    (found) => (found.isDirectory() ? undefined : `its directory ${directory} is not a directory`),
    (error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT'
        ? `its directory ${directory} does not exist`
        : error.code === 'ENOTDIR'
          ? `a part of its directory ${directory} is not a directory`
          : `its directory ${directory} cannot be read (${error.code ?? error.message})`,
  );
  if (problem !== undefined) return problem;
  if (
    await stat(out).then(
      (found) => found.isDirectory(),
      () => false,
    )
  )
    return 'it is a directory';
  return access(directory, constants.W_OK).then(
    () => undefined,
    (error: NodeJS.ErrnoException) =>
      `its directory ${directory} is not writable (${error.code ?? error.message})`,
  );
}

/** The base URL as the state records it: no trailing slash. */
const normaliseUrl = (url: string) => withoutTrailingSlashes(url);

/**
 * The server's URL as the state records it and as messages show it: a user and password in it, or a query
 * parameter naming a credential, `[REDACTED]` (loggableUrl). They were printed in every retry notice and
 * failure, and written to the state file beside the export.
 */
const shownUrl = (url: string) => loggableUrl(url);

/** A URL that already ends with an API version's path: `<server>/api/<label>`. */
const VERSIONED_URL = /^(.*)\/api\/([^/?#]+)$/;

/**
 * The server's base URL. The API's base URL as the demo prints it (`<server>/api/2026-03`) names the same
 * server; another version is refused, since the export speaks API_VERSION whatever it is given.
 */
function serverUrl(url: string): string {
  // A query or fragment has no place in a base URL the API's paths are appended to: `…?token=x` made every
  // request's path part of the query (`?token=x/api/2026-03/`), and the failure printed the token.
  const query = /[?#]/.exec(url);
  if (query) {
    throw new ExportError(
      `--url ${shownUrl(url)} has a query or fragment; give the server's URL (${shownUrl(normaliseUrl(url.slice(0, query.index)))})`,
    );
  }
  const normalised = normaliseUrl(url);
  const versioned = VERSIONED_URL.exec(normalised);
  if (!versioned) return normalised;
  if (versioned[2] !== API_VERSION) {
    throw new ExportError(
      `--url ${shownUrl(url)} names API version ${versioned[2]}; the export reads ${API_VERSION}: give the server's URL ` +
        `(${shownUrl(versioned[1]!)}) or ${shownUrl(versioned[1]!)}/api/${API_VERSION}`,
    );
  }
  return versioned[1]!;
}

export async function runExport(options: ExportOptions): Promise<ExportResult> {
  const baseUrl = serverUrl(options.url);
  let base: URL;
  try {
    base = new URL(`${baseUrl}/api/${API_VERSION}/`);
  } catch {
    throw new ExportError(`--url ${shownUrl(options.url)} is not a URL`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new ExportError(`--url ${shownUrl(options.url)} must be http or https`);
  }
  const since = options.since?.toISOString() ?? null;
  const http = httpGetter(options.parallel + 1);
  const api = apiCaller(http, base, options.token, options.signal, options.onRetry);
  try {
    const started = await startOrResume(options, baseUrl, since, api).catch((error: unknown) => {
      // Stopped before anything was planned or written: a rerun starts afresh.
      if (error instanceof ExportStopped) return undefined;
      throw error;
    });
    if (started === undefined) {
      return { documents: 0, written: 0, resumed: false, complete: false, resumable: false };
    }
    const { state, resumed } = started;
    const output = await open(options.out, resumed ? 'r+' : 'w');
    try {
      if (resumed) await output.truncate(state.bytes);
      return await pull(options, state, resumed, output, api, since);
    } finally {
      await output.close();
    }
  } finally {
    http.close();
  }
}

async function startOrResume(
  options: ExportOptions,
  baseUrl: string,
  since: string | null,
  api: ApiCaller,
): Promise<{ state: ExportState; resumed: boolean }> {
  const path = statePath(options.out);
  if (await exists(path)) {
    const parsed = parseExportState(await readFile(path, 'utf8'));
    if (!parsed.ok) {
      throw new ExportError(`${path} ${parsed.message}; remove it (and ${options.out}) to start over`);
    }
    const { state } = parsed;
    // Compared as recorded: state files written before recorded the URL with its credentials.
    if (shownUrl(state.url) !== shownUrl(baseUrl)) {
      throw new ExportError(`${path} is an export from ${shownUrl(state.url)}, not ${shownUrl(baseUrl)}`);
    }
    if (state.since !== since) {
      throw new ExportError(
        `${path} is an export ${state.since ? `since ${state.since}` : 'of everything'}; rerun it with the same --since, or remove it to start over`,
      );
    }
    if (state.projectId !== undefined) {
      // The ranges and the bytes written are of that project: another project's documents would be appended
      // to them, some skipped (the ranges done) and the file reported complete.
      const reads = (await api.boundary('documentId'))?.projectId;
      if (reads !== undefined && reads !== state.projectId) {
        throw new ExportError(
          `${path} is an export of project ${state.projectId}, but the token reads project ${reads}; resume it with a token of project ${state.projectId}, or remove it (and ${options.out}) to start over`,
        );
      }
    }
    const size = (await exists(options.out)) ? (await stat(options.out)).size : -1;
    if (size < state.bytes) {
      throw new ExportError(
        `${options.out} is shorter than ${path} records (${size < 0 ? 'missing' : `${size} bytes`}, not ${state.bytes}); remove the state file to start over`,
      );
    }
    return { state, resumed: true };
  }
  if (!options.force && (await exists(options.out))) {
    throw new ExportError(
      `${options.out} exists and there is no export to resume; pass --force to overwrite it`,
    );
  }
  const [lowest, highest] = await Promise.all([api.boundary('documentId'), api.boundary('-documentId')]);
  const ranges =
    lowest === undefined || highest === undefined
      ? []
      : planRanges(lowest.documentId, highest.documentId, options.parallel);
  const projectId = lowest?.projectId;
  return {
    state: {
      version: 1,
      url: shownUrl(baseUrl),
      since,
      ...(projectId ? { projectId } : {}),
      ranges,
      bytes: 0,
      documents: 0,
    },
    resumed: false,
  };
}

async function pull(
  options: ExportOptions,
  state: ExportState,
  resumed: boolean,
  output: FileHandle,
  api: ApiCaller,
  since: string | null,
): Promise<ExportResult> {
  const startDocuments = state.documents;
  const report = () => {
    const { total, done } = chunkProgress(state.ranges);
    options.onProgress?.({ chunks: total, chunksDone: done, documents: state.documents, resumed });
  };
  const saver = stateSaver(options.out, state, output);
  report();
  if (state.ranges.length === 0) {
    await saver.remove();
    return { documents: 0, written: 0, resumed, complete: true, resumable: false };
  }
  await saver.save();
  // One writer: chunks are appended in the order they arrive, and a range's position moves only once its
  // chunk is in the file, so the state always describes a prefix of the output.
  let writes: Promise<void> = Promise.resolve();
  const append = (range: ExportRange, to: number, lines: Buffer, count: number) => {
    writes = writes.then(async () => {
      if (lines.length > 0) await writeFully(output, lines, state.bytes);
      state.bytes += lines.length;
      state.documents += count;
      range.next = to;
      saver.dirty();
      report();
    });
    return writes;
  };
  const timer = setInterval(() => void saver.saveIfDirty().catch(() => undefined), STATE_EVERY_MS);
  // The first puller that fails stops the others after their current chunk, so nothing is written after the
  // state saved below.
  let failed = false;
  const outcomes = await Promise.allSettled(
    state.ranges.map(async (range) => {
      try {
        for (let chunk = nextChunk(range); chunk; chunk = nextChunk(range)) {
          if (options.signal?.aborted || failed) return;
          const query = new URLSearchParams({
            'id.gte': String(chunk.from),
            'id.lt': String(chunk.to),
            reverse: 'true',
            limit: String(CHUNK_IDS),
          });
          if (since) query.set('publishedAt.gte', since);
          const { lines, count } = toLines(await api.get(`documents/latestPublications?${query.toString()}`));
          await append(range, chunk.to, lines, count);
        }
      } catch (error) {
        // Stopped while a request waited to be tried again: its chunk is not written, the state says so.
        if (error instanceof ExportStopped) return;
        failed = true;
        throw error;
      }
    }),
  );
  clearInterval(timer);
  const failure = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failure) {
    // What was written is kept: the state says how far, a rerun resumes.
    await writes.catch(() => undefined);
    await saver.save().catch(() => undefined);
    const reason: unknown = failure.reason;
    throw reason instanceof ExportError ? new ExportError(reason.message, true) : reason;
  }
  await writes;
  const complete = state.ranges.every((range) => range.next >= range.end);
  if (complete) {
    await output.datasync();
    await saver.remove();
  } else {
    await saver.save();
  }
  return {
    documents: state.documents,
    written: state.documents - startDocuments,
    resumed,
    complete,
    resumable: !complete,
  };
}

async function writeFully(output: FileHandle, bytes: Buffer, position: number): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await output.write(bytes, offset, bytes.length - offset, position + offset);
    offset += bytesWritten;
  }
}

/** Saves the state beside the output: the output's bytes made durable first, then the state written and renamed into place. */
function stateSaver(out: string, state: ExportState, output: FileHandle) {
  const path = statePath(out);
  let dirty = false;
  let saving: Promise<void> = Promise.resolve();
  const save = () => {
    saving = saving.then(async () => {
      dirty = false;
      // A snapshot first: the writer may move on while the output is synced.
      const text = JSON.stringify(state);
      await output.datasync();
      await writeFile(`${path}.tmp`, text);
      await rename(`${path}.tmp`, path);
    });
    return saving;
  };
  return {
    dirty: () => {
      dirty = true;
    },
    save,
    saveIfDirty: () => (dirty ? save() : saving),
    async remove() {
      await saving.catch(() => undefined);
      await rm(path, { force: true });
      await rm(`${path}.tmp`, { force: true });
    },
  };
}

const NEWLINE = 0x0a;

/**
 * The items of a `{"results": [...]}` answer, one per line, their bytes as the API sent them (stored bodies
 * are compact JSON; an item with a line break between its tokens is re-serialised, as one line).
 */
export function toLines(body: Buffer): { lines: Buffer; count: number } {
  const parts: Buffer[] = [];
  const reader = new JsonSkimmer(body);
  let count = 0;
  try {
    reader.forEachEntry((key) => {
      if (key !== 'results') {
        reader.skipValue();
        return;
      }
      reader.forEachElement(() => {
        const { start, end } = reader.skipValue();
        let item = body.subarray(start, end);
        if (item.includes(NEWLINE)) item = Buffer.from(JSON.stringify(JSON.parse(item.toString('utf8'))));
        parts.push(item, NEWLINE_BYTES);
        count++;
      });
    });
  } catch (error) {
    throw new ExportError(`the API answered something that is not a list of documents: ${String(error)}`);
  }
  return { lines: Buffer.concat(parts), count };
}
const NEWLINE_BYTES = Buffer.from('\n');

interface ApiCaller {
  /** The body of a 200 answer to `path` (relative to the API version's base); throws on anything else. */
  get(path: string): Promise<Buffer>;
  /**
   * The lowest (`documentId`) or highest (`-documentId`) published document id with its project (the token's),
   * or undefined if none.
   */
  boundary(
    sort: 'documentId' | '-documentId',
  ): Promise<{ documentId: number; projectId: number } | undefined>;
}

function apiCaller(
  http: HttpGetter,
  base: URL,
  token: string,
  signal?: AbortSignal,
  onRetry?: (notice: string) => void,
): ApiCaller {
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  const get = async (path: string): Promise<Buffer> => {
    const url = new URL(path, base);
    for (let attempt = 1; ; attempt++) {
      let answer: HttpAnswer | undefined;
      let failure: unknown;
      try {
        answer = await http.get(url, headers);
      } catch (error) {
        failure = error;
      }
      if (answer?.status === 200) return answer.body;
      const retriable = answer === undefined || [429, 502, 503, 504].includes(answer.status);
      if (retriable && signal?.aborted) throw new ExportStopped();
      const problem = answer
        ? `GET ${url.pathname}${url.search} answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 500)}`
        : `GET ${shownUrl(url.href)} failed: ${failure instanceof Error ? failure.message : String(failure)}`;
      if (!retriable || attempt >= TRIES) throw new ExportError(problem);
      const retryAfter = Number(answer?.headers['retry-after']);
      const waitMs = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 500 * attempt;
      onRetry?.(`${problem.trimEnd()}; trying again in ${waitMs / 1000} s (try ${attempt + 1} of ${TRIES})`);
      // Ctrl-C ends the wait: a 429's Retry-After may be hours (a client limited per day).
      await sleep(waitMs, undefined, { signal }).catch(() => {
        throw new ExportStopped();
      });
    }
  };
  return {
    get,
    async boundary(sort) {
      const body = await get(`publications/search?sort=${sort}&limit=1&fields=id`);
      const parsed = JSON.parse(body.toString('utf8')) as {
        results?: { documentId?: unknown; projectId?: unknown }[];
      };
      const { documentId, projectId } = parsed.results?.[0] ?? {};
      return typeof documentId === 'number' && typeof projectId === 'number'
        ? { documentId, projectId }
        : undefined;
    },
  };
}
