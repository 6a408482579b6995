/**
 * The generated corpus the search and import benches share: the same project, and document g's texts and
 * fields by one formula, written out in SQL for the search bench's seed (Postgres generates the rows) and in
 * JavaScript for the import bench's file (the same documents, as import lines). Change them here, and both
 * benches keep measuring the same documents.
 */

export const VOCABULARY = (
  'election budget glacier harbour orchestra vaccine railway drought festival senate referendum ' +
  'museum bakery tunnel pension striker goalkeeper inflation startup satellite volcano wildfire ' +
  'parliament minister hospital teacher farmer tourism bridge airport vineyard avalanche marathon ' +
  'climate energy solar wind nuclear coal carbon forest river lake mountain valley village city ' +
  'council mayor police court judge verdict prison border customs export import market shares bank ' +
  'currency franc euro dollar rent housing tenant landlord school student exam university research ' +
  'science robot software privacy data hacker password network mobile phone camera cinema theatre ' +
  'novel poet painter gallery auction fashion design architect chef restaurant wine cheese chocolate'
).split(' ');

/** Document g's flag and category are the (g mod 3)th of these; its priority is g mod 100. */
export const FLAGS = ['red', 'blue', 'green'] as const;
const CATEGORIES = [
  { id: 'news', label: 'News', path: '/news' },
  { id: 'sport', label: 'Sport', path: '/sport' },
  { id: 'culture', label: 'Culture', path: '/culture' },
] as const;
export const CATEGORY_IDS = CATEGORIES.map((category) => category.id);

/** Each text of a document: its salt in the word formula and its length in words. */
export const TEXTS = {
  title: { salt: 31, words: 6 },
  paragraph1: { salt: 17, words: 60 },
  paragraph2: { salt: 13, words: 60 },
  caption: { salt: 11, words: 8 },
} as const;
type Text = (typeof TEXTS)[keyof typeof TEXTS];

/** A stride prime to the vocabulary's length, so a text's words spread over all of it. */
const STRIDE = 7919;

/** The project both benches create: a regular article with a title, two indexed fields and a category. */
export function corpusProjectConfig(handle: string, label: string) {
  return {
    settings: { handle, label },
    contentTypes: [
      {
        handle: 'regular',
        documentType: 'article',
        metadata: [
          { handle: 'title', type: 'string' },
          { handle: 'flag', type: 'string', index: true },
          { handle: 'priority', type: 'integer', index: true },
          { handle: 'category', type: 'category' },
        ],
      },
    ],
    categories: CATEGORIES.map((category) => ({ ...category })),
  };
}

/** Document g's text: word i (from 1) is the vocabulary's (g·salt + i·STRIDE)th. */
export function corpusText(g: number, text: Text): string {
  const out: string[] = [];
  for (let i = 1; i <= text.words; i++)
    out.push(VOCABULARY[(g * text.salt + i * STRIDE) % VOCABULARY.length]!);
  return out.join(' ');
}

/** The same text in SQL, for the row `g` of a generate_series, with the vocabulary as the text[] `vocabulary`. */
export function corpusTextSql(text: Text, vocabulary: string): string {
  return `(SELECT string_agg((${vocabulary}::text[])[1 + ((g * ${text.salt} + i * ${STRIDE}) % ${VOCABULARY.length})], ' ')
      FROM generate_series(1, ${text.words}) i)`;
}

/**
 * The corpus's dates run from 2020-01-01 (UTC) and end before 2026: the bench's widget publishes "now", and a
 * corpus dated in the future would keep those publications out of every newest-first list.
 */
const CORPUS_SPAN_MINUTES = 6 * 365 * 24 * 60;

/** Minutes between two documents' first publications in a corpus of `count`: 17, or less where 17 would reach 2026. */
export function corpusStepMinutes(count: number): number {
  return Math.min(17, CORPUS_SPAN_MINUTES / count);
}

/** Document g's first publication in a corpus of `count`: one step after the one before, from 2020-01-01 (UTC). */
export function corpusDate(g: number, count: number): Date {
  return new Date(Date.UTC(2020, 0, 1) + g * corpusStepMinutes(count) * 60_000);
}

/** The same date in SQL, for the row `g` of a generate_series (the same instant in a UTC session). */
export function corpusDateSql(count: number): string {
  return `timestamptz '2020-01-01' + g * interval '${corpusStepMinutes(count) * 60} seconds'`;
}

/** A text[] literal of these words, for SQL that picks the (g mod n)th: `(ARRAY[...])[1 + g % n]`. */
export function sqlArray(values: readonly string[]): string {
  return `ARRAY[${values.map((value) => `'${value.replaceAll("'", "''")}'`).join(',')}]`;
}
