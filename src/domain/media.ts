import { AppError } from './errors';
import { extractReferences, type ReferenceRow } from './references';
import { shownInput } from './shown-input';

/**
 * The media library (api-spec §2.7, §3.2, §4.18; supplement §9): the entry as the API shows it, the rules of
 * its patch operations, and what an entry's metadata refers to. Pure: no I/O.
 */

export const MEDIA_ID_PATTERN = /^[a-zA-Z0-9-]{1,32}$/;
export const MEDIA_TYPES = ['image', 'video', 'file'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];
/** api-spec §8: a revoke note is at most 200 characters. */
export const MAX_REVOKE_NOTE = 200;
/** How many entries one POST import/mediaLibrary or GET mediaLibrary?ids= may name. */
export const MAX_MEDIA_ENTRIES = 100;

/** The asset as stored in `media_entries.asset`: what was read from the bytes, never what a client claimed. */
export interface StoredAsset {
  key: string;
  filename: string;
  mimeType: string;
  size: number;
  width?: number;
  height?: number;
  /** A video's (or a sound's) duration in seconds, from its container's header. */
  duration?: number;
}

export interface Translation {
  locale: string;
  metadata: Record<string, unknown>;
  /** The translation's own image (a localized variant), stored like the entry's. */
  asset?: StoredAsset;
}

/** A translation as the API shows it: its asset with its serve-image url. */
export interface ApiTranslation {
  locale: string;
  metadata: Record<string, unknown>;
  asset?: ApiAsset;
}

