import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { isDatabaseUnavailable, withTransaction, type Pool } from '../db/pool';
import { mediaQueries, type MediaEntryWrite } from '../db/queries/media';
import { mediaReferenceQueries } from '../db/queries/media-references';
import { mediaUploadQueries } from '../db/queries/media-uploads';
import type { ApiVersion } from '../domain/api-versions';
import {
  assetKeys,
  isImageType,
  mediaReferences,
  newObjectKey,
  safeFilename,
  storedFileType,
  toApiEntry,
  type ApiMediaEntry,
  type MediaEntryRow,
  type MediaType,
  type StoredAsset,
  type Translation,
} from '../domain/media';
import { AppError, validationDetails } from '../domain/errors';
import { quoted } from '../domain/shown-input';
import type { Logger } from '../logger';
import { downloadToFile, DownloadError, type DownloadLimits } from '../media/download';
import type { PublicAddressPolicy } from '../domain/public-addresses';
import { RequestAbandonedError, type DecodeBudget } from '../media/decode-budget';
import { probeImage } from '../media/probe';
import { withStagingDir } from '../media/staging';
import { probeVideo } from '../media/video-probe';
import { StoreUnavailableError, type ObjectStore } from '../storage/object-store';
import { uploadsExpiredBefore } from './upload-media';

/** An entry of POST import/mediaLibrary as the edge parsed it (supplement §9). */
export interface ImportMediaEntry {
  id?: string | undefined;
  systemName?: string | undefined;
  externalId?: string | undefined;
  mediaType: MediaType;
  asset: AssetSource;
  metadata: Record<string, unknown>;
  /** Each translation may bring an image of its own, from the same two sources. */
  translations: { locale: string; metadata: Record<string, unknown>; asset?: AssetSource | undefined }[];
}

/** Where an asset's bytes come from: a URL the server downloads, or an upload. */
export interface AssetSource {
  url?: string | undefined;
  uploadId?: string | undefined;
  filename?: string | undefined;
}

/** Each entry of the body: parsed, or its problems by path (its result's 400 error_details). */
export type ImportMediaInput =
  { ok: true; entry: ImportMediaEntry } | { ok: false; details: Record<string, string> };

export type ImportMediaResult =
  | { ok: true; status: 200; id: string; record: ApiMediaEntry }
  | { ok: false; status: number; error: string; error_details: Record<string, unknown> };

export interface MediaImportDeps {
  pool: Pool;
  objects: ObjectStore;
  logger: Logger;
  download: DownloadLimits;
  /** The most pixels an image may have (MEDIA_MAX_IMAGE_PIXELS). */
  maxImagePixels: number;
  /** The pixels the process may be decoding at once: every image check waits for its turn here. */
  decodeBudget: DecodeBudget;
  /** Which addresses downloads may reach (the context's policy, shared with import webhooks). */
  addresses: PublicAddressPolicy;
}

/** One entry's failure, as its result says it. */
class EntryFailure extends Error {
  constructor(readonly result: Extract<ImportMediaResult, { ok: false }>) {
    super(result.error);
  }
}

const invalidEntry = (details: Record<string, string>) =>
  new EntryFailure({
    ok: false,
    status: 400,
    error: 'ValidationError',
    error_details: validationDetails(details),
  });

/**
 * An entry's 503, as the request's would say it (http/middleware/errors.ts): its name as `error`, as every
 * result of this import names its failure.
 */
const unavailableResult = (error: AppError): Extract<ImportMediaResult, { ok: false }> => ({
  ok: false,
  status: error.status,
  error: String(error.details.name),
  error_details: error.details,
});

const uniqueIdViolation = (message: string) =>
  new EntryFailure({
    ok: false,
    status: 409,
    error: 'UniqueIdViolation',
    error_details: { name: 'UniqueIdViolation', message },
  });

/** Bytes ready for an entry: in the object store under `asset.key`, and whether this import put them there. */
interface PlacedAsset {
  asset: StoredAsset;
  /** Set when the asset is an upload: the import claims it in the entry's transaction. */
  uploadId?: string;
  /** Put by this import: deleted again if the entry does not commit, so no object is left without an entry. */
  putByUs: boolean;
}

