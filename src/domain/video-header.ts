/**
 * A video's duration and frame size, read from its container's header: ISO BMFF (mp4, mov, m4v, m4a) and
 * Matroska (mkv, webm). Only the header is read, a few small reads at the offsets the container names (an MP4
 * whose moov follows its media data is read at its end), never the media data and never the whole file. Pure:
 * the bytes come through a ByteSource, which the caller backs with a staged file.
 *
 * What the header does not say, or says in a box or element that is cut, malformed or out of its parent's
 * bounds, is left out: the facts are whole or absent, and nothing here throws.
 */

/** Random access to the bytes of a file. */
export interface ByteSource {
  /** How many bytes there are. */
  readonly size: number;
  /** Up to `length` bytes from `offset`; fewer only at the end. */
  read(offset: number, length: number): Promise<Uint8Array>;
}

export interface VideoFacts {
  /** In seconds, to the millisecond. */
  duration?: number;
  /** In pixels, of the first video track. */
  width?: number;
  height?: number;
}

/**
 * The facts a video's header gives, or undefined when the bytes are no container this reads, or say none of
 * them. The duration is a movie's or a segment's (of all its tracks); the size is its first video track's,
 * as stored (a rotation the player applies is not).
 */
export async function readVideoFacts(source: ByteSource): Promise<VideoFacts | undefined> {
  try {
    const reader = new Reader(source);
    const head = await reader.bytes(0, 12);
    const facts = startsWith(head, EBML_MAGIC)
      ? await readMatroska(reader)
      : TOP_LEVEL_BOXES.has(fourCC(head, 4))
        ? await readIsoBmff(reader)
        : {};
    return Object.keys(facts).length === 0 ? undefined : facts;
  } catch {
    // A read that failed, or a walk that went on too long (GiveUp): no facts rather than a failed upload.
    return undefined;
  }
}

/** Thrown when a file would take more steps than any real header needs. */
class GiveUp extends Error {}

/** Boxes or elements walked at most: real headers take dozens; a file of nothing but tiny boxes would not end. */
const MAX_STEPS = 20_000;
/** Reads at most, each of at most WINDOW bytes: a walk that jumps about costs a bounded amount of I/O. */
const MAX_READS = 2_000;
/** What one read fetches: the next small reads (the boxes of a header lie together) come from it. */
const WINDOW = 16 * 1024;
/** The largest width or height kept: it is stored as a Postgres integer. */
const MAX_DIMENSION = 2_147_483_647;

/** Small reads through a window, counted and bounded. */
class Reader {
  private windowStart = 0;
  private window: Uint8Array = new Uint8Array(0);
  private reads = 0;
  private steps = 0;

  constructor(private readonly source: ByteSource) {}

  get size(): number {
    return this.source.size;
  }

  /** One more box or element walked. */
  step(): void {
    this.steps += 1;
    if (this.steps > MAX_STEPS) throw new GiveUp();
  }

  /** Up to `length` bytes from `offset` (fewer at the end of the file); `length` at most WINDOW. */
  async bytes(offset: number, length: number): Promise<Uint8Array> {
    const wanted = Math.max(0, Math.min(length, this.size - offset));
    if (offset < 0 || wanted === 0) return new Uint8Array(0);
    const from = offset - this.windowStart;
    if (from >= 0 && from + wanted <= this.window.length) return this.window.subarray(from, from + wanted);
    this.reads += 1;
    if (this.reads > MAX_READS) throw new GiveUp();
    this.window = await this.source.read(offset, Math.max(wanted, WINDOW));
    this.windowStart = offset;
    return this.window.subarray(0, Math.min(wanted, this.window.length));
  }
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((byte, index) => bytes[index] === byte);
}

function fourCC(bytes: Uint8Array, at: number): string {
  if (bytes.length < at + 4) return '';
  return String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
}

/** Big-endian unsigned integer of `length` bytes (at most 8; past 2^53 it loses precision, never its size). */
function uint(bytes: Uint8Array, at: number, length: number): number {
  let value = 0;
  for (let index = 0; index < length; index += 1) value = value * 256 + bytes[at + index]!;
  return value;
}

/** Seconds to the millisecond from a duration in milliseconds; undefined unless a positive finite number. */
function seconds(milliseconds: number): number | undefined {
  if (!Number.isFinite(milliseconds) || milliseconds <= 0) return undefined;
  const rounded = Math.round(milliseconds) / 1000;
  return rounded > 0 && Number.isFinite(rounded) ? rounded : undefined;
}

