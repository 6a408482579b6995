import {
  buildFullTextQuery,
  foldApostrophes,
  FULL_TEXT_FIELDS,
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

describe('splitSearch', () => {
  it('separates words from quoted phrases and collapses whitespace', () => {
    expect(splitSearch(' a  "b   c" d\t"e" ')).toEqual({ words: 'a d', phrases: ['b c', 'e'] });
    expect(splitSearch('a"b"c')).toEqual({ words: 'a c', phrases: ['b'] });
    expect(splitSearch('')).toEqual({ words: '', phrases: [] });
  });
});