/**
 * POST import/mediaLibrary (supplement §9): each entry on its own, results in request order. An entry's bytes
 * come from a URL the server downloads or from an upload (POST mediaLibrary/uploads); they are probed (an
 * image's format, width and height are read from the bytes, a video's duration, width and height from its
 * container's header), written to the object store, and only then is the entry written, with its metadata's
 * references, in one transaction. When that fails the object is deleted again: nothing is left half-stored.
 * An entry with `externalId` and `systemName` that exists is updated (its previous object deleted after the
 * commit); one with a taken `id` is a 409 UniqueIdViolation.
 */
export async function importMedia(
  deps: MediaImportDeps,
  projectId: number,
  inputs: readonly ImportMediaInput[],
  view: { baseUrl: string; version: ApiVersion },
  /** The request's lifetime: once its client is gone, no further entry is started. */
  signal?: AbortSignal,
): Promise<ImportMediaResult[]> {
  const results: ImportMediaResult[] = [];
  /** Postgres became unavailable: what every entry after it answers, not started (each would wait for it). */
  let outage: ImportMediaResult | undefined;
  /**
   * The store could not take an entry's bytes (refused, 5xx, or no answer within MEDIA_S3_TIMEOUT_MS): the
   * entries after it that bring bytes are its 503 without being tried, so a hung store costs a request one
   * timeout, not one per entry. Entries of uploads (bytes stored already) are still imported.
   */
  let storeAway = false;
  for (const input of inputs) {
    if (!input.ok) {
      results.push(invalidEntry(input.details).result);
      continue;
    }
    // Nobody reads the results any more: the entries done so far stay, the rest are not started.
    if (signal?.aborted) throw new RequestAbandonedError();
    if (outage) {
      results.push(outage);
      continue;
    }
    if (storeAway && bringsBytes(input.entry)) {
      results.push(unavailableResult(AppError.storageUnavailable()));
      continue;
    }
    try {
      const row = await importOne(deps, projectId, input.entry, new Date(), signal);
      results.push({
        ok: true,
        status: 200,
        id: row.id,
        record: toApiEntry(row, view.baseUrl, view.version.label),
      });
    } catch (error) {
      // The store or Postgres away is this entry's failure, not the request's: the entries before it are
      // committed, and a client that got a 503 for all would retry those into 409s. Nothing of this one was
      // kept (importOne).
      if (error instanceof StoreUnavailableError) {
        storeAway = true;
        results.push(unavailableResult(AppError.storageUnavailable()));
      } else if (error instanceof EntryFailure) results.push(error.result);
      else if (isDatabaseUnavailable(error))
        results.push((outage = unavailableResult(AppError.databaseUnavailable())));
      else throw error;
    }
  }
  return results;
}

/** Whether an entry's import writes bytes to the store: its asset or a translation's comes from a URL. */
function bringsBytes(entry: ImportMediaEntry): boolean {
  return entry.asset.url !== undefined || entry.translations.some((each) => each.asset?.url !== undefined);
}