export interface MediaEntryRow {
  id: string;
  mediaType: MediaType;
  systemName: string | null;
  externalId: string | null;
  metadata: Record<string, unknown>;
  asset: StoredAsset | null;
  translations: Translation[];
  version: number;
  revoked: boolean;
  revokeNote: string | null;
  invalid: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** The entry of api-spec §2.7, and nothing more (no revoked flag, no system name). */
export interface ApiMediaEntry {
  id: string;
  mediaType: string;
  createdAt: string;
  updatedAt: string;
  version: number;
  metadata: Record<string, unknown>;
  asset?: ApiAsset;
  translations: ApiTranslation[];
}

/** The asset as the API shows it: the stored one with its serve-image url. */
export interface ApiAsset extends StoredAsset {
  url: string;
}

/** The path of serve-image for a key: each segment percent-encoded, the slashes kept. */
export function serveImagePath(versionLabel: string, key: string): string {
  return `/api/${versionLabel}${serveImageTail(key)}`;
}

/** The end of serve-image's path for a key, the same in every version and behind any base URL. */
function serveImageTail(key: string): string {
  const encoded = key
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
  return `/mediaLibrary/serve-image/${encoded}`;
}

/** The entry as the API answers it; `baseUrl` (no trailing slash) and the version make the asset's url. */
export function toApiEntry(row: MediaEntryRow, baseUrl: string, versionLabel: string): ApiMediaEntry {
  return {
    id: row.id,
    mediaType: row.mediaType,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    version: row.version,
    metadata: row.metadata,
    ...(row.asset ? { asset: toApiAsset(row.asset, baseUrl, versionLabel) } : {}),
    translations: row.translations.map((translation) => ({
      locale: translation.locale,
      metadata: translation.metadata,
      ...(translation.asset ? { asset: toApiAsset(translation.asset, baseUrl, versionLabel) } : {}),
    })),
  };
}

/** Every object key an entry's row names: its asset's and its translations' assets'. */
export function assetKeys(entry: {
  asset: StoredAsset | null;
  translations: readonly Translation[];
}): string[] {
  return [entry.asset?.key, ...entry.translations.map((translation) => translation.asset?.key)].filter(
    (key): key is string => key !== undefined,
  );
}

function toApiAsset(asset: StoredAsset, baseUrl: string, versionLabel: string): ApiAsset {
  return {
    key: asset.key,
    filename: asset.filename,
    mimeType: asset.mimeType,
    size: asset.size,
    ...(asset.width === undefined ? {} : { width: asset.width }),
    ...(asset.height === undefined ? {} : { height: asset.height }),
    ...(asset.duration === undefined ? {} : { duration: asset.duration }),
    url: `${baseUrl}${serveImagePath(versionLabel, asset.key)}`,
  };
}

/**
 * The optimistic check of PATCH mediaLibrary/{id}: a `version` sent that is not the entry's is a 409 Conflict,
 * worded as a document command's, before any patch applies. The vendor's clients send it (its reference
 * documents `version` on this patch); none sent, no check.
 */
export function assertMediaVersion(expected: number | undefined, current: number): void {
  if (expected !== undefined && expected !== current) {
    throw AppError.conflict('The media library entry you tried to update is outdated', {
      expectedVersion: expected,
      currentVersion: current,
    });
  }
}

/** One patch operation of PATCH mediaLibrary/{id} (api-spec §4.18), as the edge parsed it. */
export type MediaPatch =
  | { operation: 'revokeAsset'; note?: string | undefined }
  | { operation: 'unrevokeAsset' }
  | { operation: 'setMetadata'; metadata: Record<string, unknown> }
  /** The vendor's operation (supplement §9 names none): a value of null, or none, removes the property. */
  | { operation: 'setMetadataProperty'; propertyName: string; value?: unknown }
  | {
      operation: 'setTranslations';
      translations: { locale: string; metadata: Record<string, unknown>; asset?: AssetAsShown | undefined }[];
    };

/**
 * A translation's asset as a client sends it back in setTranslations: the asset object of api-spec §2.7, as
 * GET showed it. Only `key` is needed; whatever else is sent must be what GET shows.
 */
export interface AssetAsShown {
  key: string;
  filename?: string | undefined;
  mimeType?: string | undefined;
  size?: number | undefined;
  width?: number | undefined;
  height?: number | undefined;
  duration?: number | undefined;
  url?: string | undefined;
  storage?: string | undefined;
}

/** What a client must do instead of changing a translation's image in a patch. */
const IMAGES_BY_IMPORT =
  "a patch keeps each locale's image as GET shows it (send it unchanged, or no asset); " +
  'POST import/mediaLibrary sets images (translations[].asset with url or uploadId)';

/**
 * Why an asset sent back with a translation is not the image stored for its locale, by path under the
 * translation (`asset`, `asset.filename`, ...); empty when it is that image as GET shows it (any version's
 * serve-image url, behind any base URL). Pure.
 */
export function assetAsShownProblems(
  locale: string,
  sent: AssetAsShown,
  stored: StoredAsset | undefined,
): Record<string, string> {
  if (stored === undefined) {
    return { asset: `names an image, but locale '${locale}' has none: ${IMAGES_BY_IMPORT}` };
  }
  if (sent.key !== stored.key)
    return { 'asset.key': `is not the stored image's ('${stored.key}'): ${IMAGES_BY_IMPORT}` };
  const problems: Record<string, string> = {};
  const fields = ['filename', 'mimeType', 'size', 'width', 'height', 'duration', 'storage'] as const;
  for (const field of fields) {
    const value = sent[field];
    if (value === undefined) continue;
    const kept = (stored as Partial<Record<(typeof fields)[number], string | number>>)[field];
    if (kept === undefined) problems[`asset.${field}`] = `the stored image has none: ${IMAGES_BY_IMPORT}`;
    else if (value !== kept) {
      const shown = typeof kept === 'string' ? `'${kept}'` : String(kept);
      problems[`asset.${field}`] = `is not the stored image's (${shown}): ${IMAGES_BY_IMPORT}`;
    }
  }
  if (sent.url !== undefined && !isServeImageUrl(sent.url, stored.key)) {
    problems['asset.url'] = `is not the serve-image URL of the stored image's key: ${IMAGES_BY_IMPORT}`;
  }
  return problems;
}

function isServeImageUrl(url: string, key: string): boolean {
  try {
    return new URL(url).pathname.endsWith(serveImageTail(key));
  } catch {
    return false;
  }
}

export interface PatchableState {
  revoked: boolean;
  revokeNote: string | null;
  metadata: Record<string, unknown>;
  translations: Translation[];
}

/**
 * The state after a batch of patches, in order (api-spec §3.2): revoking a revoked entry is a 409
 * ConflictError from 2026-01 (the note kept), and silently nothing before; unrevoking an entry that is not
 * revoked is a 409 ConflictError (supplement §3). The error names the patch by its index.
 */
export function applyMediaPatches(
  state: PatchableState,
  patches: readonly MediaPatch[],
  options: { conflictOnRevokeRevoked: boolean },
): PatchableState {
  let next = { ...state };
  patches.forEach((patch, index) => {
    switch (patch.operation) {
      case 'revokeAsset':
        if (next.revoked) {
          if (options.conflictOnRevokeRevoked) {
            throw new AppError(409, {
              name: 'ConflictError',
              message: 'The asset of this media library entry is already revoked',
              patchIndex: index,
            });
          }
          return;
        }
        next = { ...next, revoked: true, revokeNote: patch.note ?? null };
        return;
      case 'unrevokeAsset':
        if (!next.revoked) {
          throw new AppError(409, {
            name: 'ConflictError',
            message: 'The asset of this media library entry is not revoked',
            patchIndex: index,
          });
        }
        next = { ...next, revoked: false, revokeNote: null };
        return;
      case 'setMetadata':
        next = { ...next, metadata: patch.metadata };
        return;
      case 'setMetadataProperty': {
        const { [patch.propertyName]: _old, ...rest } = next.metadata;
        next = {
          ...next,
          metadata:
            patch.value === undefined || patch.value === null
              ? rest
              : { ...next.metadata, [patch.propertyName]: patch.value },
        };
        return;
      }
      case 'setTranslations': {
        // A patch sets the translations' metadata; a translation's own image stays with its locale (an import
        // replaces images), and goes when its locale goes. An asset sent with a translation (what GET shows,
        // sent back) must be that image: a patch neither moves nor changes one.
        const assets = new Map(
          next.translations.map((translation) => [translation.locale, translation.asset]),
        );
        const problems: Record<string, string> = {};
        patch.translations.forEach((translation, position) => {
          if (translation.asset === undefined) return;
          const found = assetAsShownProblems(
            translation.locale,
            translation.asset,
            assets.get(translation.locale),
          );
          for (const [path, message] of Object.entries(found)) {
            problems[`patches.${index}.translations.${position}.${path}`] = message;
          }
        });
        if (Object.keys(problems).length > 0) throw AppError.validation(problems);
        next = {
          ...next,
          translations: patch.translations.map(({ locale, metadata }) => {
            const asset = assets.get(locale);
            return asset ? { locale, metadata, asset } : { locale, metadata };
          }),
        };
        return;
      }
    }
  });
  return next;
}

/**
 * Whether a batch's outcome is the entry as stored: the same revocation, note, metadata and translations
 * (their images included). Such a batch changes nothing, so PATCH mediaLibrary/{id} writes nothing: no new
 * version, no new updatedAt, no change notice. Key order does not count (jsonb keeps none), but a property
 * set to null does: GET would show it, where it showed none.
 */
export function changesNothing(stored: PatchableState, next: PatchableState): boolean {
  return (
    stored.revoked === next.revoked &&
    stored.revokeNote === next.revokeNote &&
    sameJson(stored.metadata, next.metadata) &&
    sameJson(stored.translations, next.translations)
  );
}

/** Equality of JSON values as jsonb stores them: key order does not count, a null is not a missing property. */
function sameJson(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (Array.isArray(left) || Array.isArray(right)) {
    return (
      Array.isArray(left) &&
      Array.isArray(right) &&
      left.length === right.length &&
      left.every((item, index) => sameJson(item, right[index]))
    );
  }
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  const a = left as Record<string, unknown>;
  const b = right as Record<string, unknown>;
  const keys = Object.keys(a).filter((key) => a[key] !== undefined);
  return (
    keys.length === Object.keys(b).filter((key) => b[key] !== undefined).length &&
    keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]))
  );
}

