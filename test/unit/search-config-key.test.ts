import { ProjectConfigSchema } from '../../src/domain/project-config';
import { searchConfigKey } from '../../src/search/document-builder';

interface Config {
  settings: { handle: string; label: string; homepageDocumentId?: number };
  contentTypes: {
    handle: string;
    documentType: string;
    sortDateField?: string;
    metadata: { handle: string; type: string; index?: boolean }[];
  }[];
  categories: unknown[];
  brands?: unknown[];
}

const base: Config = {
  settings: { handle: 'p', label: 'P' },
  contentTypes: [
    {
      handle: 'regular',
      documentType: 'article',
      metadata: [
        { handle: 'title', type: 'string' },
        { handle: 'flag', type: 'string', index: true },
        { handle: 'publishDate', type: 'date', index: true },
      ],
    },
    { handle: 'page', documentType: 'page', metadata: [{ handle: 'title', type: 'string' }] },
  ],
  categories: [{ id: 'news', label: 'News', path: '/news' }],
};

const keyOf = (change: (config: Config) => void) => {
  const config = structuredClone(base);
  change(config);
  return searchConfigKey(ProjectConfigSchema.parse(config));
};

describe('searchConfigKey: what of a config the search documents are built from', () => {
  const unchanged = keyOf(() => {});

  it('when only what search documents do not show changes (labels, categories, brands, field order), then the key stays', () => {
    expect(keyOf((config) => (config.settings.label = 'Renamed'))).toBe(unchanged);
    expect(keyOf((config) => (config.categories = []))).toBe(unchanged);
    expect(keyOf((config) => (config.brands = [{ handle: 'ch', isDefault: true }]))).toBe(unchanged);
    expect(keyOf((config) => config.contentTypes[0]!.metadata.reverse())).toBe(unchanged);
    expect(keyOf((config) => config.contentTypes.reverse())).toBe(unchanged);
    expect(keyOf((config) => config.contentTypes[0]!.metadata.push({ handle: 'body', type: 'text' }))).toBe(
      unchanged,
    );
  });

  it('when a field is indexed, unindexed or indexed as another type, a sortDateField or the homepage changes, then the key changes', () => {
    const changed = [
      keyOf((config) => (config.contentTypes[0]!.metadata[0]!.index = true)),
      keyOf((config) => delete config.contentTypes[0]!.metadata[1]!.index),
      keyOf((config) => (config.contentTypes[0]!.metadata[1]!.type = 'integer')),
      keyOf((config) => (config.contentTypes[0]!.sortDateField = 'publishDate')),
      keyOf((config) => (config.settings.homepageDocumentId = 4)),
    ];
    for (const key of changed) expect(key).not.toBe(unchanged);
    expect(new Set(changed).size).toBe(changed.length);
  });
});
