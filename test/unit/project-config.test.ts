import { MAX_CATEGORY_ID_LENGTH } from '../../src/domain/categories';
import {
  indexedMetadataFields,
  MAX_INDEXED_METADATA_FIELDS,
  NewProjectConfigSchema,
  ProjectConfigSchema,
} from '../../src/domain/project-config';

const contentType = (handle: string, metadata: unknown[]) => ({ handle, documentType: 'article', metadata });
const config = (...contentTypes: unknown[]) => ({ settings: { handle: 'p' }, contentTypes });

describe('NewProjectConfigSchema, indexed metadata', () => {
  it('when two content types index the same field with different types, then it is refused at the second, yet a stored one still reads', () => {
    // The search has one field per name (metadata.flag): indexedMetadataFields kept the last type, so the other
    // content type's values were dropped from the index and its filters and sorts were refused.
    const conflicting = config(
      contentType('regular', [{ handle: 'flag', type: 'string', index: true }]),
      contentType('page', [
        { handle: 'title', type: 'string' },
        { handle: 'flag', type: 'integer', index: true },
      ]),
    );
    const result = NewProjectConfigSchema.safeParse(conflicting);
    expect(result.error?.issues.map((issue) => [issue.path.join('/'), issue.message])).toEqual([
      [
        'contentTypes/1/metadata/1/type',
        "'flag' is indexed as integer here but as keyword in content type 'regular': an indexed metadata field has one type across content types",
      ],
    ]);
    expect(ProjectConfigSchema.safeParse(conflicting).success).toBe(true);
  });

  it('when content types index a field with the same type, or only one of them indexes it, then the config is accepted', () => {
    const agreeing = config(
      contentType('regular', [
        { handle: 'flag', type: 'string', index: true },
        { handle: 'rank', type: 'integer', index: true },
      ]),
      contentType('page', [
        { handle: 'flag', type: 'string', index: true },
        { handle: 'rank', type: 'string' },
      ]),
    );
    const parsed = NewProjectConfigSchema.parse(agreeing);
    expect(indexedMetadataFields(parsed)).toEqual({ flag: 'keyword', rank: 'integer' });
  });

  it('when a config indexes more than MAX_INDEXED_METADATA_FIELDS distinct fields, then it is refused at the first one past the limit; a handle indexed by several content types counts once', () => {
    // Each indexed handle is a field of the search index every project shares (total_fields.limit): a config
    // could declare thousands and fill it for all projects.
    const fields = (from: number, count: number) =>
      Array.from({ length: count }, (_, n) => ({ handle: `f${from + n}`, type: 'string', index: true }));
    const atLimit = config(
      contentType('regular', fields(0, MAX_INDEXED_METADATA_FIELDS)),
      contentType('page', [...fields(0, 10), { handle: 'notIndexed', type: 'string' }]),
    );
    expect(NewProjectConfigSchema.safeParse(atLimit).success).toBe(true);
    const over = config(
      contentType('regular', fields(0, MAX_INDEXED_METADATA_FIELDS - 1)),
      contentType('page', fields(MAX_INDEXED_METADATA_FIELDS - 1, 3)),
    );
    const result = NewProjectConfigSchema.safeParse(over);
    expect(result.error?.issues.map((issue) => [issue.path.join('/'), issue.message])).toEqual([
      [
        'contentTypes/1/metadata/1/index',
        `'f${MAX_INDEXED_METADATA_FIELDS}' would be indexed metadata field number ${MAX_INDEXED_METADATA_FIELDS + 1}: a project indexes at most ${MAX_INDEXED_METADATA_FIELDS} (the search index all projects share has a limit of fields)`,
      ],
    ]);
    expect(ProjectConfigSchema.safeParse(over).success).toBe(true);
  });
});

describe('NewProjectConfigSchema, category ids', () => {
  const withId = (id: string) => ({ ...config(), categories: [{ id, label: 'L', path: '/l' }] });
  const issuesOf = (id: string) =>
    NewProjectConfigSchema.safeParse(withId(id)).error?.issues.map((issue) => [
      issue.path.join('/'),
      issue.message,
    ]);

  it('when a category id is longer than MAX_CATEGORY_ID_LENGTH, then it is refused at the id; at the limit it is accepted', () => {
    expect(issuesOf('c'.repeat(MAX_CATEGORY_ID_LENGTH + 1))).toEqual([
      ['categories/0/id', `must be at most ${MAX_CATEGORY_ID_LENGTH} characters long`],
    ]);
    expect(issuesOf('c'.repeat(MAX_CATEGORY_ID_LENGTH))).toBeUndefined();
  });

  it("when a category id is '.' or '..', then it is refused: no URL of GET categories/{categoryId} can name it", () => {
    for (const id of ['.', '..']) {
      expect(issuesOf(id)).toEqual([
        ['categories/0/id', "cannot be '.' or '..': no URL can name it in GET categories/{categoryId}"],
      ]);
    }
    expect(issuesOf('...')).toBeUndefined();
  });

  it('when a stored config has such ids, then it still reads', () => {
    for (const id of ['c'.repeat(MAX_CATEGORY_ID_LENGTH + 1), '..']) {
      expect(ProjectConfigSchema.safeParse(withId(id)).success).toBe(true);
    }
  });
});
