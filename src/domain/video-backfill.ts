import type { MediaType, StoredAsset, Translation } from './media';
import type { VideoFacts } from './video-header';

/**
 * Which stored assets `broadsheet media backfill-video` reads, and what it writes back: the duration, width and
 * height an import reads from a video's header today (src/domain/video-header.ts), for the assets stored before
 * it did. Pure: no I/O. The SQL that finds the same assets is VIDEO_FACTS_WANTED in src/db/queries/media.ts.
 */

/** Stored types whose header may give a duration: a `file` entry of one of these is read too. */
const TIMED_TYPE = /^(video|audio)\//;

/**
 * Whether an entry's asset (or one of its translations' assets) still lacks what its header may say: it has
 * no duration, and it is a video entry's or stored as a video or a sound.
 */
export function wantsVideoFacts(mediaType: MediaType, asset: StoredAsset | null | undefined): boolean {
  if (!asset || asset.duration !== undefined) return false;
  return mediaType === 'video' || TIMED_TYPE.test(asset.mimeType);
}

/** The asset with what its header said: the header's facts win (the same parser reads them at import). */
export function withVideoFacts(asset: StoredAsset, facts: VideoFacts): StoredAsset {
  return {
    ...asset,
    ...(facts.duration === undefined ? {} : { duration: facts.duration }),
    ...(facts.width === undefined || facts.height === undefined
      ? {}
      : { width: facts.width, height: facts.height }),
  };
}

/** Whether `after` says anything `before` did not (a re-read of a header that gives no duration does not). */
export function assetChanged(before: StoredAsset, after: StoredAsset): boolean {
  return before.duration !== after.duration || before.width !== after.width || before.height !== after.height;
}

/** One asset of an entry the backfill reads: the entry's own (`locale` undefined) or a translation's. */
export interface WantedAsset {
  locale: string | undefined;
  asset: StoredAsset;
}

/** The assets of an entry the backfill reads, its own first, then its translations' in their order. */
export function wantedAssets(entry: {
  mediaType: MediaType;
  asset: StoredAsset | null;
  translations: readonly Translation[];
}): WantedAsset[] {
  return [
    ...(wantsVideoFacts(entry.mediaType, entry.asset) ? [{ locale: undefined, asset: entry.asset! }] : []),
    ...entry.translations
      .filter((translation) => wantsVideoFacts(entry.mediaType, translation.asset))
      .map((translation) => ({ locale: translation.locale, asset: translation.asset! })),
  ];
}

/**
 * The entry's asset and translations with the facts read, by asset key (an asset whose read gave nothing is
 * as it was); `changed` when any asset says more than it did.
 */
export function entryWithVideoFacts(
  entry: { asset: StoredAsset | null; translations: readonly Translation[] },
  factsByKey: ReadonlyMap<string, VideoFacts>,
): { asset: StoredAsset | null; translations: Translation[]; changed: boolean } {
  let changed = false;
  const fill = (asset: StoredAsset): StoredAsset => {
    const facts = factsByKey.get(asset.key);
    if (facts === undefined) return asset;
    const filled = withVideoFacts(asset, facts);
    if (!assetChanged(asset, filled)) return asset;
    changed = true;
    return filled;
  };
  const asset = entry.asset ? fill(entry.asset) : entry.asset;
  const translations = entry.translations.map((translation) =>
    translation.asset ? { ...translation, asset: fill(translation.asset) } : translation,
  );
  return { asset, translations, changed };
}
