/**
 * Hand-built video containers for the tests of the header reader (src/domain/video-header.ts) and of uploads:
 * only the boxes and elements that matter, laid out as the specifications say (ISO/IEC 14496-12 for MP4/MOV,
 * the Matroska/EBML specification for WebM/MKV). The media data is filler bytes: nothing here decodes.
 */

const ascii = (text: string) => Buffer.from(text, 'latin1');

function u32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value >>> 0);
  return bytes;
}

function u64(value: bigint | number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(value));
  return bytes;
}

// ---- ISO BMFF (mp4, mov, m4v) ----

/** A box with a 32-bit size. */
export function box(type: string, ...body: Buffer[]): Buffer {
  const payload = Buffer.concat(body);
  return Buffer.concat([u32(8 + payload.length), ascii(type), payload]);
}

/** A box with size 1 and the 64-bit size after its type. */
export function box64(type: string, ...body: Buffer[]): Buffer {
  const payload = Buffer.concat(body);
  return Buffer.concat([u32(1), ascii(type), u64(16 + payload.length), payload]);
}

/** A box with size 0: it runs to the end of the file. */
export function boxToEnd(type: string, ...body: Buffer[]): Buffer {
  return Buffer.concat([u32(0), ascii(type), ...body]);
}

/** A full box: version and 24 bits of flags before the body. */
export function fullBox(type: string, version: number, ...body: Buffer[]): Buffer {
  return box(type, Buffer.from([version, 0, 0, 0]), ...body);
}

export function ftyp(brand = 'isom'): Buffer {
  return box('ftyp', ascii(brand), u32(512), ascii(brand), ascii('mp41'));
}

/** A movie header: version 0 has 32-bit times and duration, version 1 64-bit ones. */
export function mvhd(timescale: number, duration: bigint | number, version: 0 | 1 = 0): Buffer {
  const times =
    version === 0
      ? Buffer.concat([u32(0), u32(0), u32(timescale), u32(Number(duration))])
      : Buffer.concat([u64(0), u64(0), u32(timescale), u64(duration)]);
  // rate, volume, reserved, matrix, pre_defined, next_track_ID
  const rest = Buffer.concat([u32(0x00010000), Buffer.from([1, 0]), Buffer.alloc(10), Buffer.alloc(36)]);
  return fullBox('mvhd', version, times, rest, Buffer.alloc(24), u32(3));
}

/** A track header whose width and height are 16.16 fixed point, as the specification stores them. */
export function tkhd(width: number, height: number, version: 0 | 1 = 0): Buffer {
  const times =
    version === 0
      ? Buffer.concat([u32(0), u32(0), u32(1), u32(0), u32(0)])
      : Buffer.concat([u64(0), u64(0), u32(1), u32(0), u64(0)]);
  const matrix = Buffer.concat([u32(0x00010000), u32(0), u32(0), u32(0), u32(0x00010000)]);
  const fixed = (value: number) => u32(Math.round(value * 65536));
  return fullBox(
    'tkhd',
    version,
    times,
    Buffer.alloc(8),
    Buffer.alloc(8),
    Buffer.concat([matrix, Buffer.alloc(16)]),
    fixed(width),
    fixed(height),
  );
}

/** A handler box: `vide` for a video track, `soun` for sound. */
export function hdlr(handler: string): Buffer {
  return fullBox('hdlr', 0, u32(0), ascii(handler), Buffer.alloc(12), ascii('handler\0'));
}

/** A track: its header, and its media's handler (with a sample table's worth of filler). */
export function trak(handler: string, width: number, height: number, version: 0 | 1 = 0): Buffer {
  return box(
    'trak',
    tkhd(width, height, version),
    box('mdia', fullBox('mdhd', 0, Buffer.alloc(20)), hdlr(handler), box('minf', Buffer.alloc(40))),
  );
}

export interface Mp4Shape {
  timescale?: number;
  /** In timescale units. */
  duration?: bigint | number;
  version?: 0 | 1;
  width?: number;
  height?: number;
  /** moov after mdat, as a camera writes it. */
  moovAtEnd?: boolean;
  /** mdat with a 64-bit size. */
  largeMdat?: boolean;
  /** The last top-level box with size 0 (to the end of the file). */
  lastToEnd?: boolean;
  mdatBytes?: number;
}

/** An MP4 of a sound track and a video track, its media data `mdatBytes` of filler. */
export function mp4(shape: Mp4Shape = {}): Buffer {
  const { timescale = 1000, duration = 2500, version = 0, width = 320, height = 240 } = shape;
  const moov = box(
    'moov',
    mvhd(timescale, duration, version),
    trak('soun', 0, 0, version),
    trak('vide', width, height, version),
  );
  const data = Buffer.alloc(shape.mdatBytes ?? 64, 0x5a);
  const mdat = shape.largeMdat ? box64('mdat', data) : box('mdat', data);
  const boxes = shape.moovAtEnd ? [ftyp(), box('free'), mdat, moov] : [ftyp(), moov, mdat];
  if (shape.lastToEnd) {
    const last = boxes.pop()!;
    const headerSize = last.readUInt32BE(0) === 1 ? 16 : 8;
    boxes.push(boxToEnd(last.subarray(4, 8).toString('latin1'), last.subarray(headerSize)));
  }
  return Buffer.concat(boxes);
}

