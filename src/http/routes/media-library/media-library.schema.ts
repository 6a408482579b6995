import { z } from 'zod';
import { perVersion } from '../../../domain/api-versions';
import {
  MAX_MEDIA_ENTRIES,
  MAX_REVOKE_NOTE,
  MEDIA_ID_PATTERN,
  MEDIA_TYPES,
  type MediaPatch,
} from '../../../domain/media';
import { MAX_LOCALE_LENGTH } from '../../../domain/project-config';
import { quoted } from '../../../domain/shown-input';
import { fromCheck, invalid, valid, type Checked } from '../../../domain/validation';
import { listAnswer, pagedExtra } from '../../answers';
import { incomingReferencesQueryOf } from '../documents/incoming-references.schema';
import { queryList } from '../../query-params';
import { propertyName as documentPropertyName } from '../../../domain/document-commands/schema';

const MEDIA_ID_MESSAGE = 'must be a media library id: 1 to 32 letters, digits or hyphens';
export const mediaIdValue = z.string().regex(MEDIA_ID_PATTERN, { message: MEDIA_ID_MESSAGE });

/** `{id}` of mediaLibrary/{id} and its sub-resources. */
export const mediaParams = z.object({ id: mediaIdValue });

/** `ids`, in any form of a list parameter (queryList): order kept, at most MAX_MEDIA_ENTRIES ids. */
function mediaIdList(ids: string[]): Checked<string[]> {
  const bad = ids.find((id) => !MEDIA_ID_PATTERN.test(id));
  if (bad !== undefined) return invalid([{ path: [], message: `${quoted(bad)} ${MEDIA_ID_MESSAGE}` }]);
  if (ids.length > MAX_MEDIA_ENTRIES) {
    return invalid([{ path: [], message: `must list at most ${MAX_MEDIA_ENTRIES} ids` }]);
  }
  return valid(ids);
}

const oneText = (name: string, max: number) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? undefined : `must be a single ${name}`) })
    .min(1)
    .max(max);

/** supplement §9: GET mediaLibrary by `ids`, or by `externalId` with `systemName`; one of the two. */
export const mediaListQuery = z
  .strictObject({
    ids: queryList('media ids')
      .transform(fromCheck(mediaIdList))
      .meta({
        type: 'array',
        items: { type: 'string', pattern: MEDIA_ID_PATTERN.source },
        maxItems: MAX_MEDIA_ENTRIES,
      })
      .optional()
      .describe(`comma separated media ids (max ${MAX_MEDIA_ENTRIES})`),
    externalId: oneText('external id', 200)
      .optional()
      .describe('with systemName: the entry a system knows by this id'),
    systemName: oneText('system name', 100).optional().describe('with externalId'),
  })
  .transform((query, ctx) => {
    if (query.ids !== undefined) {
      if (query.externalId !== undefined || query.systemName !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['ids'],
          message: 'cannot be combined with externalId and systemName',
        });
        return z.NEVER;
      }
      return { ids: query.ids };
    }
    if (query.externalId !== undefined && query.systemName !== undefined) {
      return { externalId: query.externalId, systemName: query.systemName };
    }
    if (query.externalId !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['systemName'], message: 'is required with externalId' });
    } else if (query.systemName !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['externalId'], message: 'is required with systemName' });
    } else {
      ctx.addIssue({ code: 'custom', path: ['ids'], message: 'is required (or externalId with systemName)' });
    }
    return z.NEVER;
  });

/** api-spec §4.18: the entries' incoming references page as the documents' do, on the same entry. */
export const incomingReferencesQuery = incomingReferencesQueryOf('entry');

const assetSource = z
  .strictObject({
    url: z.string().min(1).max(2048).optional(),
    uploadId: z.uuid({ message: 'must be the uploadId answered by POST mediaLibrary/uploads' }).optional(),
    filename: z.string().min(1).max(200).optional(),
  })
  .superRefine((asset, ctx) => {
    if ((asset.url === undefined) === (asset.uploadId === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: asset.url === undefined ? ['url'] : ['uploadId'],
        message:
          asset.url === undefined
            ? 'is required: an http(s) URL to download, or uploadId of an upload'
            : 'cannot be combined with url: name one source of the bytes',
      });
    }
  });

const metadataObject = z.record(z.string(), z.unknown());

