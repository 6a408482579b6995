import { readVideoFacts, type ByteSource } from '../../src/domain/video-header';
import {
  box,
  EBML,
  ebmlHeader,
  element,
  floatElement,
  ftyp,
  info,
  mp4,
  mvhd,
  trak,
  tracks,
  uintElement,
  unknownSizeElement,
  webm,
} from '../helpers/video-bytes';

/** The bytes as the reader sees a staged file: read a little at a time, every read counted. */
function sourceOf(bytes: Buffer): ByteSource & { reads: number; bytesRead: number } {
  return {
    size: bytes.length,
    reads: 0,
    bytesRead: 0,
    read(offset: number, length: number) {
      this.reads += 1;
      const slice = bytes.subarray(offset, Math.min(bytes.length, offset + length));
      this.bytesRead += slice.length;
      return Promise.resolve(slice);
    },
  };
}

const read = (bytes: Buffer) => readVideoFacts(sourceOf(bytes));

describe('readVideoFacts: ISO BMFF (mp4, mov, m4v)', () => {
  it('when moov comes before mdat, then the duration is mvhd duration / timescale in seconds and the size is the video track header', async () => {
    expect(await read(mp4({ timescale: 1000, duration: 2500, width: 320, height: 240 }))).toEqual({
      duration: 2.5,
      width: 320,
      height: 240,
    });
  });

  it('when moov comes after mdat (a camera file), then it is found at the end, without reading the media data', async () => {
    const bytes = mp4({ moovAtEnd: true, mdatBytes: 4 * 1024 * 1024, timescale: 600, duration: 7245 });
    const source = sourceOf(bytes);
    expect(await readVideoFacts(source)).toEqual({ duration: 12.075, width: 320, height: 240 });
    expect(source.bytesRead).toBeLessThan(256 * 1024);
  });

  it('when mvhd and tkhd are version 1, then their 64-bit fields are read', async () => {
    const duration = 90_000n * 3600n * 30n; // 30 hours at 90 kHz: more than 32 bits
    expect(await read(mp4({ version: 1, timescale: 90_000, duration, width: 1920, height: 1080 }))).toEqual({
      duration: 108_000,
      width: 1920,
      height: 1080,
    });
  });

  it('when mdat has a 64-bit size (size 1) or runs to the end (size 0), then the boxes around it are still found', async () => {
    expect(await read(mp4({ largeMdat: true, moovAtEnd: true }))).toEqual({
      duration: 2.5,
      width: 320,
      height: 240,
    });
    expect(await read(mp4({ lastToEnd: true }))).toEqual({ duration: 2.5, width: 320, height: 240 });
    expect(await read(mp4({ moovAtEnd: true, lastToEnd: true }))).toEqual({
      duration: 2.5,
      width: 320,
      height: 240,
    });
  });

  it('when the duration is not a whole number of milliseconds, then it is rounded to milliseconds', async () => {
    expect((await read(mp4({ timescale: 30_000, duration: 1001 })))?.duration).toBe(0.033);
  });

  it('when the file has only a sound track, then it has a duration and no width or height', async () => {
    const bytes = Buffer.concat([
      ftyp('M4A '),
      box('moov', mvhd(44_100, 441_000), trak('soun', 0, 0)),
      box('mdat', Buffer.alloc(16)),
    ]);
    expect(await read(bytes)).toEqual({ duration: 10 });
  });

  it('when mvhd says the duration is unknown (all ones) or zero, or the timescale is zero, then there is no duration', async () => {
    expect(await read(mp4({ duration: 0xffffffff }))).toEqual({ width: 320, height: 240 });
    expect(await read(mp4({ duration: 0 }))).toEqual({ width: 320, height: 240 });
    expect(await read(mp4({ timescale: 0 }))).toEqual({ width: 320, height: 240 });
  });

  it('when the file is cut inside moov, or before a moov that comes last, then nothing is read', async () => {
    const front = mp4();
    const moovStart = front.indexOf('moov') - 4;
    const moovEnd = moovStart + front.readUInt32BE(moovStart);
    for (let cut = 0; cut < moovEnd; cut += 1) expect(await read(front.subarray(0, cut))).toBeUndefined();
    const back = mp4({ moovAtEnd: true });
    expect(await read(back.subarray(0, back.length - 10))).toBeUndefined();
    expect(await read(back.subarray(0, back.indexOf('moov')))).toBeUndefined();
  });

  it('when the file is cut in its media data after a whole moov, then the header is read, as a player reads it', async () => {
    const front = mp4({ mdatBytes: 1000 });
    expect(await read(front.subarray(0, front.length - 500))).toEqual({
      duration: 2.5,
      width: 320,
      height: 240,
    });
  });

  it('when a box declares a size smaller than its header or larger than its parent, then nothing is read and nothing throws', async () => {
    const bytes = mp4();
    const tooSmall = Buffer.from(bytes);
    tooSmall.writeUInt32BE(4, bytes.indexOf('moov') - 4);
    expect(await read(tooSmall)).toBeUndefined();
    const tooLarge = Buffer.from(bytes);
    tooLarge.writeUInt32BE(0xfffffff0, bytes.indexOf('mvhd') - 4);
    expect(await read(tooLarge)).toBeUndefined();
    const hugeLarge = Buffer.concat([
      ftyp(),
      Buffer.from([0, 0, 0, 1]),
      Buffer.from('mdat'),
      Buffer.alloc(8, 0xff),
    ]);
    expect(await read(hugeLarge)).toBeUndefined();
  });
});