function frameSize(width: number, height: number): Pick<VideoFacts, 'width' | 'height'> {
  const fits = (value: number) => Number.isInteger(value) && value > 0 && value <= MAX_DIMENSION;
  return fits(width) && fits(height) ? { width, height } : {};
}

// ---- ISO BMFF (ISO/IEC 14496-12; QuickTime's moov, mvhd and tkhd are the same boxes) ----

/** The boxes a file may begin with: anything else is not taken for an MP4 or a MOV. */
const TOP_LEVEL_BOXES = new Set(['ftyp', 'moov', 'mdat', 'free', 'skip', 'wide', 'pnot', 'styp']);

interface Box {
  type: string;
  /** Where its body begins (after its header) and where the box ends. */
  bodyStart: number;
  end: number;
}

/**
 * The boxes between `start` and `end`, in order. A size of 1 is a 64-bit size after the type, a size of 0
 * runs to `end`. The walk stops at a box that is cut or overruns `end` (nothing after it can be placed).
 */
async function* boxes(reader: Reader, start: number, end: number): AsyncGenerator<Box> {
  let offset = start;
  while (offset + 8 <= end) {
    reader.step();
    const header = await reader.bytes(offset, 16);
    if (header.length < 8) return;
    const size32 = uint(header, 0, 4);
    const type = fourCC(header, 4);
    let headerSize = 8;
    let size = size32;
    if (size32 === 1) {
      if (header.length < 16) return;
      headerSize = 16;
      size = uint(header, 8, 8);
    } else if (size32 === 0) {
      size = end - offset;
    }
    if (size < headerSize || offset + size > end) return;
    yield { type, bodyStart: offset + headerSize, end: offset + size };
    offset += size;
  }
}

/** A box's body, whole: undefined when it is cut. */
async function body(reader: Reader, box: Box, length: number): Promise<Uint8Array | undefined> {
  const wanted = Math.min(length, box.end - box.bodyStart);
  const bytes = await reader.bytes(box.bodyStart, wanted);
  return bytes.length === wanted ? bytes : undefined;
}

async function readIsoBmff(reader: Reader): Promise<VideoFacts> {
  let moov: Box | undefined;
  for await (const box of boxes(reader, 0, reader.size)) {
    if (box.type === 'moov') {
      moov = box;
      break;
    }
  }
  if (!moov) return {};
  let duration: number | undefined;
  let fragmentsDuration: number | undefined;
  let timescale = 0;
  let size: Pick<VideoFacts, 'width' | 'height'> = {};
  for await (const box of boxes(reader, moov.bodyStart, moov.end)) {
    if (box.type === 'mvhd') {
      const header = await movieHeader(reader, box);
      if (header) ({ timescale, duration } = header);
    } else if (box.type === 'mvex') {
      // A fragmented MP4's mvhd often says 0: its fragments' total is in mvex's mehd, in the same timescale.
      for await (const child of boxes(reader, box.bodyStart, box.end)) {
        if (child.type === 'mehd') fragmentsDuration = await fullBoxTime(reader, child, 4);
      }
    } else if (box.type === 'trak' && size.width === undefined) {
      size = await videoTrackSize(reader, box);
    }
  }
  const ticks = duration || fragmentsDuration;
  const total = timescale > 0 && ticks !== undefined ? seconds((ticks * 1000) / timescale) : undefined;
  return { ...(total === undefined ? {} : { duration: total }), ...size };
}

/** mvhd: version 0 has a 32-bit timescale and duration after two 32-bit times; version 1 64-bit times. */
async function movieHeader(
  reader: Reader,
  box: Box,
): Promise<{ timescale: number; duration: number | undefined } | undefined> {
  const bytes = await body(reader, box, 32);
  if (!bytes || bytes.length < 4) return undefined;
  const version = bytes[0];
  if (version !== 0 && version !== 1) return undefined;
  const timescaleAt = version === 0 ? 12 : 20;
  const width = version === 0 ? 4 : 8;
  if (bytes.length < timescaleAt + 4 + width) return undefined;
  const timescale = uint(bytes, timescaleAt, 4);
  return { timescale, duration: knownTime(bytes, timescaleAt + 4, width) };
}

/** A full box's 32- or 64-bit time (by its version) at `at` in its body. */
async function fullBoxTime(reader: Reader, box: Box, at: number): Promise<number | undefined> {
  const bytes = await body(reader, box, at + 8);
  if (!bytes || bytes.length < 1) return undefined;
  const width = bytes[0] === 1 ? 8 : bytes[0] === 0 ? 4 : 0;
  if (width === 0 || bytes.length < at + width) return undefined;
  return knownTime(bytes, at, width);
}