const translation = z.strictObject({
  locale: z
    .string()
    .regex(/^[a-z][a-zA-Z0-9-]+$/, {
      message: 'must start with a lowercase letter, followed by one or more letters, digits or hyphens',
    })
    .max(MAX_LOCALE_LENGTH),
  metadata: metadataObject,
});
/**
 * One translation per locale: a translation's image stays with its locale when a patch sets the translations
 * (applyMediaPatches), so two translations of one locale would end up sharing one image, the other deleted.
 */
function oneTranslationPerLocale(items: readonly { locale: string }[], ctx: z.RefinementCtx): void {
  const firstOf = new Map<string, number>();
  items.forEach(({ locale }, index) => {
    const first = firstOf.get(locale);
    if (first === undefined) firstOf.set(locale, index);
    else {
      ctx.addIssue({
        code: 'custom',
        path: [index, 'locale'],
        message: `repeats ${quoted(locale)} of translations.${first}: one translation per locale`,
      });
    }
  });
}

/**
 * A translation's asset in setTranslations: api-spec §2.7's asset object, as GET shows it and a client sends
 * it back. Only `key` is needed; the patch keeps the stored image, so whatever is sent must be that image
 * (assetAsShownProblems: a 400 saying that an import sets images).
 */
const assetAsShown = z
  .strictObject({
    key: z.string().min(1).max(1024).describe("the translation's stored image, as GET shows it"),
    filename: z.string().max(1024).optional(),
    mimeType: z.string().max(256).optional(),
    size: z.number().optional(),
    width: z.number().optional(),
    height: z.number().optional(),
    duration: z.number().optional(),
    url: z.string().max(4096).optional(),
    storage: z.string().max(256).optional().describe('deprecated'),
  })
  .describe(
    "The locale's stored image as GET shows it, sent back unchanged (or left out): a patch keeps each locale's " +
      'image; POST import/mediaLibrary sets images. Another image is a 400',
  );

const translations = z
  .array(translation.extend({ asset: assetAsShown.optional() }))
  .max(50)
  .superRefine(oneTranslationPerLocale);

/** One entry of POST import/mediaLibrary (supplement §9); each is parsed on its own, so each has its own 400. */
export const importMediaEntry = z
  .strictObject({
    id: mediaIdValue.optional(),
    systemName: z.string().min(1).max(100).optional(),
    externalId: z.string().min(1).max(200).optional(),
    mediaType: z.enum(MEDIA_TYPES),
    asset: assetSource,
    metadata: metadataObject.default({}),
    translations: z
      .array(translation.extend({ asset: assetSource.optional() }))
      .max(50)
      .superRefine(oneTranslationPerLocale)
      .default([]),
  })
  .refine((entry) => entry.externalId === undefined || entry.systemName !== undefined, {
    path: ['systemName'],
    message: 'is required with externalId',
  });

/** What GET answers of an entry and the server sets; an import sends the rest. */
const ENTRY_READ_ONLY = new Set(['createdAt', 'updatedAt', 'version']);
/** What GET answers of an asset, read from the stored bytes (and the vendor's duration and storage). */
const ASSET_READ_ONLY = new Set(['key', 'mimeType', 'size', 'width', 'height', 'duration', 'storage']);

/**
 * How an import's 400 names a field importMediaEntry does not take, when it is one GET answers: a client that
 * sends an entry as it read it learns that the field is read-only and what an import sends instead, where
 * "is not allowed" left it guessing. Undefined for any other field (the usual "is not allowed").
 */
export function importReadOnlyField(path: readonly PropertyKey[], key: string): string | undefined {
  if (path.length === 0 && ENTRY_READ_ONLY.has(key)) {
    return (
      'is read-only: the server sets it and GET answers it; an import sends id, systemName, externalId, ' +
      'mediaType, asset, metadata and translations'
    );
  }
  if (path.at(-1) === 'asset' && ASSET_READ_ONLY.has(key)) {
    return (
      "is read-only: GET answers it for the stored image, read from its bytes; an import's asset is url " +
      '(an http(s) URL to download) or uploadId (of POST mediaLibrary/uploads), and optionally filename'
    );
  }
  return undefined;
}

/** The body of POST import/mediaLibrary: its shape; the entries are parsed one by one (importMediaEntry). */
export const importMediaBody = z.strictObject({
  mediaLibraryEntries: z.array(z.unknown()).min(1).max(MAX_MEDIA_ENTRIES),
});

