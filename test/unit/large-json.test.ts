import pg from 'pg';
import { JsonText, LARGE_JSON_CHARS, LARGE_JSON_TYPES, parseLargeJson } from '../../src/db/large-json';
import { RequestAbandonedError } from '../../src/media/decode-budget';

const parserOf = (oid: number) =>
  (LARGE_JSON_TYPES as pg.TypeOverrides).getTypeParser(oid, 'text') as unknown as (text: string) => unknown;

/** A content whose jsonb text (as Postgres writes it) is longer than LARGE_JSON_CHARS. */
const largeContent = Array.from({ length: 2_000 }, (_, index) => ({
  id: `c-${index}`,
  component: 'paragraph',
  content: { text: `Caf\u00e9 "${index}" \ud83d\ude00 ${'lorem ipsum '.repeat(12)}`, list: [[index], []] },
}));
const largeText = JSON.stringify(largeContent).replace(/,"/g, ', "').replace(/":/g, '": ');

describe('large json and jsonb columns', () => {
  it('when a json or jsonb text is short, then the driver parses it; when long, then it is left as its text', () => {
    expect(largeText.length).toBeGreaterThan(LARGE_JSON_CHARS);
    for (const oid of [pg.types.builtins.JSON, pg.types.builtins.JSONB]) {
      const parse = parserOf(oid);
      expect(parse('{"title": "x", "n": [1, 2]}')).toEqual({ title: 'x', n: [1, 2] });
      expect(parse(largeText)).toEqual(new JsonText(largeText));
    }
    // The pool's own parsers still apply (bigint ids as numbers).
    expect(parserOf(pg.types.builtins.INT8)('12')).toBe(12);
  });

  it('when a row has columns left as text, then parseLargeJson answers the row with their values', async () => {
    const row = {
      id: 1,
      metadata: parserOf(pg.types.builtins.JSONB)('{"title": "small"}'),
      content: parserOf(pg.types.builtins.JSONB)(largeText),
    };
    expect(row.content).toBeInstanceOf(JsonText);
    const parsed = await parseLargeJson(row, ['metadata', 'content']);
    expect(parsed).toEqual({ id: 1, metadata: { title: 'small' }, content: largeContent });
  });

  it('when no column was left as text, then parseLargeJson answers the row itself, not a promise', () => {
    const row = { id: 1, metadata: { title: 'x' }, content: [] };
    expect(parseLargeJson(row, ['metadata', 'content'])).toBe(row);
  });

  it('when the request was abandoned, then the parsing is not done', async () => {
    const row = { content: new JsonText(largeText) };
    const gone = new AbortController();
    gone.abort();
    await expect(parseLargeJson(row, ['content'], gone.signal)).rejects.toBeInstanceOf(RequestAbandonedError);
  });
});
