import { ApiVersion } from '../../src/domain/api-versions';
import { AppError } from '../../src/domain/errors';
import {
  applyMediaPatches,
  assertMediaVersion,
  assetAsShownProblems,
  changesNothing,
  isImageType,
  mediaReferences,
  newObjectKey,
  safeFilename,
  serveImagePath,
  toApiEntry,
  storedFileType,
  uploadTypeProblem,
  type MediaEntryRow,
  type MediaPatch,
  type PatchableState,
} from '../../src/domain/media';
import { parseOrThrow } from '../../src/domain/validation';
import {
  importMediaEntry,
  mediaListQuery,
  patchMediaBody,
} from '../../src/http/routes/media-library/media-library.schema';

const fresh: PatchableState = {
  revoked: false,
  revokeNote: null,
  metadata: { title: 'A' },
  translations: [],
};
const v2026 = { conflictOnRevokeRevoked: true };
const v2025 = { conflictOnRevokeRevoked: false };

function errorOf(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe('applyMediaPatches', () => {
  it('when an entry is revoked with a note, then it is revoked and keeps the note', () => {
    expect(applyMediaPatches(fresh, [{ operation: 'revokeAsset', note: 'rights expired' }], v2026)).toEqual({
      ...fresh,
      revoked: true,
      revokeNote: 'rights expired',
    });
  });

  it('when a revoked entry is revoked again from 2026-01, then 409 ConflictError names the patch', () => {
    const revoked = { ...fresh, revoked: true, revokeNote: 'first' };
    const error = errorOf(() =>
      applyMediaPatches(revoked, [{ operation: 'revokeAsset', note: 'second' }], v2026),
    );
    expect(error.status).toBe(409);
    expect(error.details).toEqual({
      name: 'ConflictError',
      message: 'The asset of this media library entry is already revoked',
      patchIndex: 0,
    });
  });

  it('when a revoked entry is revoked again before 2026-01, then nothing changes and the note is kept', () => {
    const revoked = { ...fresh, revoked: true, revokeNote: 'first' };
    expect(applyMediaPatches(revoked, [{ operation: 'revokeAsset' }], v2025)).toEqual(revoked);
  });

  it('when an entry is unrevoked, then it is not revoked and its note is gone', () => {
    const revoked = { ...fresh, revoked: true, revokeNote: 'first' };
    expect(applyMediaPatches(revoked, [{ operation: 'unrevokeAsset' }], v2026)).toEqual(fresh);
  });

  it('when an entry that is not revoked is unrevoked, then 409 ConflictError names the patch', () => {
    const error = errorOf(() =>
      applyMediaPatches(
        fresh,
        [{ operation: 'setMetadata', metadata: {} }, { operation: 'unrevokeAsset' }],
        v2026,
      ),
    );
    expect(error.status).toBe(409);
    expect(error.details).toMatchObject({ name: 'ConflictError', patchIndex: 1 });
  });

  it('when patches follow each other, then each sees the state the previous one left', () => {
    const next = applyMediaPatches(
      fresh,
      [
        { operation: 'revokeAsset', note: 'n' },
        { operation: 'unrevokeAsset' },
        { operation: 'setMetadata', metadata: { title: 'B' } },
        { operation: 'setTranslations', translations: [{ locale: 'de', metadata: { title: 'Be' } }] },
      ],
      v2026,
    );
    expect(next).toEqual({
      revoked: false,
      revokeNote: null,
      metadata: { title: 'B' },
      translations: [{ locale: 'de', metadata: { title: 'Be' } }],
    });
  });
});

describe('changesNothing', () => {
  const image = { key: '1/2026/11/28/a.png', filename: 'a.png', mimeType: 'image/png', size: 3, width: 1 };
  const stored: PatchableState = {
    revoked: true,
    revokeNote: 'rights expired',
    metadata: { title: 'A', focus: { x: 1, y: 2 }, tags: ['a', 'b'] },
    translations: [
      { locale: 'de', metadata: { title: 'Ah' }, asset: image },
      { locale: 'fr', metadata: {} },
    ],
  };
  const patched = (patches: MediaPatch[], options = v2025) => applyMediaPatches(stored, patches, options);

  it('when a batch leaves the entry as stored, then it changes nothing, whatever the order of keys', () => {
    expect(changesNothing(stored, patched([{ operation: 'revokeAsset' }]))).toBe(true);
    expect(changesNothing(stored, patched([{ operation: 'revokeAsset', note: 'other' }]))).toBe(true);
    expect(
      changesNothing(
        stored,
        patched([
          { operation: 'setMetadata', metadata: { tags: ['a', 'b'], focus: { y: 2, x: 1 }, title: 'A' } },
          {
            operation: 'setTranslations',
            translations: [
              { locale: 'de', metadata: { title: 'Ah' }, asset: { key: image.key } },
              { locale: 'fr', metadata: {} },
            ],
          },
          { operation: 'setMetadataProperty', propertyName: 'title', value: 'A' },
          { operation: 'setMetadataProperty', propertyName: 'absent' },
        ]),
      ),
    ).toBe(true);
    expect(
      changesNothing(
        stored,
        patched(
          [{ operation: 'unrevokeAsset' }, { operation: 'revokeAsset', note: 'rights expired' }],
          v2026,
        ),
      ),
    ).toBe(true);
  });

  it('when a batch changes anything the entry shows or keeps, then it changes something', () => {
    const changes: MediaPatch[][] = [
      [{ operation: 'unrevokeAsset' }],
      [{ operation: 'unrevokeAsset' }, { operation: 'revokeAsset', note: 'another' }],
      [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'B' }],
      // A null is shown by GET, where a missing property is not.
      [
        { operation: 'setMetadataProperty', propertyName: 'title', value: 'A' },
        { operation: 'setMetadata', metadata: { ...stored.metadata, credit: null } },
      ],
      [{ operation: 'setMetadata', metadata: { ...stored.metadata, tags: ['b', 'a'] } }],
      [{ operation: 'setMetadata', metadata: { ...stored.metadata, focus: { x: 1, y: '2' } } }],
      [{ operation: 'setTranslations', translations: [{ locale: 'de', metadata: { title: 'Ah' } }] }],
      [
        {
          operation: 'setTranslations',
          translations: [
            { locale: 'fr', metadata: {} },
            { locale: 'de', metadata: { title: 'Ah' } },
          ],
        },
      ],
    ];
    for (const patches of changes)
      expect([patches, changesNothing(stored, patched(patches, v2026))]).toEqual([patches, false]);
  });
});