/** POST mediaLibrary/uploads: the file's name, optional (else `upload.<ext>`). */
export const uploadQuery = z.strictObject({
  filename: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('the file name the entry shows (default upload.<ext>)'),
});

/**
 * The vendor's operation that existing clients (a DAM sync, a transcoder) send: one metadata property set, or
 * removed with a value of null or none. In every version, as the vendor has it since 2020-12.
 */
const setMetadataProperty = z.strictObject({
  operation: z.literal('setMetadataProperty'),
  propertyName: documentPropertyName.describe('the metadata property'),
  value: z.json().optional().describe('the new value; null or none removes the property'),
});

/**
 * `version` of a patch: the entry's version as a number, or as a string of digits, which is how the vendor's
 * reference writes it (`"version": "1"`).
 */
const ENTRY_VERSION_MESSAGE =
  "must be the entry's version: a non-negative integer (or its digits as a string)";
const entryVersion = z
  .unknown()
  .transform((value, ctx) => {
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
    if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
    ctx.addIssue({ code: 'custom', message: ENTRY_VERSION_MESSAGE, input: value });
    return z.NEVER;
  })
  .meta({
    anyOf: [
      { type: 'integer', minimum: 0 },
      { type: 'string', pattern: '^\\d{1,15}$' },
    ],
  });

/**
 * api-spec §4.18, per version: note from 2026-01, unrevokeAsset from 2026-01, preserveUpdatedAt from 2026-03;
 * `version` and setMetadataProperty (the vendor's, what its clients send) in every version.
 */
export const patchMediaBody = perVersion((version) => {
  const since = (label: string) => `is not available in API version ${version.label} (from ${label})`;
  const revoke = z.strictObject({
    operation: z.literal('revokeAsset'),
    note: version.atLeast('2026-01')
      ? z.string().max(MAX_REVOKE_NOTE).optional()
      : z.never({ error: since('2026-01') }).optional(),
  });
  const setMetadata = z.strictObject({ operation: z.literal('setMetadata'), metadata: metadataObject });
  const setTranslations = z.strictObject({ operation: z.literal('setTranslations'), translations });
  const operations = version.atLeast('2026-01')
    ? [
        revoke,
        z.strictObject({ operation: z.literal('unrevokeAsset') }),
        setMetadata,
        setTranslations,
        setMetadataProperty,
      ]
    : [revoke, setMetadata, setTranslations, setMetadataProperty];
  return z.strictObject({
    version: entryVersion
      .optional()
      .describe("the entry's version as last read: another is a 409 Conflict and nothing changes"),
    preserveUpdatedAt: version.atLeast('2026-03')
      ? z.boolean().default(false)
      : z
          .never({ error: since('2026-03') })
          .optional()
          .transform(() => false),
    patches: z
      .array(z.discriminatedUnion('operation', operations as unknown as [typeof revoke, typeof setMetadata]))
      .min(1)
      .max(100),
  });
});

export type PatchMediaBody = { preserveUpdatedAt: boolean; version?: number; patches: MediaPatch[] };

/**
 * The body of POST import/mediaLibrary as the description shows it: importMediaBody with each entry's schema
 * (the route parses the entries one by one with importMediaEntry, so each gets its own result).
 */
export const importMediaBodyDescription = importMediaBody.extend({
  mediaLibraryEntries: z.array(importMediaEntry).min(1).max(MAX_MEDIA_ENTRIES),
});

const dateTime = z.iso.datetime();

/** api-spec §2.7: no properties beyond these on an asset (toApiEntry in src/domain/media.ts). */
const assetAnswer = z
  .strictObject({
    key: z.string().describe('the object key; serve-image/{key} serves the bytes'),
    filename: z.string(),
    mimeType: z.string().describe('read from the bytes'),
    size: z.number().int().min(0),
    width: z
      .number()
      .int()
      .optional()
      .describe("images whose dimensions were readable; videos' first video track, from the header"),
    height: z.number().int().optional(),
    duration: z
      .number()
      .optional()
      .describe(
        'seconds (to the millisecond), read from the header of an MP4/MOV or Matroska/WebM video (or sound); ' +
          'absent when it says none',
      ),
    url: z.url().describe('the serve-image URL of the key'),
  })
  .meta({ id: 'MediaAsset' });

