import type { estypes } from '@elastic/elasticsearch';
import {
  buildFullTextQuery,
  foldApostrophes,
  FULL_TEXT_FIELDS,
  MAX_PROXIMITY_WORDS,
  splitSearch,
} from '../../src/domain/search-text';

const words = (query: string) => ({
  multi_match: { query, fields: FULL_TEXT_FIELDS, type: 'cross_fields', operator: 'and' },
});
const proximity = (query: string) => ({
  multi_match: { query, fields: FULL_TEXT_FIELDS, type: 'phrase', boost: 2 },
});
const phrase = (query: string) => ({ multi_match: { query, fields: FULL_TEXT_FIELDS, type: 'phrase' } });

describe('buildFullTextQuery', () => {
  it('searches title, description and text, weighted in that order', () => {
    expect(FULL_TEXT_FIELDS).toEqual(['title^3', 'description^2', 'text']);
  });

  it.each([[''], ['   '], ['\t\n'], ['""'], ['" "'], ['"'], ['  ""  "" ']])(
    'when the search %p holds no words, then there is no query',
    (search) => {
      expect(buildFullTextQuery(search)).toBeUndefined();
    },
  );

  it('when one word is given, then it must occur in any field', () => {
    expect(buildFullTextQuery('climate')).toEqual({ bool: { must: [words('climate')] } });
  });

  it('when several words are given, then all must occur and side by side ranks higher', () => {
    expect(buildFullTextQuery('  climate   summit ')).toEqual({
      bool: { must: [words('climate summit')], should: [proximity('climate summit')] },
    });
  });

  it('when a quoted part is given, then it must occur as a phrase', () => {
    expect(buildFullTextQuery('"climate summit"')).toEqual({ bool: { must: [phrase('climate summit')] } });
    expect(buildFullTextQuery('"climate"')).toEqual({ bool: { must: [phrase('climate')] } });
  });

  it('when words and phrases are mixed, then every part must match', () => {
    expect(buildFullTextQuery('glasgow "climate summit" deal "coal power"')).toEqual({
      bool: {
        must: [words('glasgow deal'), phrase('climate summit'), phrase('coal power')],
        should: [proximity('glasgow deal')],
      },
    });
    expect(buildFullTextQuery('deal "climate summit"')).toEqual({
      bool: { must: [words('deal'), phrase('climate summit')] },
    });
  });

  it('when a quote is not closed, then the rest is a phrase', () => {
    expect(buildFullTextQuery('glasgow "climate   summit')).toEqual({
      bool: { must: [words('glasgow'), phrase('climate summit')] },
    });
    expect(buildFullTextQuery('"a b" c "d e')).toEqual({
      bool: { must: [words('c'), phrase('a b'), phrase('d e')] },
    });
  });
});

describe('foldApostrophes', () => {
  it.each([
    ['Brandt\u2019s', "Brandt's"],
    ['\u2018Neill', "'Neill"],
    ['O\u201BNeill', "O'Neill"],
    ['ha\u02BCapa', "ha'apa"],
    ['rock\uFF07n\u2019roll', "rock'n'roll"],
    ["Brandt's", "Brandt's"],
    ['\u201Cquoted\u201D', '\u201Cquoted\u201D'],
  ])('when the text is %p, then it is searched as %p', (text, folded) => {
    expect(foldApostrophes(text)).toBe(folded);
    expect([...foldApostrophes(text)]).toHaveLength([...text].length);
  });

  it('when a search holds a typographic apostrophe, then the query asks for the straight one', () => {
    expect(buildFullTextQuery('Brandt\u2019s "harbour\u2019s edge"')).toEqual({
      bool: { must: [words("Brandt's"), phrase("harbour's edge")] },
    });
  });
});

/**
 * The clauses Elasticsearch counts in a full-text query against its node's limit: a multi_match is a term per
 * word and field (cross_fields blends each word's three, a phrase holds each word once per field). Measured on
 * the tests' node (16,384): before the cap, 2,730 distinct words were the most it took in the search request
 * (6 a word); with it, 5,441 (3 a word, 60 for the phrase of the first 20, 1 for the project's filter).
 */
function clauses(query: estypes.QueryDslQueryContainer | undefined): number {
  const bool = query?.bool;
  const parts: estypes.QueryDslQueryContainer[] = [bool?.must ?? [], bool?.should ?? []].flat();
  let count = 0;
  for (const part of parts) {
    const match = part?.multi_match;
    if (match) count += match.query.split(' ').length * (match.fields as string[]).length;
  }
  return count;
}

describe('the clauses of a full-text query', () => {
  const search = (count: number) => Array.from({ length: count }, (_, n) => `w${n}`).join(' ');

  it('when a search has up to 20 words, then all of them go into the proximity phrase, as before', () => {
    expect(MAX_PROXIMITY_WORDS).toBe(20);
    expect(buildFullTextQuery(search(20))).toEqual({
      bool: { must: [words(search(20))], should: [proximity(search(20))] },
    });
    expect(clauses(buildFullTextQuery(search(20)))).toBe(120);
    expect(clauses(buildFullTextQuery(search(10)))).toBe(60);
  });

  it('when a search has more than 20 words, then all must occur and only the first 20 go into the phrase', () => {
    expect(buildFullTextQuery(search(21))).toEqual({
      bool: { must: [words(search(21))], should: [proximity(search(20))] },
    });
    expect(buildFullTextQuery(`${search(30)} "coal power"`)).toEqual({
      bool: { must: [words(search(30)), phrase('coal power')], should: [proximity(search(20))] },
    });
  });

  it('when a pasted paragraph of 300 words is searched, then its query fits the 1,024 clauses of the smallest node', () => {
    expect(clauses(buildFullTextQuery(search(100)))).toBe(360);
    expect(clauses(buildFullTextQuery(search(300)))).toBe(960);
    // With the project's filter, 321 words are the most a 1,024-clause node takes.
    expect(clauses(buildFullTextQuery(search(321))) + 1).toBeLessThanOrEqual(1024);
    expect(clauses(buildFullTextQuery(search(322))) + 1).toBeGreaterThan(1024);
  });
});

describe('splitSearch', () => {
  it('separates words from quoted phrases and collapses whitespace', () => {
    expect(splitSearch(' a  "b   c" d\t"e" ')).toEqual({ words: 'a d', phrases: ['b c', 'e'] });
    expect(splitSearch('a"b"c')).toEqual({ words: 'a c', phrases: ['b'] });
    expect(splitSearch('')).toEqual({ words: '', phrases: [] });
  });
});