/** A duration field: all ones means "unknown". */
function knownTime(bytes: Uint8Array, at: number, width: number): number | undefined {
  const allOnes = bytes.subarray(at, at + width).every((byte) => byte === 0xff);
  return allOnes ? undefined : uint(bytes, at, width);
}

/** A trak's tkhd width and height (16.16 fixed point), when its mdia's handler is `vide`. */
async function videoTrackSize(reader: Reader, trak: Box): Promise<Pick<VideoFacts, 'width' | 'height'>> {
  let size: Pick<VideoFacts, 'width' | 'height'> = {};
  let video = false;
  for await (const box of boxes(reader, trak.bodyStart, trak.end)) {
    if (box.type === 'tkhd') {
      const bytes = await body(reader, box, 96);
      const version = bytes?.[0];
      const at = version === 0 ? 76 : version === 1 ? 88 : undefined;
      if (bytes && at !== undefined && bytes.length >= at + 8) {
        size = frameSize(Math.floor(uint(bytes, at, 4) / 65536), Math.floor(uint(bytes, at + 4, 4) / 65536));
      }
    } else if (box.type === 'mdia') {
      for await (const child of boxes(reader, box.bodyStart, box.end)) {
        if (child.type !== 'hdlr') continue;
        const bytes = await body(reader, child, 12);
        video = bytes !== undefined && bytes.length >= 12 && fourCC(bytes, 8) === 'vide';
        break;
      }
    }
  }
  return video ? size : {};
}

// ---- Matroska and WebM (EBML; RFC 8794, RFC 9559) ----

const EBML_MAGIC = [0x1a, 0x45, 0xdf, 0xa3] as const;
const SEGMENT = 0x18538067;
const INFO = 0x1549a966;
const TIMECODE_SCALE = 0x2ad7b1;
const DURATION = 0x4489;
const TRACKS = 0x1654ae6b;
const TRACK_ENTRY = 0xae;
const TRACK_TYPE = 0x83;
const VIDEO = 0xe0;
const PIXEL_WIDTH = 0xb0;
const PIXEL_HEIGHT = 0xba;
const CLUSTER = 0x1f43b675;
/** The Segment's children: where one begins, an unknown-size Cluster before it has ended. */
const SEGMENT_CHILDREN = new Set([
  0x114d9b74, // SeekHead
  INFO,
  TRACKS,
  CLUSTER,
  0x1c53bb6b, // Cues
  0x1941a469, // Attachments
  0x1043a770, // Chapters
  0x1254c367, // Tags
]);
/** TrackType 1 is video. */
const VIDEO_TRACK = 1;
/** TimecodeScale's default: Duration counts milliseconds. */
const DEFAULT_TIMECODE_SCALE = 1_000_000;

interface Element {
  id: number;
  dataStart: number;
  /** Undefined for an element of unknown size. */
  end: number | undefined;
}

/**
 * The element at `offset`: its ID (1 to 4 bytes, marker kept) and size (1 to 8 bytes; every value bit set is
 * "unknown"). Undefined when the header is cut or malformed.
 */
async function elementAt(reader: Reader, offset: number, limit: number): Promise<Element | undefined> {
  reader.step();
  const header = await reader.bytes(offset, Math.min(12, limit - offset));
  const idLength = vintLength(header[0]);
  if (idLength === undefined || idLength > 4 || header.length < idLength + 1) return undefined;
  const id = uint(header, 0, idLength);
  const sizeLength = vintLength(header[idLength]);
  if (sizeLength === undefined || header.length < idLength + sizeLength) return undefined;
  const first = header[idLength]! & (0xff >> sizeLength);
  let size = first;
  let allOnes = first === 0xff >> sizeLength;
  for (let index = 1; index < sizeLength; index += 1) {
    const byte = header[idLength + index]!;
    size = size * 256 + byte;
    allOnes &&= byte === 0xff;
  }
  const dataStart = offset + idLength + sizeLength;
  return { id, dataStart, end: allOnes ? undefined : dataStart + size };
}

/** How many bytes an EBML variable-length integer takes, by its first byte's leading zeros (1 to 8). */
function vintLength(first: number | undefined): number | undefined {
  if (first === undefined || first === 0) return undefined;
  return Math.clz32(first) - 23;
}

/** The elements between `start` and `end` of known size, in order; the walk stops at one cut or malformed. */
async function* elements(
  reader: Reader,
  start: number,
  end: number,
): AsyncGenerator<Element & { end: number }> {
  let offset = start;
  while (offset < end) {
    const found = await elementAt(reader, offset, end);
    if (!found || found.end === undefined || found.end > end) return;
    yield { ...found, end: found.end };
    offset = found.end;
  }
}

