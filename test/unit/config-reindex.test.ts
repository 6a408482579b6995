import { ProjectConfigSchema } from '../../src/domain/project-config';
import { reindexedByConfigChange } from '../../src/search/document-builder';

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

const reindexed = (change: (config: Config) => void, from: Config = base) => {
  const config = structuredClone(from);
  change(config);
  return reindexedByConfigChange(ProjectConfigSchema.parse(from), ProjectConfigSchema.parse(config));
};

describe('reindexedByConfigChange: whose search documents a config change changes', () => {
  it('when only what search documents do not show changes (labels, categories, brands, field order), then none', () => {
    expect(reindexed((config) => (config.settings.label = 'Renamed'))).toEqual([]);
    expect(reindexed((config) => (config.categories = []))).toEqual([]);
    expect(reindexed((config) => (config.brands = [{ handle: 'ch', isDefault: true }]))).toEqual([]);
    expect(reindexed((config) => config.contentTypes[0]!.metadata.reverse())).toEqual([]);
    expect(reindexed((config) => config.contentTypes.reverse())).toEqual([]);
    expect(
      reindexed((config) => config.contentTypes[0]!.metadata.push({ handle: 'body', type: 'text' })),
    ).toEqual([]);
  });

  it('when a field is indexed, unindexed or indexed as another type, or a sortDateField changes, then all', () => {
    expect(reindexed((config) => (config.contentTypes[0]!.metadata[0]!.index = true))).toBe('all');
    expect(reindexed((config) => delete config.contentTypes[0]!.metadata[1]!.index)).toBe('all');
    expect(reindexed((config) => (config.contentTypes[0]!.metadata[1]!.type = 'integer'))).toBe('all');
    expect(reindexed((config) => (config.contentTypes[0]!.sortDateField = 'publishDate'))).toBe('all');
    expect(
      reindexed((config) => {
        config.contentTypes[0]!.sortDateField = 'publishDate';
        config.settings.homepageDocumentId = 4;
      }),
    ).toBe('all');
  });

  it('when only the homepage is set, moved or unset, then the old and the new homepage', () => {
    const withHomepage: Config = { ...base, settings: { ...base.settings, homepageDocumentId: 4 } };
    expect(reindexed((config) => (config.settings.homepageDocumentId = 4))).toEqual([4]);
    expect(reindexed((config) => (config.settings.homepageDocumentId = 9), withHomepage)).toEqual([4, 9]);
    expect(reindexed((config) => delete config.settings.homepageDocumentId, withHomepage)).toEqual([4]);
    expect(reindexed((config) => (config.settings.label = 'Renamed'), withHomepage)).toEqual([]);
  });
});
