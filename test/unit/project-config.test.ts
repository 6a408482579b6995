import { MAX_CATEGORY_ID_LENGTH } from '../../src/domain/categories';
import {
  indexedMetadataFields,
  MAX_CONFIG_LABEL_LENGTH,
  MAX_INDEXED_METADATA_FIELDS,
  MAX_LOCALE_LENGTH,
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

  it('when a category id is made of emoji, then its characters are counted, not its UTF-16 code units', () => {
    // An emoji is one character but two code units of a JS string: 129 of them were refused as 258 characters.
    const emoji = '\u{1F4F0}';
    expect(issuesOf(emoji.repeat(MAX_CATEGORY_ID_LENGTH))).toBeUndefined();
    expect(issuesOf(`${'c'.repeat(MAX_CATEGORY_ID_LENGTH - 1)}${emoji}`)).toBeUndefined();
    expect(issuesOf(emoji.repeat(MAX_CATEGORY_ID_LENGTH + 1))).toEqual([
      ['categories/0/id', `must be at most ${MAX_CATEGORY_ID_LENGTH} characters long`],
    ]);
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

describe('NewProjectConfigSchema, labels and locales', () => {
  const over = 'L'.repeat(MAX_CONFIG_LABEL_LENGTH + 1);
  const longLocale = `de-${'x'.repeat(MAX_LOCALE_LENGTH - 2)}`;
  const withTexts = (label: string, locale: string) => ({
    settings: {
      handle: 'p',
      label,
      languages: {
        available: [
          { locale: 'de', label },
          { locale, label: 'Other' },
        ],
        defaultLanguage: 'de',
      },
    },
    contentTypes: [
      { handle: 'a', documentType: 'article', label, metadata: [{ handle: 'm', type: 'string', label }] },
    ],
    categories: [{ id: 'c', label, path: '/c' }],
    brands: [{ handle: 'b', label }],
  });
  const issuesOf = (config: unknown) =>
    NewProjectConfigSchema.safeParse(config)
      .error?.issues.map((issue) => [issue.path.join('/'), issue.message])
      .sort(([a], [b]) => String(a).localeCompare(String(b)));

  it('when a label or a locale is too long, then it is refused at its path; a stored config with them still reads', () => {
    // Labels and locales had no limit: a config could carry megabytes of label, answered by every config read.
    const labelProblem = `must be at most ${MAX_CONFIG_LABEL_LENGTH} characters long`;
    expect(issuesOf(withTexts(over, longLocale))).toEqual([
      ['brands/0/label', labelProblem],
      ['categories/0/label', labelProblem],
      ['contentTypes/0/label', labelProblem],
      ['contentTypes/0/metadata/0/label', labelProblem],
      ['settings/label', labelProblem],
      ['settings/languages/available/0/label', labelProblem],
      ['settings/languages/available/1/locale', `must be at most ${MAX_LOCALE_LENGTH} characters long`],
    ]);
    expect(ProjectConfigSchema.safeParse(withTexts(over, longLocale)).success).toBe(true);
  });

  it('when labels and locales are at their limits, counted in characters (emoji are one), then the config is accepted', () => {
    const emoji = '\u{1F4F0}'.repeat(MAX_CONFIG_LABEL_LENGTH);
    expect(issuesOf(withTexts(emoji, longLocale.slice(0, MAX_LOCALE_LENGTH)))).toBeUndefined();
  });
});