/** An element's data, whole (at most 8 bytes: the numbers read here). */
async function data(reader: Reader, element: Element & { end: number }): Promise<Uint8Array | undefined> {
  const length = element.end - element.dataStart;
  if (length > 8) return undefined;
  const bytes = await reader.bytes(element.dataStart, length);
  return bytes.length === length ? bytes : undefined;
}

async function readMatroska(reader: Reader): Promise<VideoFacts> {
  const header = await elementAt(reader, 0, reader.size);
  if (!header || header.end === undefined || header.end > reader.size) return {};
  const segment = await elementAt(reader, header.end, reader.size);
  if (!segment || segment.id !== SEGMENT) return {};
  // A Segment cut short (a file cut in its clusters) is read as far as it goes, as a player reads it; an
  // unknown-size one (a live recording) runs to the end of the file.
  const end = Math.min(segment.end ?? reader.size, reader.size);
  let duration: number | undefined;
  let size: Pick<VideoFacts, 'width' | 'height'> = {};
  let seenInfo = false;
  let seenTracks = false;
  let offset = segment.dataStart;
  while (offset < end && !(seenInfo && seenTracks)) {
    const child = await elementAt(reader, offset, end);
    if (!child) break;
    if (child.end === undefined) {
      // Only a Cluster may be of unknown size here: it ends where the next of the Segment's children begins.
      if (child.id !== CLUSTER) break;
      offset = await clusterEnd(reader, child.dataStart, end);
      continue;
    }
    if (child.end > end) break;
    const whole = { ...child, end: child.end };
    if (child.id === INFO && !seenInfo) {
      seenInfo = true;
      duration = await infoDuration(reader, whole);
    } else if (child.id === TRACKS && !seenTracks) {
      seenTracks = true;
      size = await tracksSize(reader, whole);
    }
    offset = child.end;
  }
  return { ...(duration === undefined ? {} : { duration }), ...size };
}

/** Where a Cluster of unknown size ends: at the first element that is one of the Segment's children. */
async function clusterEnd(reader: Reader, start: number, end: number): Promise<number> {
  let offset = start;
  while (offset < end) {
    const child = await elementAt(reader, offset, end);
    if (!child || SEGMENT_CHILDREN.has(child.id)) return offset;
    if (child.end === undefined || child.end > end) return end;
    offset = child.end;
  }
  return end;
}

/** Info's Duration (a 4- or 8-byte float) times its TimecodeScale (nanoseconds), in seconds. */
async function infoDuration(reader: Reader, info: Element & { end: number }): Promise<number | undefined> {
  let scale = DEFAULT_TIMECODE_SCALE;
  let ticks: number | undefined;
  for await (const child of elements(reader, info.dataStart, info.end)) {
    if (child.id === TIMECODE_SCALE) {
      const bytes = await data(reader, child);
      if (bytes && bytes.length > 0) scale = uint(bytes, 0, bytes.length);
    } else if (child.id === DURATION) {
      const bytes = await data(reader, child);
      const view = bytes && new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      if (view?.byteLength === 4) ticks = view.getFloat32(0);
      else if (view?.byteLength === 8) ticks = view.getFloat64(0);
    }
  }
  return ticks === undefined || scale <= 0 ? undefined : seconds((ticks * scale) / 1_000_000);
}

/** The first video track's PixelWidth and PixelHeight. */
async function tracksSize(
  reader: Reader,
  tracks: Element & { end: number },
): Promise<Pick<VideoFacts, 'width' | 'height'>> {
  for await (const entry of elements(reader, tracks.dataStart, tracks.end)) {
    if (entry.id !== TRACK_ENTRY) continue;
    let type: number | undefined;
    let size: Pick<VideoFacts, 'width' | 'height'> = {};
    for await (const child of elements(reader, entry.dataStart, entry.end)) {
      if (child.id === TRACK_TYPE) {
        const bytes = await data(reader, child);
        type = bytes ? uint(bytes, 0, bytes.length) : undefined;
      } else if (child.id === VIDEO) {
        let width = 0;
        let height = 0;
        for await (const field of elements(reader, child.dataStart, child.end)) {
          if (field.id !== PIXEL_WIDTH && field.id !== PIXEL_HEIGHT) continue;
          const bytes = await data(reader, field);
          const value = bytes ? uint(bytes, 0, bytes.length) : 0;
          if (field.id === PIXEL_WIDTH) width = value;
          else height = value;
        }
        size = frameSize(width, height);
      }
    }
    if (type === VIDEO_TRACK) return size;
  }
  return {};
}
