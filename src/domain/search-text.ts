import type { estypes } from '@elastic/elasticsearch';

/**
 * The `search` parameter of publications/search (supplement §5) → a scoring query. Words outside quotes must
 * all occur, each in any of the fields; each double-quoted part must occur as an exact phrase.
 */

export const FULL_TEXT_FIELDS = ['title^3', 'description^2', 'text'];

/**
 * The apostrophes that are not the keyboard's `'`: the typographic one (U+2019, the one newsroom text is set
 * with: "Brandt’s"), the left single quote and the reversed one a wrong autocorrect leaves (U+2018, U+201B),
 * the modifier letter (U+02BC) and the fullwidth one (U+FF07).
 */
const OTHER_APOSTROPHES = /[\u2018\u2019\u201B\u02BC\uFF07]/g;

/**
 * Text as the index holds it and as it is searched: every apostrophe as `'`, so "Brandt's" typed on a keyboard
 * finds "Brandt’s" as typeset, and the reverse. The standard analyzer keeps a word's apostrophe in its token
 * (`brandt’s` and `brandt's` are different words to it), and the Elasticsearch the tests run (the integ-test
 * distribution, without the analysis-common module) has no mapping char_filter to fold them in the index: so
 * the search documents and the queries fold them here. One character for one, so offsets and character counts
 * stay as they were.
 */
export function foldApostrophes(text: string): string {
  return text.replace(OTHER_APOSTROPHES, "'");
}

/** Boost of the optional phrase clause that lifts documents holding the unquoted words side by side. */
const PROXIMITY_BOOST = 2;

/**
 * The most unquoted words that go into the proximity phrase: the first ones. Each word there costs a clause per
 * field again and the phrase reads positions: with all of them, a pasted paragraph of 300 words was 1,800
 * clauses, past the 1,024 a small Elasticsearch node allows (refused beyond ~170 words), and took about half
 * as long again as without. A search of up to this many words ranks as before; a longer one is lifted where
 * its first words stand side by side, as a pasted passage's do in the document it comes from.
 */
export const MAX_PROXIMITY_WORDS = 20;

interface SearchParts {
  words: string;
  phrases: string[];
}

/** Splits on double quotes; an unbalanced quote makes the rest of the input one phrase. */
export function splitSearch(search: string): SearchParts {
  const words: string[] = [];
  const phrases: string[] = [];
  search.split('"').forEach((part, index) => {
    const text = part.trim().replace(/\s+/g, ' ');
    if (text === '') return;
    if (index % 2 === 0) words.push(text);
    else phrases.push(text);
  });
  return { words: words.join(' '), phrases };
}

/** Whether a search has anything to search for: a blank one sorts and scores like no search at all. */
export function hasSearchTerms(search: string | undefined): boolean {
  if (search === undefined) return false;
  const { words, phrases } = splitSearch(search);
  return words !== '' || phrases.length > 0;
}

/**
 * cross_fields with operator and: every word must occur, but the words may be spread over title, description
 * and text (best_fields would demand them all in one field and miss "merkel" in the title plus "berlin" in
 * the text). The words also go into an optional phrase clause, so a document with them side by side, the
 * distinctive phrase, ranks above one where they are scattered (the first MAX_PROXIMITY_WORDS of them).
 * Returns undefined for a blank search.
 */
export function buildFullTextQuery(search: string): estypes.QueryDslQueryContainer | undefined {
  const { words, phrases } = splitSearch(foldApostrophes(search));
  const must: estypes.QueryDslQueryContainer[] = [];
  const should: estypes.QueryDslQueryContainer[] = [];
  if (words !== '') {
    must.push({
      multi_match: { query: words, fields: FULL_TEXT_FIELDS, type: 'cross_fields', operator: 'and' },
    });
    const split = words.split(' ');
    if (split.length > 1) {
      const query =
        split.length > MAX_PROXIMITY_WORDS ? split.slice(0, MAX_PROXIMITY_WORDS).join(' ') : words;
      should.push({
        multi_match: { query, fields: FULL_TEXT_FIELDS, type: 'phrase', boost: PROXIMITY_BOOST },
      });
    }
  }
  for (const phrase of phrases) {
    must.push({ multi_match: { query: phrase, fields: FULL_TEXT_FIELDS, type: 'phrase' } });
  }
  if (must.length === 0) return undefined;
  return { bool: should.length > 0 ? { must, should } : { must } };
}

/** Clauses a word of search costs: one per field; as many again for each in the proximity phrase. */
export const CLAUSES_PER_SEARCH_WORD = FULL_TEXT_FIELDS.length;

/**
 * The 400 of a search Elasticsearch refused for more clauses than its node allows (`limit`, which only its
 * refusal names: it depends on the node's heap and cores). The words of `search` and of text filter values
 * are what makes clauses (keyword, number and date values of a term list are one clause for the list).
 */
export function tooManyClausesMessage(limit: number): string {
  return (
    `The search and filters make a query of more clauses than Elasticsearch allows: at most ${limit} ` +
    `(each word of search counts ${CLAUSES_PER_SEARCH_WORD}, each of its first ${MAX_PROXIMITY_WORDS} words ` +
    `${CLAUSES_PER_SEARCH_WORD} more, each word of a text filter value 1); ` +
    'use fewer words or values'
  );
}