describe('readVideoFacts: Matroska and WebM (EBML)', () => {
  it('when Info has a Duration and the default TimecodeScale, then the duration is in seconds and the size is the video track', async () => {
    expect(await read(webm({ duration: 4321.5, width: 640, height: 360 }))).toEqual({
      duration: 4.322,
      width: 640,
      height: 360,
    });
  });

  it('when TimecodeScale is given and Duration is a 4-byte float, then both are used', async () => {
    // 2,500 ticks of 100 µs: 0.25 s.
    expect(await read(webm({ duration: 2500, timecodeScale: 100_000, durationBytes: 4 }))).toEqual({
      duration: 0.25,
      width: 320,
      height: 240,
    });
  });

  it('when the file is Matroska (mkv) rather than WebM, then it is read the same', async () => {
    expect(await read(webm({ docType: 'matroska', duration: 1000 }))).toEqual({
      duration: 1,
      width: 320,
      height: 240,
    });
  });

  it('when the Segment and its Clusters have unknown sizes, then the elements after a Cluster are still found', async () => {
    expect(await read(webm({ unknownSizes: true, duration: 3000 }))).toEqual({
      duration: 3,
      width: 320,
      height: 240,
    });
    expect(await read(webm({ unknownSizes: true, infoAfterClusters: true, duration: 3000 }))).toEqual({
      duration: 3,
      width: 320,
      height: 240,
    });
    expect(await read(webm({ infoAfterClusters: true, duration: 3000 }))).toEqual({
      duration: 3,
      width: 320,
      height: 240,
    });
  });

  it('when Info has no Duration (a live recording), then there is only the size', async () => {
    expect(await read(webm({ unknownSizes: true }))).toEqual({ width: 320, height: 240 });
  });

  it('when Duration is not a finite positive number, then there is none', async () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, -5, 0]) {
      expect(await read(webm({ duration: bad }))).toEqual({ width: 320, height: 240 });
    }
  });

  it('when the file is cut inside Info or Tracks, then what was cut is not read, and nothing throws', async () => {
    const bytes = webm({ duration: 1000 });
    const infoStart = bytes.indexOf(Buffer.from([0x15, 0x49, 0xa9, 0x66]));
    const infoEnd = infoStart + info({ duration: 1000 }).length;
    const tracksEnd = infoEnd + tracks(320, 240).length;
    for (let cut = 0; cut < bytes.length; cut += 1) {
      const facts = await read(bytes.subarray(0, cut));
      if (cut < infoEnd) expect(facts).toBeUndefined();
      else if (cut < tracksEnd) expect(facts).toEqual({ duration: 1 });
      else expect(facts).toEqual({ duration: 1, width: 320, height: 240 });
    }
  });

  it('when a size is longer than 8 bytes or an ID longer than 4, then nothing is read', async () => {
    const badSize = Buffer.concat([
      ebmlHeader(),
      Buffer.from([0x18, 0x53, 0x80, 0x67, 0x00, 0x00]),
      info({ duration: 1000 }),
    ]);
    expect(await read(badSize)).toBeUndefined();
    const badId = Buffer.concat([
      ebmlHeader(),
      element(
        EBML.segment,
        Buffer.from([0x08, 0x01, 0x02, 0x03, 0x04, 0x81, 0x00]),
        info({ duration: 1000 }),
      ),
    ]);
    expect(await read(badId)).toBeUndefined();
  });

  it('when a track of video has no PixelWidth, then there is no size, only the duration', async () => {
    const bytes = Buffer.concat([
      ebmlHeader(),
      unknownSizeElement(
        EBML.segment,
        info({ duration: 500 }),
        element(
          EBML.tracks,
          element(
            EBML.trackEntry,
            uintElement(EBML.trackType, 1),
            element(EBML.video, uintElement(EBML.pixelHeight, 240)),
          ),
        ),
      ),
    ]);
    expect(await read(bytes)).toEqual({ duration: 0.5 });
  });

  it('when Tracks comes before Info and Duration is a 4-byte float, then both are read', async () => {
    const bytes = Buffer.concat([
      ebmlHeader(),
      element(EBML.segment, tracks(32, 16), element(EBML.info, floatElement(EBML.duration, 40, 4))),
    ]);
    expect(await read(bytes)).toEqual({ duration: 0.04, width: 32, height: 16 });
  });
});

