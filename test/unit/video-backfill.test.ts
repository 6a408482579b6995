import type { StoredAsset } from '../../src/domain/media';
import { entryWithVideoFacts, wantedAssets, wantsVideoFacts } from '../../src/domain/video-backfill';

const asset = (key: string, mimeType: string, extra: Partial<StoredAsset> = {}): StoredAsset => ({
  key,
  filename: key,
  mimeType,
  size: 100,
  ...extra,
});

describe('which assets the video backfill reads', () => {
  it('when an asset has no duration, then a video entry’s is read whatever its type, a file entry’s only as a video or a sound', () => {
    expect(wantsVideoFacts('video', asset('a', 'application/octet-stream'))).toBe(true);
    expect(wantsVideoFacts('file', asset('a', 'video/webm'))).toBe(true);
    expect(wantsVideoFacts('file', asset('a', 'audio/mp4'))).toBe(true);
    expect(wantsVideoFacts('file', asset('a', 'application/pdf'))).toBe(false);
    expect(wantsVideoFacts('image', asset('a', 'image/png', { width: 4, height: 3 }))).toBe(false);
  });

  it('when an asset has a duration or there is none, then it is not read', () => {
    expect(wantsVideoFacts('video', asset('a', 'video/mp4', { duration: 1.5 }))).toBe(false);
    expect(wantsVideoFacts('video', null)).toBe(false);
    expect(wantsVideoFacts('video', undefined)).toBe(false);
  });

  it('when translations have assets of their own, then those without a duration are read after the entry’s own', () => {
    const wanted = wantedAssets({
      mediaType: 'video',
      asset: asset('own', 'video/mp4'),
      translations: [
        { locale: 'de', metadata: {}, asset: asset('de', 'video/webm') },
        { locale: 'fr', metadata: {} },
        { locale: 'it', metadata: {}, asset: asset('it', 'video/mp4', { duration: 2 }) },
      ],
    });
    expect(wanted.map(({ locale, asset: { key } }) => [locale, key])).toEqual([
      [undefined, 'own'],
      ['de', 'de'],
    ]);
  });
});

describe('what the video backfill writes', () => {
  it('when headers were read, then each asset gets its own facts and the rest of the entry stays as it was', () => {
    const filled = entryWithVideoFacts(
      {
        asset: asset('own', 'video/mp4'),
        translations: [
          { locale: 'de', metadata: { title: 'x' }, asset: asset('de', 'video/webm') },
          { locale: 'fr', metadata: {} },
        ],
      },
      new Map([
        ['own', { duration: 12.075, width: 640, height: 360 }],
        ['de', { duration: 3.5 }],
      ]),
    );
    expect(filled.changed).toBe(true);
    expect(filled.asset).toEqual({ ...asset('own', 'video/mp4'), duration: 12.075, width: 640, height: 360 });
    expect(filled.translations).toEqual([
      { locale: 'de', metadata: { title: 'x' }, asset: { ...asset('de', 'video/webm'), duration: 3.5 } },
      { locale: 'fr', metadata: {} },
    ]);
  });

  it('when a header gives nothing new or was not read, then the entry is unchanged', () => {
    const own = asset('own', 'video/mp4', { width: 640, height: 360 });
    expect(
      entryWithVideoFacts({ asset: own, translations: [] }, new Map([['own', { width: 640, height: 360 }]])),
    ).toEqual({ asset: own, translations: [], changed: false });
    expect(entryWithVideoFacts({ asset: own, translations: [] }, new Map()).changed).toBe(false);
  });
});