/** api-spec §2.7: a media library entry, and nothing more (no revoked flag, no system name). */
export const mediaEntryAnswer = z
  .strictObject({
    id: z.string().regex(MEDIA_ID_PATTERN),
    mediaType: z.enum(MEDIA_TYPES),
    createdAt: dateTime,
    updatedAt: dateTime,
    version: z.number().int(),
    metadata: metadataObject.describe('free-form'),
    asset: assetAnswer.optional(),
    translations: z.array(
      z.strictObject({
        locale: translation.shape.locale,
        metadata: metadataObject,
        asset: assetAnswer.optional(),
      }),
    ),
  })
  .meta({ id: 'MediaEntry' });

/** GET mediaLibrary: the entries asked for; `{results}` from 2026-01. */
export const mediaListAnswer = listAnswer(mediaEntryAnswer);

/** One result of POST import/mediaLibrary (supplement §9), in request order. */
export const mediaImportResultAnswer = z
  .union([
    z.strictObject({
      ok: z.literal(true),
      status: z.literal(200),
      id: z.string().regex(MEDIA_ID_PATTERN),
      record: mediaEntryAnswer,
    }),
    z.strictObject({
      ok: z.literal(false),
      status: z
        .union([z.literal(400), z.literal(409)])
        .describe('400 ValidationError, 409 UniqueIdViolation'),
      error: z.enum(['ValidationError', 'UniqueIdViolation']),
      error_details: z.looseObject({ name: z.string() }).describe('as the envelope of a 400 or 409 says it'),
    }),
  ])
  .meta({ id: 'MediaImportResult' });

/** POST import/mediaLibrary: one result per entry; `{results}` from 2026-01. */
export const mediaImportAnswer = listAnswer(mediaImportResultAnswer);

/** POST mediaLibrary/uploads (201): the upload, for import/mediaLibrary to name as asset.uploadId. */
export const mediaUploadAnswer = z.strictObject({
  uploadId: z.uuid(),
  filename: z.string(),
  mimeType: z.string().describe('read from the bytes'),
  size: z.number().int().min(0),
  width: z
    .number()
    .int()
    .optional()
    .describe("a readable image's, or a video's first video track's (MP4/MOV, Matroska/WebM header)"),
  height: z.number().int().optional(),
  duration: z
    .number()
    .optional()
    .describe("a video's (or sound's) seconds, from its MP4/MOV or Matroska/WebM header"),
  expiresAt: dateTime.describe('import/mediaLibrary must name it before then'),
});

/** mediaLibrary/{id}/incomingDocumentReferences: published documents using the entry, by document id. */
export const mediaIncomingDocumentReferenceAnswer = z
  .strictObject({
    id: z.number().int().describe('the referring document'),
    references: z.array(
      z.strictObject({
        componentId: z.string().optional(),
        componentName: z.string().optional(),
        directiveName: z.string().optional(),
        id: z.string().describe('the media entry'),
        location: z.enum(['image-directive', 'metadata', 'include-directive']),
        propertyName: z.string().optional(),
        serviceName: z.string().optional(),
        type: z.enum(MEDIA_TYPES).describe("the entry's mediaType, as the vendor answers it"),
      }),
    ),
  })
  .meta({ id: 'MediaIncomingDocumentReference' });

/** mediaLibrary/{id}/incomingMediaReferences: media entries whose metadata refers to the entry. */
export const mediaIncomingMediaReferenceAnswer = z
  .strictObject({
    id: z.string().describe('the referring media entry'),
    references: z.array(
      z.strictObject({
        id: z.string().describe('the media entry referred to'),
        location: z.literal('metadata'),
        propertyName: z.string(),
        type: z.enum(MEDIA_TYPES).describe("the referred entry's mediaType, as the vendor answers it"),
      }),
    ),
  })
  .meta({ id: 'MediaIncomingMediaReference' });

const mediaCursor = 'signs the id of the last item';

export const mediaIncomingDocumentReferencesAnswer = listAnswer(
  mediaIncomingDocumentReferenceAnswer,
  pagedExtra(mediaCursor),
);
export const mediaIncomingMediaReferencesAnswer = listAnswer(
  mediaIncomingMediaReferenceAnswer,
  pagedExtra(mediaCursor),
);