describe('setMetadataProperty', () => {
  it('when a property is set, then only it changes; null or no value removes it', () => {
    const state = { ...fresh, metadata: { title: 'A', credit: 'AP', caption: 'c' } };
    const next = applyMediaPatches(
      state,
      [
        { operation: 'setMetadataProperty', propertyName: 'title', value: 'B' },
        { operation: 'setMetadataProperty', propertyName: 'credit', value: null },
        { operation: 'setMetadataProperty', propertyName: 'caption' },
        { operation: 'setMetadataProperty', propertyName: 'focus', value: { x: 1 } },
      ],
      v2026,
    );
    expect(next.metadata).toEqual({ title: 'B', focus: { x: 1 } });
    expect(state.metadata).toEqual({ title: 'A', credit: 'AP', caption: 'c' });
  });
});

describe('assertMediaVersion', () => {
  it('when no version is sent or it is the current one, then nothing; another is a 409 Conflict naming both', () => {
    expect(() => assertMediaVersion(undefined, 3)).not.toThrow();
    expect(() => assertMediaVersion(3, 3)).not.toThrow();
    const error = errorOf(() => assertMediaVersion(2, 3));
    expect({ status: error.status, details: error.details }).toEqual({
      status: 409,
      details: {
        name: 'Conflict',
        message: 'The media library entry you tried to update is outdated',
        expectedVersion: 2,
        currentVersion: 3,
      },
    });
  });
});

