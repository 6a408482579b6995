import { AppError } from '../../src/domain/errors';
import type { IndexedMetadata } from '../../src/domain/search-filters';
import { parseSortSpec, resolveSort } from '../../src/domain/search-sort';
import { valueOrThrow } from '../../src/domain/validation';

/** What the request says (the edge) then its fields against the indexed metadata (the read), keyed `sort`. */
function parseSort(raw: string | undefined, opts: { hasSearch: boolean; indexedMetadata: IndexedMetadata }) {
  const spec = valueOrThrow(parseSortSpec(raw, opts.hasSearch), 'sort');
  return valueOrThrow(resolveSort(spec, opts.indexedMetadata), 'sort');
}

const METADATA: IndexedMetadata = {
  author: 'keyword',
  teaser: 'text',
  rating: 'integer',
  score: 'float',
  eventDate: 'date',
  featured: 'boolean',
};

const plain = { hasSearch: false, indexedMetadata: METADATA };
const searching = { hasSearch: true, indexedMetadata: METADATA };

const DATE_LAST_ASC = 8_640_000_000_000_000;
const DATE_LAST_DESC = -8_640_000_000_000_000;
const tiebreaker = { documentId: { order: 'asc', missing: Number.MAX_SAFE_INTEGER, unmapped_type: 'long' } };

function sortError(raw: string | undefined, opts = plain): string {
  try {
    parseSort(raw, opts);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const { status, details } = error as AppError;
    expect(status).toBe(400);
    expect(Object.keys(details).sort()).toEqual(['name', 'sort']);
    return String(details.sort);
  }
  throw new Error('expected a validation error');
}

