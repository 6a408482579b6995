import { z } from 'zod';

/**
 * The plan of `broadsheet export` and its resumable state (pure: no I/O). The documents' ids between the
 * project's lowest and highest published id are cut into disjoint ranges, one per puller; each range is walked
 * in chunks of CHUNK_IDS ids, one request each, so a page of the API's maximum size always holds a whole chunk
 * and no offset is ever needed. The state records, per range, where its next chunk starts, and how many bytes
 * of the output hold the chunks done: a rerun truncates the output to that length and goes on from there, so
 * every document ends up in the file exactly once however the previous run stopped.
 */

/** Ids per request: the API's maximum page (latestPublications `limit=100`). */
export const CHUNK_IDS = 100;

export interface ExportRange {
  /** First id of the range. */
  from: number;
  /** One past its last id. */
  end: number;
  /** Where its next chunk starts: `end` when the range is done. */
  next: number;
}

const rangeSchema = z
  .object({ from: z.int().nonnegative(), end: z.int().nonnegative(), next: z.int().nonnegative() })
  .refine((range) => range.from <= range.next && range.next <= range.end, {
    message: 'next must lie within [from, end]',
  });

export const exportStateSchema = z.object({
  version: z.literal(1),
  /**
   * The server's URL the export reads from, its credentials `[REDACTED]` (state files written before kept them);
   * a resume must read from the same one.
   */
  url: z.string(),
  /** `--since`, as an ISO date, or null. */
  since: z.string().nullable(),
  /**
   * The project exported (the token's): a resume must read the same one. Absent in state files written before
   * it was recorded.
   */
  projectId: z.int().positive().optional(),
  ranges: z.array(rangeSchema).min(1),
  /** Bytes of the output that hold the chunks done; anything after them is dropped on resume. */
  bytes: z.int().nonnegative(),
  /** Documents in those bytes. */
  documents: z.int().nonnegative(),
});

export type ExportState = z.infer<typeof exportStateSchema>;

/**
 * `parts` disjoint ranges covering the ids [first, last], each a whole number of chunks (the last one may
 * be shorter); fewer when there are fewer chunks than parts. An empty list when last < first.
 */
export function planRanges(first: number, last: number, parts: number): ExportRange[] {
  if (last < first) return [];
  const chunks = Math.ceil((last + 1 - first) / CHUNK_IDS);
  const count = Math.max(1, Math.min(parts, chunks));
  const ranges: ExportRange[] = [];
  let from = first;
  for (let part = 0; part < count; part++) {
    // Spread the chunks evenly: the first (chunks % count) ranges get one more.
    const size = Math.floor(chunks / count) + (part < chunks % count ? 1 : 0);
    const end = Math.min(last + 1, from + size * CHUNK_IDS);
    ranges.push({ from, end, next: from });
    from = end;
  }
  return ranges;
}

/** The ids of a range's next chunk, [from, to), or undefined when the range is done. */
export function nextChunk(range: ExportRange): { from: number; to: number } | undefined {
  if (range.next >= range.end) return undefined;
  return { from: range.next, to: Math.min(range.end, range.next + CHUNK_IDS) };
}

/** Chunks in all ranges, and how many of them are done: the progress of an export. */
export function chunkProgress(ranges: readonly ExportRange[]): { total: number; done: number } {
  let total = 0;
  let done = 0;
  for (const range of ranges) {
    total += Math.ceil((range.end - range.from) / CHUNK_IDS);
    done += Math.ceil((range.next - range.from) / CHUNK_IDS);
  }
  return { total, done };
}

/** The state file's text, parsed and checked; a message naming the problem otherwise. */
export function parseExportState(
  text: string,
): { ok: true; state: ExportState } | { ok: false; message: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, message: 'is not JSON' };
  }
  const parsed = exportStateSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, message: `${issue.path.join('.') || 'state'}: ${issue.message}` };
  }
  return { ok: true, state: parsed.data };
}