describe('setTranslations', () => {
  it("when translations are set, then a kept locale keeps its image and a dropped one's goes", () => {
    const asset = { key: 'k/de.png', filename: 'de.png', mimeType: 'image/png', size: 1 };
    const state = {
      ...fresh,
      translations: [
        { locale: 'de', metadata: {}, asset },
        { locale: 'fr', metadata: {}, asset: { ...asset, key: 'k/fr.png' } },
      ],
    };
    const next = applyMediaPatches(
      state,
      [{ operation: 'setTranslations', translations: [{ locale: 'de', metadata: { title: 'Neu' } }] }],
      v2026,
    );
    expect(next.translations).toEqual([{ locale: 'de', metadata: { title: 'Neu' }, asset }]);
  });

  const stored = {
    key: '7/2026/11/27/a b.png',
    filename: 'de.png',
    mimeType: 'image/png',
    size: 9,
    width: 4,
    height: 3,
  };
  const shown = { ...stored, url: `https://cms.example${serveImagePath('2026-03', stored.key)}` };

  it('when the asset GET showed comes back, then the stored image stays, whatever version or base its url has', () => {
    const state = { ...fresh, translations: [{ locale: 'de', metadata: {}, asset: stored }] };
    for (const url of [shown.url, `http://127.0.0.1:3000/proxy${serveImagePath('v1', stored.key)}`]) {
      const next = applyMediaPatches(
        state,
        [
          {
            operation: 'setTranslations',
            translations: [{ locale: 'de', metadata: { t: 1 }, asset: { ...shown, url } }],
          },
        ],
        v2026,
      );
      expect(next.translations).toEqual([{ locale: 'de', metadata: { t: 1 }, asset: stored }]);
    }
    expect(assetAsShownProblems('de', { key: stored.key }, stored)).toEqual({});
  });

  it('when the asset is another image, or its locale has none, then each difference is named', () => {
    expect(assetAsShownProblems('de', { ...shown, key: 'other.png' }, stored)).toEqual({
      'asset.key': expect.stringMatching(
        /^is not the stored image's \('7\/2026\/11\/27\/a b.png'\): a patch keeps/,
      ),
    });
    expect(
      Object.keys(
        assetAsShownProblems(
          'de',
          { ...shown, size: 10, mimeType: 'image/jpeg', duration: 3, url: 'https://cms.example/x.png' },
          stored,
        ),
      ),
    ).toEqual(['asset.mimeType', 'asset.size', 'asset.duration', 'asset.url']);
    expect(assetAsShownProblems('de', { key: stored.key, url: 'not a url' }, stored)).toHaveProperty([
      'asset.url',
    ]);
    expect(assetAsShownProblems('fr', shown, undefined)).toEqual({
      asset: expect.stringMatching(
        /^names an image, but locale 'fr' has none: .*POST import\/mediaLibrary sets images/,
      ),
    });
    const error = errorOf(() =>
      applyMediaPatches(
        fresh,
        [
          { operation: 'setMetadata', metadata: {} },
          { operation: 'setTranslations', translations: [{ locale: 'de', metadata: {}, asset: shown }] },
        ],
        v2026,
      ),
    );
    expect(error.status).toBe(400);
    expect(Object.keys(error.details)).toEqual(['name', 'patches.1.translations.0.asset']);
  });
});

describe('patchMediaBody', () => {
  const v = (label: string) => ApiVersion.parse(label)!;

  it('when a note comes before 2026-01, then 400 names it', () => {
    expect(() =>
      parseOrThrow(patchMediaBody(v('2025-11')), { patches: [{ operation: 'revokeAsset', note: 'x' }] }),
    ).toThrow(
      expect.objectContaining({
        details: expect.objectContaining({
          'patches.0.note': 'is not available in API version 2025-11 (from 2026-01)',
        }),
      }) as Error,
    );
  });

  it('when unrevokeAsset comes before 2026-01, then it is an unknown operation', () => {
    const error = errorOf(() =>
      parseOrThrow(patchMediaBody(v('2025-11')), { patches: [{ operation: 'unrevokeAsset' }] }),
    );
    expect(error.details['patches.0.operation']).toBe(
      "must be one of 'revokeAsset', 'setMetadata', 'setTranslations', 'setMetadataProperty'",
    );
  });

  it('when preserveUpdatedAt comes before 2026-03, then 400 names it; from 2026-03 it is read', () => {
    const error = errorOf(() =>
      parseOrThrow(patchMediaBody(v('2026-01')), {
        preserveUpdatedAt: true,
        patches: [{ operation: 'revokeAsset' }],
      }),
    );
    expect(error.details.preserveUpdatedAt).toBe('is not available in API version 2026-01 (from 2026-03)');
    expect(
      parseOrThrow(patchMediaBody(v('2026-03')), {
        preserveUpdatedAt: true,
        patches: [{ operation: 'revokeAsset' }],
      }),
    ).toEqual({ preserveUpdatedAt: true, patches: [{ operation: 'revokeAsset' }] });
  });

  it('when version comes as a number or its digits, then it is read as the number; otherwise 400 names it', () => {
    const patches = [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'x' }];
    for (const version of [4, '4']) {
      expect(parseOrThrow(patchMediaBody(v('2025-03')), { version, patches })).toEqual({
        version: 4,
        preserveUpdatedAt: false,
        patches,
      });
    }
    for (const version of ['v4', -1, 1.5, '']) {
      const error = errorOf(() => parseOrThrow(patchMediaBody(v('2026-03')), { version, patches }));
      expect(error.details.version).toBe(
        "must be the entry's version: a non-negative integer (or its digits as a string)",
      );
    }
  });

  it('when a note is longer than 200 characters, then 400 names it', () => {
    const error = errorOf(() =>
      parseOrThrow(patchMediaBody(v('2026-03')), {
        patches: [{ operation: 'revokeAsset', note: 'x'.repeat(201) }],
      }),
    );
    expect(error.details['patches.0.note']).toBe('must be at most 200 characters long');
  });

  it('when setTranslations names a locale twice, then 400 names the repeat (a locale has one translation and one image)', () => {
    const error = errorOf(() =>
      parseOrThrow(patchMediaBody(v('2026-03')), {
        patches: [
          {
            operation: 'setTranslations',
            translations: [
              { locale: 'de', metadata: { t: 1 } },
              { locale: 'fr', metadata: {} },
              { locale: 'de', metadata: { t: 2 } },
            ],
          },
        ],
      }),
    );
    expect(error.details).toEqual({
      name: 'ValidationError',
      'patches.0.translations.2.locale': "repeats 'de' of translations.0: one translation per locale",
    });
  });
});

