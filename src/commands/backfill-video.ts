import type { Queryable } from '../db/pool';
import { mediaQueries, type VideoFactsCandidate } from '../db/queries/media';
import { entryWithVideoFacts, wantedAssets } from '../domain/video-backfill';
import type { VideoFacts } from '../domain/video-header';
import { probeStoredVideo } from '../media/video-probe';
import type { ObjectStore } from '../storage/object-store';

/** An asset the backfill could not read, and why: it stays without a duration. */
export interface SkippedAsset {
  projectId: number;
  id: string;
  /** The translation's locale, for a translation's own asset. */
  locale?: string;
  key: string;
  reason: string;
}

export interface BackfillReport {
  /** Entries read (each has at least one asset without a duration). */
  examined: number;
  /** Entries written with what their headers said (or, with dryRun, that would be). */
  filled: number;
  /**
   * Entries whose headers were read and said nothing new: a header with no duration read again, or a file
   * entry's sound or video in a format no header of which is read (it is not `skipped`: nothing is wrong).
   */
  unchanged: number;
  /** Entries changed by an import or a patch, or locked by one, while they were read: a re-run takes them. */
  left: number;
  /** Assets that could not be read: no object, a failed read, or a header that gives nothing. */
  skipped: SkippedAsset[];
  /** Whether `signal` stopped it before the end (what was written stays). */
  stopped: boolean;
}

/**
 * `broadsheet media backfill-video`: fills the duration, width and height of media assets stored before
 * imports read them from video headers (src/domain/video-header.ts, the same parser), reading a few header
 * bytes of each through the media store. Entries are read a page at a time in primary key order, without a
 * lock; each page's headers are read with no transaction open, then its entries are written in one statement
 * that skips a row another transaction holds and one changed since it was read (`left`, for a re-run). What
 * is written stays written, so a run stopped (Ctrl-C, a failure) is resumed by running it again: it only
 * reads what still has no duration. An unreadable asset is reported and skipped; the store being unavailable
 * ends the run (StoreUnavailableError), as every read after it would fail.
 */
export async function backfillVideoFacts(
  deps: { db: Queryable; objects: ObjectStore },
  options: {
    projectId?: number | undefined;
    batchSize: number;
    dryRun?: boolean;
    signal?: AbortSignal;
    onStart?: (total: number) => void;
    onProgress?: (done: number, total: number) => void;
  },
): Promise<BackfillReport> {
  const queries = mediaQueries(deps.db);
  const report: BackfillReport = {
    examined: 0,
    filled: 0,
    unchanged: 0,
    left: 0,
    skipped: [],
    stopped: false,
  };
  const total = await queries.countVideoFactsCandidates(options.projectId);
  options.onStart?.(total);
  let after: { projectId: number; id: string } | undefined;
  for (;;) {
    if (options.signal?.aborted) {
      report.stopped = true;
      break;
    }
    const page = await queries.videoFactsCandidates(options.projectId, after, options.batchSize);
    if (page.length === 0) break;
    after = { projectId: page.at(-1)!.projectId, id: page.at(-1)!.id };
    const writes: {
      read: VideoFactsCandidate;
      asset: VideoFactsCandidate['asset'];
      translations: VideoFactsCandidate['translations'];
    }[] = [];
    for (const entry of page) {
      if (options.signal?.aborted) {
        report.stopped = true;
        break;
      }
      report.examined += 1;
      const factsByKey = new Map<string, VideoFacts>();
      for (const { locale, asset } of wantedAssets(entry)) {
        if (factsByKey.has(asset.key)) continue;
        const probed = await probeStoredVideo(deps.objects, asset.key);
        if (probed.ok) factsByKey.set(asset.key, probed.facts);
        // A file entry's sound or video that no header describes (an MP3, an AVI) is a file all the same, as
        // its import would have kept it: nothing to fill, nothing wrong. A video entry's is reported.
        else if (probed.unsaid && entry.mediaType !== 'video') factsByKey.set(asset.key, {});
        else {
          report.skipped.push({
            projectId: entry.projectId,
            id: entry.id,
            ...(locale === undefined ? {} : { locale }),
            key: asset.key,
            reason: probed.reason,
          });
        }
      }
      const filled = entryWithVideoFacts(entry, factsByKey);
      if (filled.changed)
        writes.push({ read: entry, asset: filled.asset, translations: filled.translations });
      else if (factsByKey.size > 0) report.unchanged += 1;
    }
    const written = options.dryRun ? writes.length : (await queries.fillVideoFacts(writes)).length;
    report.filled += written;
    report.left += writes.length - written;
    options.onProgress?.(report.examined, total);
    if (report.stopped) break;
  }
  return report;
}