/**
 * What an entry's metadata (and its translations' metadata) points at: document and media `$ref`s and
 * `{mediaId}` image values, located `metadata` with the property's name. Duplicates dropped.
 */
export function mediaReferences(
  metadata: Record<string, unknown>,
  translations: readonly Translation[],
): ReferenceRow[] {
  const rows = [metadata, ...translations.map((translation) => translation.metadata)].flatMap(
    (each) => extractReferences(each, []).rows,
  );
  const seen = new Set<string>();
  return rows.filter((row) => {
    const key = JSON.stringify([row.targetType, row.targetId, row.propertyName]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The most pixels (width x height) an image may have by default (MEDIA_MAX_IMAGE_PIXELS): 50 megapixels, more
 * than the photos of nearly every camera (8660 x 5774). Decoding costs memory and CPU by pixels, not by bytes:
 * a PNG or AVIF of a few hundred bytes may declare 16383 x 16383 pixels (sharp's own limit) and take gigabytes
 * and minutes to decode.
 */
export const DEFAULT_MAX_IMAGE_PIXELS = 50_000_000;

/** Image formats sharp reads that the library accepts, by sharp's format name, with their mime type. */
export const IMAGE_FORMATS: Readonly<Record<string, { mimeType: string; extension: string }>> = {
  jpeg: { mimeType: 'image/jpeg', extension: 'jpg' },
  png: { mimeType: 'image/png', extension: 'png' },
  webp: { mimeType: 'image/webp', extension: 'webp' },
  gif: { mimeType: 'image/gif', extension: 'gif' },
  avif: { mimeType: 'image/avif', extension: 'avif' },
  tiff: { mimeType: 'image/tiff', extension: 'tiff' },
};

/**
 * Whether a stored type is one the image probe gives (IMAGE_FORMATS): bytes stored as any other type are no
 * image, even with a width and a height (a video's, from its header).
 */
export function isImageType(mimeType: string): boolean {
  return Object.values(IMAGE_FORMATS).some((format) => format.mimeType === mimeType);
}

/**
 * A file name safe to show and to end a key with: the last path segment, only [A-Za-z0-9._-], ≤ 100 chars.
 * A name with nothing safe before its first dot ("✓.png", "日本.jpg", ".png") is the fallback: without its
 * leading dashes and dots it would be its bare extension ("png").
 */
export function safeFilename(name: string | undefined, fallback: string): string {
  const last = (name ?? '').split(/[/\\]/).pop() ?? '';
  const safe = last
    // Decomposed, an accented letter is its base letter and a combining mark: the mark goes, so "Zürich"
    // keeps its "u" (not "Zu-rich").
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-');
  const leading = /^[.-]*/.exec(safe)![0];
  const cleaned = safe.slice(leading.length).slice(-100);
  return cleaned === '' || leading.includes('.') ? fallback : cleaned;
}

/** The object key of new bytes: `<projectId>/<yyyy>/<mm>/<dd>/<uuid>.<ext>` (supplement §9's style). */
export function newObjectKey(projectId: number, uuid: string, extension: string, now: Date): string {
  const yyyy = String(now.getUTCFullYear());
  const mm = String(now.getUTCMonth() + 1).padStart(2, '0');
  const dd = String(now.getUTCDate()).padStart(2, '0');
  return `${projectId}/${yyyy}/${mm}/${dd}/${uuid}.${extension}`;
}

export const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;
const UPLOAD_FAMILIES = new Set(['image', 'video', 'audio', 'application']);
/** application/ types that are a request's own format, never a file: a client that sends them means JSON or a form. */
const NOT_A_FILE = /^application\/(?:json|[a-z0-9.+-]*\+json|x-www-form-urlencoded)$/;

/**
 * Why POST mediaLibrary/uploads refuses a body of this Content-Type and Content-Encoding (a 415), or undefined:
 * the bytes are stored as sent, with their type, so the type must name a file (image, video, audio or an
 * application/ type other than JSON and forms; text goes as application/octet-stream) and nothing may encode it.
 */
export function uploadTypeProblem(
  mediaType: string,
  contentEncoding: string | undefined,
): string | undefined {
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== '') {
    return `Send the file's bytes as they are: Content-Encoding ${shownInput(encoding)} is not accepted for uploads`;
  }
  const family = mediaType.split('/')[0] ?? '';
  if (!MIME_TYPE.test(mediaType) || !UPLOAD_FAMILIES.has(family) || NOT_A_FILE.test(mediaType)) {
    return (
      'Send the file as the request body with its own Content-Type: image/*, video/*, audio/* or an ' +
      `application/ type such as application/pdf or application/octet-stream (got ${mediaType === '' ? 'none' : shownInput(mediaType)})`
    );
  }
  return undefined;
}

/** Types a browser would run or render as a page (script, markup): such bytes are kept, but as a download. */
const ACTIVE_TYPE = /html|xml|javascript|ecmascript|x-shockwave|svg/;

/**
 * The Content-Type a file or video is stored (and later served) with: the type its source declared when it
 * names a file, `application/octet-stream` otherwise, and for anything a browser would execute or render.
 */
export function storedFileType(declared: string | undefined): string {
  const type = (declared ?? '').split(';')[0]!.trim().toLowerCase();
  if (uploadTypeProblem(type, undefined) !== undefined || ACTIVE_TYPE.test(type))
    return 'application/octet-stream';
  return type;
}