describe('importMediaEntry', () => {
  it('when its translations name a locale twice, then 400 names the repeat', () => {
    const error = errorOf(() =>
      parseOrThrow(importMediaEntry, {
        mediaType: 'image',
        asset: { url: 'https://example.com/a.png' },
        translations: [
          { locale: 'de', metadata: {}, asset: { url: 'https://example.com/de-1.png' } },
          { locale: 'de', metadata: {}, asset: { url: 'https://example.com/de-2.png' } },
        ],
      }),
    );
    expect(error.details).toEqual({
      name: 'ValidationError',
      'translations.1.locale': "repeats 'de' of translations.0: one translation per locale",
    });
  });
});

describe('mediaListQuery', () => {
  it('when ids is a comma list, a bracket array or a keyed object, then the ids come out in order', () => {
    expect(parseOrThrow(mediaListQuery, { ids: 'a,b-2' })).toEqual({ ids: ['a', 'b-2'] });
    expect(parseOrThrow(mediaListQuery, { ids: ['a', 'b'] })).toEqual({ ids: ['a', 'b'] });
    expect(parseOrThrow(mediaListQuery, { ids: { '21': 'z', '3': 'c' } })).toEqual({ ids: ['c', 'z'] });
  });

  it('when an id does not fit the pattern or the list is malformed, then 400 names ids', () => {
    expect(errorOf(() => parseOrThrow(mediaListQuery, { ids: 'a,../b' })).details.ids).toBe(
      "'../b' must be a media library id: 1 to 32 letters, digits or hyphens",
    );
    expect(errorOf(() => parseOrThrow(mediaListQuery, { ids: 'a,,b' })).details.ids).toBe(
      'must be a comma separated list of media ids without empty items',
    );
    expect(errorOf(() => parseOrThrow(mediaListQuery, { ids: { x: 'a' } })).details.ids).toBe(
      'must be a comma separated list of media ids, or one item per repeat: x=a&x=b, x[]=a&x[]=b or x[0]=a&x[1]=b',
    );
  });

  it('when externalId comes without systemName, or nothing is asked, then 400 says what is missing', () => {
    expect(errorOf(() => parseOrThrow(mediaListQuery, { externalId: 'x' })).details).toMatchObject({
      systemName: 'is required with externalId',
    });
    expect(errorOf(() => parseOrThrow(mediaListQuery, {})).details).toMatchObject({
      ids: 'is required (or externalId with systemName)',
    });
  });
});