/** The import of one entry, for the CLI and the demo as well: the stored row, or an EntryFailure. */
async function importOne(
  deps: MediaImportDeps,
  projectId: number,
  entry: ImportMediaEntry,
  now: Date,
  signal?: AbortSignal,
): Promise<MediaEntryRow> {
  const media = mediaQueries(deps.pool);
  // Cheap refusals first, before any byte is downloaded; the transaction decides for real.
  const existing =
    entry.externalId !== undefined && entry.systemName !== undefined
      ? await media.findByExternalId(projectId, entry.systemName, entry.externalId)
      : undefined;
  if (existing && entry.id !== undefined && entry.id !== existing.id) {
    throw uniqueIdViolation(
      `The entry with externalId ${quoted(entry.externalId ?? '')} of system ${quoted(entry.systemName ?? '')} has the id ${quoted(existing.id)}, not ${quoted(entry.id)}`,
    );
  }
  if (!existing && entry.id !== undefined && (await media.findById(projectId, entry.id))) {
    throw uniqueIdViolation(`A media library entry with the id ${quoted(entry.id)} already exists`);
  }

  // The entry's asset, then each translation's: every object this import put is deleted again on failure.
  const placedAll: { where: string; placed: PlacedAsset }[] = [];
  let row: MediaEntryRow;
  /** The entry this import updated, as it was: its objects the new row no longer names are deleted. */
  let replaced: MediaEntryRow | undefined;
  try {
    const placed = await placeAsset(deps, projectId, entry.asset, entry.mediaType, 'asset', now, signal);
    placedAll.push({ where: 'asset', placed });
    const translations: Translation[] = [];
    for (const [index, translation] of entry.translations.entries()) {
      const where = `translations.${index}.asset`;
      if (translation.asset === undefined) {
        translations.push({ locale: translation.locale, metadata: translation.metadata });
        continue;
      }
      const own = await placeAsset(deps, projectId, translation.asset, entry.mediaType, where, now, signal);
      placedAll.push({ where, placed: own });
      translations.push({ locale: translation.locale, metadata: translation.metadata, asset: own.asset });
    }
    row = await withTransaction(deps.pool, async (tx) => {
      for (const { where, placed: each } of placedAll) {
        const claimed =
          each.uploadId === undefined ||
          (await mediaUploadQueries(tx).claim(projectId, each.uploadId, uploadsExpiredBefore(now)));
        if (!claimed) {
          throw invalidEntry({
            [`${where}.uploadId`]: 'names no upload of this project (unknown, expired or already imported)',
          });
        }
      }
      const write: MediaEntryWrite = {
        mediaType: entry.mediaType,
        systemName: entry.systemName ?? null,
        externalId: entry.externalId ?? null,
        metadata: entry.metadata,
        asset: placed.asset,
        translations,
      };
      const queries = mediaQueries(tx);
      const { systemName, externalId } = entry;
      const findCurrent = async () => {
        if (systemName === undefined || externalId === undefined) return undefined;
        const found = await queries.findByExternalId(projectId, systemName, externalId, true);
        if (found && entry.id !== undefined && entry.id !== found.id) {
          throw uniqueIdViolation(
            `The entry with externalId ${quoted(externalId)} of system ${quoted(systemName)} has the id ${quoted(found.id)}, not ${quoted(entry.id)}`,
          );
        }
        return found;
      };
      let current = await findCurrent();
      let stored = current
        ? await queries.replace(projectId, current.id, write)
        : await queries.insert(projectId, entry.id ?? newMediaId(), write);
      if (!stored && !current) {
        // An import of the same external id inserted it meanwhile (the insert waited for its commit): this
        // one updates it, as it would have a moment later.
        current = await findCurrent();
        if (current) stored = await queries.replace(projectId, current.id, write);
      }
      replaced = current;
      if (!stored) {
        throw uniqueIdViolation(
          entry.id !== undefined
            ? `A media library entry with the id ${quoted(entry.id)} already exists`
            : `A media library entry with externalId ${quoted(entry.externalId ?? '')} of system ${quoted(entry.systemName ?? '')} already exists`,
        );
      }
      await mediaReferenceQueries(tx).replace(
        projectId,
        stored.id,
        mediaReferences(stored.metadata, stored.translations),
      );
      return stored;
    });
    // serve-image's cache in this process forgets the project's keys before the answer (others: notified).
    deps.pool.changes.emit('media', projectId);
  } catch (error) {
    for (const { placed } of placedAll) if (placed.putByUs) await deleteObject(deps, placed.asset.key);
    throw error;
  }
  // An update's previous objects (its asset's, its translations') that the new row no longer names.
  const kept = new Set(assetKeys(row));
  for (const key of replaced ? assetKeys(replaced) : []) {
    if (!kept.has(key) && !(await media.keyInUse(projectId, key))) await deleteObject(deps, key);
  }
  return row;
}

/** A generated entry id: 32 hex digits, within `^[a-zA-Z0-9-]{1,32}$`. */
function newMediaId(): string {
  return randomUUID().replaceAll('-', '');
}

async function deleteObject(deps: MediaImportDeps, key: string): Promise<void> {
  try {
    await deps.objects.delete(key);
  } catch (error) {
    deps.logger.error({ err: error, key }, 'media object could not be deleted: it is left without an entry');
  }
}

/**
 * An asset's bytes in the object store: an upload's (already there), or downloaded, probed and put. Problems
 * are the entry's 400 under `where` (`asset`, `translations.<i>.asset`).
 */