describe('parseSort', () => {
  describe('when no sort is given', () => {
    it.each([[undefined], [''], ['   ']])(
      'then without search %p sorts newest first by sortDate, documentId',
      (raw) => {
        expect(parseSort(raw, plain)).toEqual({
          sort: [
            { sortDate: { order: 'desc', missing: DATE_LAST_DESC, unmapped_type: 'date' } },
            { documentId: { order: 'desc', missing: -Number.MAX_SAFE_INTEGER, unmapped_type: 'long' } },
          ],
          fields: ['-sortDate', '-documentId'],
          valueKinds: ['integer', 'integer'],
        });
      },
    );

    it('then with search it sorts by relevance first', () => {
      expect(parseSort(undefined, searching)).toEqual({
        sort: [
          { _score: { order: 'desc' } },
          { sortDate: { order: 'desc', missing: DATE_LAST_DESC, unmapped_type: 'date' } },
          { documentId: { order: 'desc', missing: -Number.MAX_SAFE_INTEGER, unmapped_type: 'long' } },
        ],
        fields: ['relevance', '-sortDate', '-documentId'],
        valueKinds: ['score', 'integer', 'integer'],
      });
    });
  });

  describe('when a field is given', () => {
    it.each([
      ['sortDate', 'sortDate'],
      ['firstPublicationDate', 'firstPublicationDate'],
      ['lastPublicationDate', 'lastPublicationDate'],
      ['significantPublicationDate', 'significantPublicationDate'],
      ['visiblePublicationDate', 'visiblePublicationDate'],
      ['publishControl.embargo.until', 'publishControl.embargo.until'],
      ['metadata.eventDate', 'meta_date.eventDate'],
    ])('then the date %s puts documents without it last in both orders', (name, field) => {
      expect(parseSort(name, plain).sort[0]).toEqual({
        [field]: { order: 'asc', missing: DATE_LAST_ASC, unmapped_type: 'date' },
      });
      expect(parseSort(`-${name}`, plain).sort[0]).toEqual({
        [field]: { order: 'desc', missing: DATE_LAST_DESC, unmapped_type: 'date' },
      });
    });

    it.each([
      ['contentType', 'contentType', 'keyword'],
      ['metadata.author', 'meta_keyword.author', 'keyword'],
      ['metadata.score', 'meta_float.score', 'float'],
    ])('then %s uses Elasticsearch _last, whose sentinels survive JSON', (name, field, type) => {
      expect(parseSort(`-${name}`, plain).sort[0]).toEqual({
        [field]: { order: 'desc', missing: '_last', unmapped_type: type },
      });
      expect(parseSort(name, plain).sort[0]).toEqual({
        [field]: { order: 'asc', missing: '_last', unmapped_type: type },
      });
    });

    it('then an integer is sorted as a long, so documents without it come after 2147483647 and before -2147483648', () => {
      // Elasticsearch's _last on an integer is Integer.MAX/MIN_VALUE, a value a document may hold: the two tied.
      expect(parseSort('metadata.rating', plain).sort[0]).toEqual({
        'meta_integer.rating': {
          order: 'asc',
          missing: Number.MAX_SAFE_INTEGER,
          unmapped_type: 'integer',
          numeric_type: 'long',
        },
      });
      expect(parseSort('-metadata.rating', plain).sort[0]).toEqual({
        'meta_integer.rating': {
          order: 'desc',
          missing: -Number.MAX_SAFE_INTEGER,
          unmapped_type: 'integer',
          numeric_type: 'long',
        },
      });
    });

    it('then a boolean puts documents without it after true and false', () => {
      expect(parseSort('metadata.featured', plain).sort[0]).toEqual({
        'meta_boolean.featured': { order: 'asc', missing: 2, unmapped_type: 'boolean' },
      });
      expect(parseSort('-metadata.featured', plain).sort[0]).toEqual({
        'meta_boolean.featured': { order: 'desc', missing: -1, unmapped_type: 'boolean' },
      });
    });

    it('then documentId is appended ascending as the final tiebreaker', () => {
      expect(parseSort('-visiblePublicationDate', plain)).toEqual({
        sort: [
          { visiblePublicationDate: { order: 'desc', missing: DATE_LAST_DESC, unmapped_type: 'date' } },
          tiebreaker,
        ],
        fields: ['-visiblePublicationDate', 'documentId'],
        valueKinds: ['integer', 'integer'],
      });
      expect(parseSort('contentType,metadata.rating', plain).fields).toEqual([
        'contentType',
        'metadata.rating',
        'documentId',
      ]);
    });

    it('then a documentId given anywhere is kept where it is and not appended again', () => {
      expect(parseSort('-documentId', plain)).toEqual({
        sort: [{ documentId: { order: 'desc', missing: -Number.MAX_SAFE_INTEGER, unmapped_type: 'long' } }],
        fields: ['-documentId'],
        valueKinds: ['integer'],
      });
      expect(parseSort('documentId,-sortDate', plain).fields).toEqual(['documentId', '-sortDate']);
    });

    it('then each entry names the kind of value Elasticsearch sorts it by, which a cursor must carry', () => {
      expect(
        parseSort('contentType,metadata.score,metadata.author,metadata.featured,-metadata.eventDate', plain)
          .valueKinds,
      ).toEqual(['keyword', 'float', 'keyword', 'integer', 'integer', 'integer']);
    });

    it('then spaces around entries are ignored', () => {
      expect(parseSort(' -sortDate , contentType ', plain).fields).toEqual([
        '-sortDate',
        'contentType',
        'documentId',
      ]);
    });

    it('then relevance with a search term is _score descending', () => {
      expect(parseSort('relevance', searching)).toEqual({
        sort: [{ _score: { order: 'desc' } }, tiebreaker],
        fields: ['relevance', 'documentId'],
        valueKinds: ['score', 'integer'],
      });
      expect(parseSort('-sortDate,relevance', searching).fields).toEqual([
        '-sortDate',
        'relevance',
        'documentId',
      ]);
    });

    it('then a search does not force relevance into an explicit sort', () => {
      expect(parseSort('-sortDate', searching).fields).toEqual(['-sortDate', 'documentId']);
    });
  });

  describe('when the sort is invalid, then it is a 400 keyed sort', () => {
    it('relevance without a search term', () => {
      expect(sortError('relevance')).toBe(
        "sorting by 'relevance' needs a search term; pass search or sort by another field",
      );
      expect(sortError('-sortDate,relevance')).toContain('needs a search term');
    });

    it('descending relevance', () => {
      expect(sortError('-relevance', searching)).toContain("'-relevance' is not supported");
    });

    it('an unknown field, listing the sortable ones (indexed non-text metadata only)', () => {
      expect(sortError('title')).toBe(
        "unknown sort field 'title'; sortable fields are relevance, sortDate, documentId, contentType, " +
          'firstPublicationDate, lastPublicationDate, significantPublicationDate, visiblePublicationDate, ' +
          'publishControl.embargo.until, metadata.author, metadata.rating, metadata.score, metadata.eventDate, ' +
          'metadata.featured',
      );
    });

    it.each([
      ['metadata.missing'],
      ['metadata.'],
      ['metadata.constructor'],
      ['meta_keyword.author'],
      ['statistics.characterCount'],
      ['publishControl.embargo.enforced'],
      ['_score'],
      ['+sortDate'],
      ['--sortDate'],
      ['SortDate'],
    ])('the unsortable field %p', (raw) => {
      expect(sortError(raw, searching)).toContain('unknown sort field');
    });

    it('a text metadata field', () => {
      expect(sortError('-metadata.teaser')).toBe("'metadata.teaser' is a text field and cannot be sorted");
    });

    it.each([['sortDate,sortDate'], ['sortDate,-sortDate'], ['-documentId,documentId']])(
      'the duplicate %p',
      (raw) => {
        expect(sortError(raw)).toContain('is given more than once');
      },
    );

    it('a duplicate relevance', () => {
      expect(sortError('relevance,relevance', searching)).toBe("'relevance' is given more than once");
    });

    it.each([['sortDate,'], [',sortDate'], ['sortDate,,documentId'], ['-'], [' , ']])(
      'the empty entry in %p',
      (raw) => {
        expect(sortError(raw)).toContain('is empty; expected a field name');
      },
    );
  });
});