// ---- Matroska / WebM (EBML) ----

/** An element ID as written: its bytes, length marker included. */
function idBytes(id: number): Buffer {
  const length = id >= 0x1000000 ? 4 : id >= 0x10000 ? 3 : id >= 0x100 ? 2 : 1;
  const bytes = Buffer.alloc(length);
  bytes.writeUIntBE(id, 0, length);
  return bytes;
}

/** A size as an EBML variable-length integer of `length` bytes (8 by default, as many muxers write it). */
export function vint(value: number, length = 8): Buffer {
  const bytes = Buffer.alloc(length);
  let rest = BigInt(value);
  for (let index = length - 1; index >= 0; index -= 1) {
    bytes[index] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  bytes[0]! |= 0x80 >> (length - 1);
  return bytes;
}

/** The size "unknown": every value bit set (a live recording's Segment and Clusters). */
export function unknownSize(length = 8): Buffer {
  const bytes = Buffer.alloc(length, 0xff);
  bytes[0] = 0xff >> (length - 1);
  return bytes;
}

export function element(id: number, ...body: Buffer[]): Buffer {
  const payload = Buffer.concat(body);
  return Buffer.concat([idBytes(id), vint(payload.length), payload]);
}

export function unknownSizeElement(id: number, ...body: Buffer[]): Buffer {
  return Buffer.concat([idBytes(id), unknownSize(), ...body]);
}

export function uintElement(id: number, value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return element(id, bytes);
}

export function floatElement(id: number, value: number, bytes: 4 | 8 = 8): Buffer {
  const data = Buffer.alloc(bytes);
  if (bytes === 4) data.writeFloatBE(value);
  else data.writeDoubleBE(value);
  return element(id, data);
}

export const EBML = {
  header: 0x1a45dfa3,
  docType: 0x4282,
  segment: 0x18538067,
  info: 0x1549a966,
  timecodeScale: 0x2ad7b1,
  duration: 0x4489,
  muxingApp: 0x4d80,
  tracks: 0x1654ae6b,
  trackEntry: 0xae,
  trackNumber: 0xd7,
  trackType: 0x83,
  video: 0xe0,
  pixelWidth: 0xb0,
  pixelHeight: 0xba,
  cluster: 0x1f43b675,
  timecode: 0xe7,
  simpleBlock: 0xa3,
  void: 0xec,
} as const;

export interface WebmShape {
  /** In TimecodeScale units (milliseconds by default); none: no Duration element. */
  duration?: number;
  timecodeScale?: number;
  durationBytes?: 4 | 8;
  width?: number;
  height?: number;
  /** Segment and Cluster of unknown size, as a live recording writes them. */
  unknownSizes?: boolean;
  /** Info and Tracks after the Cluster. */
  infoAfterClusters?: boolean;
  docType?: 'webm' | 'matroska';
}

export function ebmlHeader(docType = 'webm'): Buffer {
  return element(EBML.header, uintElement(0x4286, 1), element(EBML.docType, ascii(docType)));
}

export function info(shape: Pick<WebmShape, 'duration' | 'timecodeScale' | 'durationBytes'>): Buffer {
  return element(
    EBML.info,
    ...(shape.timecodeScale === undefined ? [] : [uintElement(EBML.timecodeScale, shape.timecodeScale)]),
    element(EBML.muxingApp, ascii('hand-built')),
    ...(shape.duration === undefined
      ? []
      : [floatElement(EBML.duration, shape.duration, shape.durationBytes ?? 8)]),
  );
}

export function tracks(width: number, height: number): Buffer {
  return element(
    EBML.tracks,
    element(EBML.trackEntry, uintElement(EBML.trackNumber, 1), uintElement(EBML.trackType, 2)),
    element(
      EBML.trackEntry,
      uintElement(EBML.trackNumber, 2),
      uintElement(EBML.trackType, 1),
      element(EBML.video, uintElement(EBML.pixelWidth, width), uintElement(EBML.pixelHeight, height)),
    ),
  );
}

/** A WebM of one cluster of filler blocks, its Info and Tracks as `shape` says. */
export function webm(shape: WebmShape = {}): Buffer {
  const { width = 320, height = 240 } = shape;
  const infoElement = info(shape);
  const tracksElement = tracks(width, height);
  const blocks = Buffer.concat([
    uintElement(EBML.timecode, 0),
    element(EBML.simpleBlock, Buffer.alloc(48, 0x5a)),
  ]);
  const cluster = shape.unknownSizes
    ? unknownSizeElement(EBML.cluster, blocks)
    : element(EBML.cluster, blocks);
  // After the Cluster, Info and Tracks end it: an unknown-size Cluster ends where an element of the
  // Segment's own level begins.
  const body = shape.infoAfterClusters
    ? Buffer.concat([cluster, infoElement, tracksElement])
    : Buffer.concat([infoElement, tracksElement, cluster]);
  const segment = shape.unknownSizes ? unknownSizeElement(EBML.segment, body) : element(EBML.segment, body);
  return Buffer.concat([ebmlHeader(shape.docType), segment]);
}
