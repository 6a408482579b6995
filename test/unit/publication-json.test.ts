import { jsonArray, searchPageJson } from '../../src/search/publication-reads';

/** The read endpoints send assembled text: it must be exactly what res.json (JSON.stringify) sent before. */
describe('assembled publication JSON', () => {
  const items = [
    { systemdata: { documentId: 1, title: 'é "quoted" \u2028 <b>' }, content: [{ id: 'p' }] },
    { metadata: {}, references: [] },
  ];
  const texts = items.map((item) => JSON.stringify(item));

  it('when items are joined into an array, then the text equals JSON.stringify of the array', () => {
    expect(jsonArray(texts)).toBe(JSON.stringify(items));
    expect(jsonArray([])).toBe(JSON.stringify([]));
  });

  it('when a search page has a total and a cursor, then the text equals JSON.stringify of the page', () => {
    const page = { results: items, total: 2, cursor: 'abc' };
    expect(searchPageJson({ ...page, results: texts })).toBe(JSON.stringify(page));
  });

  it('when a search page has no cursor or no total, then null is written and an absent total is left out', () => {
    expect(searchPageJson({ results: [], total: 0, cursor: null })).toBe(
      JSON.stringify({ results: [], total: 0, cursor: null }),
    );
    expect(searchPageJson({ results: texts, total: undefined, cursor: null })).toBe(
      JSON.stringify({ results: items, total: undefined, cursor: null }),
    );
  });
});