async function placeAsset(
  deps: MediaImportDeps,
  projectId: number,
  source: AssetSource,
  mediaType: MediaType,
  where: string,
  now: Date,
  signal?: AbortSignal,
): Promise<PlacedAsset> {
  if (source.uploadId !== undefined) {
    const upload = await mediaUploadQueries(deps.pool).find(
      projectId,
      source.uploadId,
      uploadsExpiredBefore(now),
    );
    if (!upload) {
      throw invalidEntry({
        [`${where}.uploadId`]: 'names no upload of this project (unknown, expired or already imported)',
      });
    }
    // A video's upload has a width and a height too (from its header): its type says it is no image.
    if (
      mediaType === 'image' &&
      (upload.width === null || upload.height === null || !isImageType(upload.mimeType))
    ) {
      throw invalidEntry({
        [`${where}.uploadId`]: `names an upload of ${upload.mimeType}, which is not an image`,
      });
    }
    return {
      asset: {
        key: upload.key,
        filename:
          source.filename !== undefined ? safeFilename(source.filename, upload.filename) : upload.filename,
        mimeType: upload.mimeType,
        size: upload.size,
        ...(upload.width === null ? {} : { width: upload.width }),
        ...(upload.height === null ? {} : { height: upload.height }),
        ...(upload.duration === null ? {} : { duration: upload.duration }),
      },
      uploadId: upload.id,
      putByUs: false,
    };
  }
  const url = source.url!;
  return withStagingDir(async (dir) => {
    const path = join(dir, 'asset');
    let downloaded;
    try {
      downloaded = await downloadToFile(url, path, deps.download, deps.addresses);
    } catch (error) {
      if (error instanceof DownloadError) throw invalidEntry({ [`${where}.url`]: error.message });
      throw error;
    }
    // As an empty upload is refused: an entry of no bytes would serve nothing.
    if (downloaded.size === 0) throw invalidEntry({ [`${where}.url`]: 'the downloaded file is empty' });
    const fallbackName = safeFilename(decodeURIComponentSafe(downloaded.url.pathname), 'asset');
    const filename = safeFilename(source.filename, fallbackName);
    const facts = await describeBytes(path, mediaType, downloaded.contentType, {
      maxPixels: deps.maxImagePixels,
      budget: deps.decodeBudget,
      signal,
    });
    if (!facts.ok) throw invalidEntry({ [`${where}.url`]: `the downloaded file ${facts.reason}` });
    const key = newObjectKey(projectId, randomUUID(), facts.extension, now);
    await deps.objects.put(key, createReadStream(path), {
      contentType: facts.mimeType,
      size: downloaded.size,
    });
    return {
      asset: {
        key,
        filename,
        mimeType: facts.mimeType,
        size: downloaded.size,
        ...(facts.width === undefined ? {} : { width: facts.width }),
        ...(facts.height === undefined ? {} : { height: facts.height }),
        ...(facts.duration === undefined ? {} : { duration: facts.duration }),
      },
      putByUs: true,
    };
  });
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * What staged bytes are: for an image entry, what sharp reads from them (or why they are refused); for a
 * video or a file, the type the source declared (`application/octet-stream` when it declared none), and the
 * duration and frame size its header gives when it is a video (or a sound) in MP4/MOV or Matroska/WebM.
 */
export async function describeBytes(
  path: string,
  mediaType: MediaType,
  declaredType: string | undefined,
  imageCheck: { maxPixels: number; budget: DecodeBudget; signal?: AbortSignal | undefined },
): Promise<
  | { ok: true; mimeType: string; extension: string; width?: number; height?: number; duration?: number }
  | { ok: false; reason: string }
> {
  if (mediaType === 'image') {
    const probed = await probeImage(path, imageCheck);
    return probed.ok ? { ok: true, ...probed.facts } : probed;
  }
  const mimeType = storedFileType(declaredType);
  const subtype = mimeType
    .split('/')[1]!
    .replace(/[^a-z0-9]/g, '')
    .slice(0, 10);
  const video = await probeVideo(path);
  return { ok: true, mimeType, extension: subtype === '' ? 'bin' : subtype, ...video };
}