describe('a video asset', () => {
  const video = {
    key: '7/2026/11/27/clip.mp4',
    filename: 'clip.mp4',
    mimeType: 'video/mp4',
    size: 5000,
    width: 640,
    height: 360,
    duration: 12.075,
  };

  it('when an entry has a video asset, then the API shows its duration, width and height', () => {
    const entry = toApiEntry(
      {
        id: 'clip',
        mediaType: 'video',
        systemName: null,
        externalId: null,
        metadata: {},
        asset: video,
        translations: [],
        version: 1,
        revoked: false,
        revokeNote: null,
        invalid: false,
        createdAt: new Date(0),
        updatedAt: new Date(0),
      },
      'https://cms.example',
      '2026-03',
    );
    expect(entry.asset).toEqual({
      ...video,
      url: `https://cms.example${serveImagePath('2026-03', video.key)}`,
    });
  });

  it("when a translation's video comes back with its duration, then it is the same asset; another duration is named", () => {
    expect(assetAsShownProblems('de', { ...video }, video)).toEqual({});
    expect(Object.keys(assetAsShownProblems('de', { ...video, duration: 12 }, video))).toEqual([
      'asset.duration',
    ]);
  });

  it('when a type is one the image probe gives, then it is an image; a video with a width and a height is not', () => {
    expect(isImageType('image/png')).toBe(true);
    expect(isImageType('image/avif')).toBe(true);
    expect(isImageType('video/mp4')).toBe(false);
    expect(isImageType('application/octet-stream')).toBe(false);
  });
});

describe('media entries', () => {
  const row: MediaEntryRow = {
    id: 'img-1',
    mediaType: 'image',
    systemName: 'dam',
    externalId: 'x1',
    metadata: { title: 'A' },
    asset: {
      key: '7/2026/01/02/u u.png',
      filename: 'a.png',
      mimeType: 'image/png',
      size: 10,
      width: 2,
      height: 3,
    },
    translations: [],
    version: 2,
    revoked: true,
    revokeNote: 'n',
    invalid: false,
    createdAt: new Date('2026-01-02T03:04:05Z'),
    updatedAt: new Date('2026-01-03T03:04:05Z'),
  };

  it('when an entry is shown, then it has exactly the fields of api-spec §2.7 and a serve-image url', () => {
    expect(toApiEntry(row, 'https://api.example', '2026-03')).toEqual({
      id: 'img-1',
      mediaType: 'image',
      createdAt: '2026-01-02T03:04:05.000Z',
      updatedAt: '2026-01-03T03:04:05.000Z',
      version: 2,
      metadata: { title: 'A' },
      asset: {
        key: '7/2026/01/02/u u.png',
        filename: 'a.png',
        mimeType: 'image/png',
        size: 10,
        width: 2,
        height: 3,
        url: 'https://api.example/api/2026-03/mediaLibrary/serve-image/7/2026/01/02/u%20u.png',
      },
      translations: [],
    });
    expect(serveImagePath('v1', 'a/b')).toBe('/api/v1/mediaLibrary/serve-image/a/b');
  });

  it('when metadata refers to documents and media, then each target is a metadata reference once', () => {
    expect(
      mediaReferences(
        {
          photographer: { $ref: 'document', reference: { id: '12' } },
          related: { mediaId: 'img-2' },
          again: { mediaId: 'img-2' },
        },
        [
          {
            locale: 'de',
            metadata: {
              related: { mediaId: 'img-2' },
              other: { $ref: 'mediaLibrary', reference: { id: 'img-3' } },
            },
          },
        ],
      ),
    ).toEqual([
      { targetType: 'document', targetId: '12', location: 'metadata', propertyName: 'photographer' },
      { targetType: 'media', targetId: 'img-2', location: 'metadata', propertyName: 'related' },
      { targetType: 'media', targetId: 'img-2', location: 'metadata', propertyName: 'again' },
      { targetType: 'media', targetId: 'img-3', location: 'metadata', propertyName: 'other' },
    ]);
  });

  it('when metadata references a document by number or string id, then a row each; a preloaded value’s own references are not the entry’s', () => {
    expect(
      mediaReferences(
        {
          zeta: { $ref: 'document', reference: { id: 7 } },
          alpha: { $ref: 'documents', references: [{ id: '7' }, { id: '8' }] },
          title: '7',
          id: 7,
          related: {
            $ref: 'document',
            reference: { id: '9' },
            value: { metadata: { x: { $ref: 'document', reference: { id: '7' } } } },
          },
        },
        [],
      ),
    ).toEqual([
      { targetType: 'document', targetId: '7', location: 'metadata', propertyName: 'zeta' },
      { targetType: 'document', targetId: '7', location: 'metadata', propertyName: 'alpha' },
      { targetType: 'document', targetId: '8', location: 'metadata', propertyName: 'alpha' },
      { targetType: 'document', targetId: '9', location: 'metadata', propertyName: 'related' },
    ]);
  });

  it('when a file name comes from a client, then only its last segment of safe characters is kept', () => {
    expect(safeFilename('../../etc/passwd', 'x')).toBe('passwd');
    expect(safeFilename('C:\\photos\\Sommer Bild.JPG', 'x')).toBe('Sommer-Bild.JPG');
    expect(safeFilename('..', 'fallback.png')).toBe('fallback.png');
    expect(safeFilename(undefined, 'fallback.png')).toBe('fallback.png');
  });

  it('when a file name has accented letters, then they keep their base letter rather than becoming a dash', () => {
    expect(safeFilename('Bäckerei Zürich – Café.jpg', 'x')).toBe('Backerei-Zurich-Cafe.jpg');
    expect(safeFilename('ﬁnal Ⅻ.png', 'x')).toBe('final-XII.png');
  });

  it('when a file name has no safe character before its extension, then it takes the fallback rather than becoming the extension', () => {
    expect(safeFilename('✓.png', 'upload.png')).toBe('upload.png');
    expect(safeFilename('日本.jpg', 'upload.jpg')).toBe('upload.jpg');
    expect(safeFilename('photos/—.webp', 'asset')).toBe('asset');
    expect(safeFilename('.png', 'upload.png')).toBe('upload.png');
    expect(safeFilename('✓.tar.gz', 'asset')).toBe('asset');
    // A base with a safe character keeps it, whatever else goes.
    expect(safeFilename('✓ done.png', 'x')).toBe('done.png');
    expect(safeFilename('_.png', 'x')).toBe('_.png');
    expect(safeFilename('png', 'x')).toBe('png');
  });

  it('when a key is made, then it is the project, the date, a random part and the extension', () => {
    expect(newObjectKey(7, 'abc', 'png', new Date('2026-03-04T23:59:00Z'))).toBe('7/2026/03/04/abc.png');
  });
});

