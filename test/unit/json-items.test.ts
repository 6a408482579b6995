import { joinItems } from '../../src/http/json-items';
import type { Items } from '../../src/reads/publications';
import { readRawHits } from '../../src/search/raw-hits';

/** An answer made the way the reads make it: each item a slice of the search response's bytes. */
function answerFrom(bodies: unknown[]): { answer: Items; response: Buffer } {
  const response = Buffer.from(
    JSON.stringify({
      took: 1,
      hits: {
        hits: bodies.map((body, i) => ({ _index: 'x', _id: `1:${i}`, _source: { body }, sort: [i] })),
      },
    }),
  );
  const raw = readRawHits(response);
  const items = raw.hits.map((hit) => raw.bytes.subarray(hit.body!.start, hit.body!.end));
  return { answer: { items, fingerprint: 'f', documentIds: [], source: raw.bytes.chunks }, response };
}

const text = (buffer: Buffer | Buffer[]) =>
  (Array.isArray(buffer) ? Buffer.concat(buffer) : buffer).toString('utf8');

describe('joinItems', () => {
  it('when the items are slices of one response, then they are joined in place and each still reads the same', () => {
    const bodies = [{ a: 1 }, { b: 'x,y "}' }, { c: ['Zürich', '東京'] }, {}];
    const { answer, response } = answerFrom(bodies);
    const pieces = joinItems(answer);
    expect(pieces).toHaveLength(1);
    const joined = pieces[0]!;
    expect(JSON.parse(`[${text(joined)}]`)).toEqual(bodies);
    // Moved within the response's own bytes: nothing new was allocated for them.
    expect(joined.buffer).toBe(response.buffer);
    expect(joined.byteOffset).toBeGreaterThan(response.byteOffset);
    expect(joined.byteOffset + joined.length).toBeLessThan(response.byteOffset + response.length);
    expect(answer.items.map((item) => JSON.parse(text(item)) as unknown)).toEqual(bodies);
    // Asked again (another envelope of the same answer), the same bytes.
    expect(joinItems(answer)).toBe(pieces);
  });

  it('when an item is not a slice of the response (component conditions rewrote it), then the items are copied', () => {
    const { answer, response } = answerFrom([{ a: 1 }, { b: 2 }]);
    const before = Buffer.from(response);
    answer.items[1] = Buffer.from('{"rewritten":true}');
    const joined = joinItems(answer);
    expect(text(joined)).toBe('{"a":1},{"rewritten":true}');
    expect(response.equals(before)).toBe(true);
  });

  it('when items are out of order or touch each other, then the items are copied and the response left alone', () => {
    const source = Buffer.from('[{"a":1}{"b":2}]');
    const a = source.subarray(1, 8);
    const b = source.subarray(8, 15);
    for (const items of [
      [b, a],
      [a, b],
    ]) {
      const answer: Items = { items: [...items], fingerprint: 'f', documentIds: [], source: [source] };
      expect(text(joinItems(answer))).toBe(items.map(text).join(','));
      expect(text(source)).toBe('[{"a":1}{"b":2}]');
    }
  });

  it('when there is no source or no item, then the answer is what the items say', () => {
    expect(text(joinItems({ items: [Buffer.from('{}')], fingerprint: 'f', documentIds: [] }))).toBe('{}');
    expect(
      joinItems({ items: [], fingerprint: 'f', documentIds: [], source: [Buffer.from('[]')] }).length,
    ).toBe(0);
  });

  it('when the response arrived in chunks, then each chunk is compacted in place and an item across two chunks is a copy of its own', () => {
    const bodies = [
      { a: 1 },
      { b: 'x,y "}' },
      { c: ['Zürich', '東京'] },
      {},
      { d: [1, 2, 3] },
      { e: 'last' },
    ];
    const whole = Buffer.from(
      JSON.stringify({
        hits: {
          hits: bodies.map((body, i) => ({ _index: 'x', _id: `1:${i}`, _source: { body }, sort: [i] })),
        },
      }),
    );
    for (let size = 7; size <= whole.length; size += 13) {
      const chunks: Buffer[] = [];
      for (let at = 0; at < whole.length; at += size) {
        // Each chunk its own memory, as a socket's reads are (Buffer.from would take small ones from one pool).
        const part = whole.subarray(at, at + size);
        const chunk = Buffer.alloc(part.length);
        part.copy(chunk);
        chunks.push(chunk);
      }
      const raw = readRawHits(chunks);
      const items = raw.hits.map((hit) => raw.bytes.subarray(hit.body!.start, hit.body!.end));
      const answer: Items = { items, fingerprint: 'f', documentIds: [], source: raw.bytes.chunks };
      const pieces = joinItems(answer);
      expect(JSON.parse(`[${text(pieces)}]`)).toEqual(bodies);
      expect(answer.items.map((item) => JSON.parse(text(item)) as unknown)).toEqual(bodies);
      // Every piece is a comma, a copied item or a slice of one chunk: never more pieces than that.
      const inChunks = pieces.filter((piece) => chunks.some((chunk) => chunk.buffer === piece.buffer));
      expect(inChunks.length).toBeLessThanOrEqual(chunks.length);
    }
  });
});