describe('readVideoFacts: anything else', () => {
  it('when the bytes are empty, an image, text or noise, then there are no facts and nothing throws', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const noise = Buffer.alloc(4096);
    for (let index = 0; index < noise.length; index += 1) noise[index] = (index * 7919 + 13) % 256;
    for (const bytes of [Buffer.alloc(0), Buffer.from([0]), png, Buffer.from('%PDF-1.4\n'), noise]) {
      expect(await read(bytes)).toBeUndefined();
    }
  });

  it('when every prefix and many byte flips of a valid file are read, then none throws', async () => {
    for (const bytes of [
      mp4(),
      mp4({ moovAtEnd: true, version: 1 }),
      webm({ duration: 10 }),
      webm({ unknownSizes: true }),
    ]) {
      for (let cut = 0; cut <= bytes.length; cut += 7) await read(bytes.subarray(0, cut));
      for (let at = 0; at < bytes.length; at += 3) {
        for (const value of [0x00, 0x01, 0x7f, 0xff]) {
          const flipped = Buffer.from(bytes);
          flipped[at] = value;
          const facts = await read(flipped);
          if (facts?.duration !== undefined) expect(Number.isFinite(facts.duration)).toBe(true);
          if (facts?.width !== undefined) expect(Number.isInteger(facts.width)).toBe(true);
        }
      }
    }
  });

  it('when the source fails to read, then there are no facts', async () => {
    const failing: ByteSource = {
      size: 1000,
      read: () => Promise.reject(new Error('EIO')),
    };
    expect(await readVideoFacts(failing)).toBeUndefined();
  });

  it('when a file is made of very many tiny boxes, then the reader gives up instead of walking them all', async () => {
    const boxes = Buffer.concat([
      ftyp(),
      ...Array.from({ length: 30_000 }, () => box('free')),
      box('moov', mvhd(1000, 1000)),
    ]);
    const source = sourceOf(boxes);
    expect(await readVideoFacts(source)).toBeUndefined();
  });
});
