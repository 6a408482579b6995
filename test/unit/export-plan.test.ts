import fc from 'fast-check';
import {
  CHUNK_IDS,
  chunkProgress,
  nextChunk,
  parseExportState,
  planRanges,
  type ExportRange,
} from '../../src/domain/export-plan';
import { toLines } from '../../src/export/exporter';

/** Every id each range's chunks cover, walking the ranges as the pullers do. */
function walk(ranges: ExportRange[]): number[] {
  const ids: number[] = [];
  for (const range of ranges) {
    for (let chunk = nextChunk(range); chunk; chunk = nextChunk(range)) {
      expect(chunk.to - chunk.from).toBeLessThanOrEqual(CHUNK_IDS);
      for (let id = chunk.from; id < chunk.to; id++) ids.push(id);
      range.next = chunk.to;
    }
  }
  return ids;
}

describe('export plan', () => {
  it('when ids 1..1000 are cut for 4 pullers, then four ranges of whole chunks cover them', () => {
    expect(planRanges(1, 1000, 4)).toEqual([
      { from: 1, end: 301, next: 1 },
      { from: 301, end: 601, next: 301 },
      { from: 601, end: 801, next: 601 },
      { from: 801, end: 1001, next: 801 },
    ]);
  });

  it('when there are fewer chunks than pullers, then there are fewer ranges', () => {
    expect(planRanges(5, 150, 4)).toEqual([
      { from: 5, end: 105, next: 5 },
      { from: 105, end: 151, next: 105 },
    ]);
    expect(planRanges(7, 7, 4)).toEqual([{ from: 7, end: 8, next: 7 }]);
    expect(planRanges(8, 7, 4)).toEqual([]);
  });

  it('for any bounds and pullers, then the chunks cover every id exactly once, in order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 0, max: 5_000 }),
        fc.integer({ min: 1, max: 32 }),
        (first, span, parts) => {
          const ranges = planRanges(first, first + span, parts);
          expect(ranges.length).toBeLessThanOrEqual(parts);
          const ids = walk(ranges);
          const expected = Array.from({ length: span + 1 }, (_, i) => first + i);
          // toEqual over up to 5,001 numbers took most of the 100 runs' time (22 s of a loaded machine's
          // 25): compared here, and handed to toEqual (for its diff) when they differ.
          if (ids.length !== expected.length || ids.some((id, i) => id !== expected[i])) {
            expect(ids).toEqual(expected);
          }
        },
      ),
    );
  });

  it('when some chunks are done, then the progress counts them', () => {
    const ranges = planRanges(1, 1000, 4);
    expect(chunkProgress(ranges)).toEqual({ total: 10, done: 0 });
    ranges[0]!.next = 201;
    ranges[3]!.next = ranges[3]!.end;
    expect(chunkProgress(ranges)).toEqual({ total: 10, done: 4 });
  });

  it('when a state file is read, then a broken or inconsistent one is refused with the reason', () => {
    const good = {
      version: 1,
      url: 'http://x',
      since: null,
      ranges: planRanges(1, 10, 2),
      bytes: 0,
      documents: 0,
    };
    expect(parseExportState(JSON.stringify(good))).toEqual({ ok: true, state: good });
    expect(parseExportState('{')).toEqual({ ok: false, message: 'is not JSON' });
    const outside = { ...good, ranges: [{ from: 1, end: 11, next: 12 }] };
    expect(parseExportState(JSON.stringify(outside))).toMatchObject({
      ok: false,
      message: expect.stringContaining('ranges.0'),
    });
    expect(parseExportState(JSON.stringify({ ...good, bytes: -1 }))).toMatchObject({ ok: false });
    // The project exported is kept when recorded (state files written before it was lack it).
    const withProject = { ...good, projectId: 7 };
    expect(parseExportState(JSON.stringify(withProject))).toEqual({ ok: true, state: withProject });
    expect(parseExportState(JSON.stringify({ ...good, projectId: '7' }))).toMatchObject({
      ok: false,
      message: expect.stringContaining('projectId'),
    });
  });
});

describe('export lines', () => {
  it('when the API answers a page, then each item becomes one line with its bytes as sent', () => {
    const body = Buffer.from('{"results":[{"a":"x\\ny","b":[1,{"c":"}"}]} , {"d":"ü"}],"next":null}');
    const { lines, count } = toLines(body);
    expect(count).toBe(2);
    expect(lines.toString('utf8')).toBe('{"a":"x\\ny","b":[1,{"c":"}"}]}\n{"d":"ü"}\n');
  });

  it('when an item has line breaks between its tokens, then it is written on one line', () => {
    const { lines } = toLines(Buffer.from('{"results":[{\n"a": 1\n}]}'));
    expect(lines.toString('utf8')).toBe('{"a":1}\n');
  });

  it('when the page is empty, then there are no lines', () => {
    expect(toLines(Buffer.from('{"results":[]}'))).toEqual({ lines: Buffer.alloc(0), count: 0 });
  });

  it('when the answer is not a list of documents, then it says so', () => {
    expect(() => toLines(Buffer.from('<html>'))).toThrow('not a list of documents');
  });
});