describe('uploadTypeProblem', () => {
  it.each([
    'image/png',
    'image/svg+xml',
    'video/mp4',
    'audio/mpeg',
    'application/pdf',
    'application/octet-stream',
  ])('when the body is sent as %s, then it is accepted', (type) => {
    expect(uploadTypeProblem(type, undefined)).toBeUndefined();
  });

  it.each([
    '',
    'text/plain',
    'application/json',
    'application/merge-patch+json',
    'application/x-www-form-urlencoded',
    'multipart/form-data',
    '*/*',
    'garbage',
  ])('when the body is sent as %p, then 415 says what to send', (type) => {
    expect(uploadTypeProblem(type, undefined)).toMatch(
      /^Send the file as the request body with its own Content-Type/,
    );
  });

  it('when the body is encoded, then it is refused: the bytes are stored as sent', () => {
    expect(uploadTypeProblem('image/png', 'gzip')).toBe(
      "Send the file's bytes as they are: Content-Encoding gzip is not accepted for uploads",
    );
    expect(uploadTypeProblem('image/png', 'identity')).toBeUndefined();
  });

  it('when the Content-Type or Content-Encoding sent is long, then the message repeats it cut, not whole', () => {
    const long = `x-${'a'.repeat(9_998)}`;
    expect(uploadTypeProblem(`text/${long}`, undefined)).toContain(
      `(got text/x-${'a'.repeat(93)}… (10005 characters))`,
    );
    expect(uploadTypeProblem('image/png', long)).toBe(
      `Send the file's bytes as they are: Content-Encoding ${long.slice(0, 100)}… (10000 characters) is not accepted for uploads`,
    );
  });
});

describe('storedFileType', () => {
  it('when a file names its type, then it is kept; markup and scripts are kept as downloads only', () => {
    expect(storedFileType('application/pdf; charset=x')).toBe('application/pdf');
    expect(storedFileType('video/mp4')).toBe('video/mp4');
    expect(storedFileType('text/html')).toBe('application/octet-stream');
    expect(storedFileType('application/xhtml+xml')).toBe('application/octet-stream');
    expect(storedFileType('application/javascript')).toBe('application/octet-stream');
    expect(storedFileType(undefined)).toBe('application/octet-stream');
  });
});
