import {
  describeIssues,
  enrichmentCommands,
  enrichmentRequest,
  enrichmentSettings,
  MAX_ENTITIES,
  parseEnrichmentAnswer,
} from '../../src/domain/enrichment';
import { ProjectConfigSchema, type ProjectConfig } from '../../src/domain/project-config';

const config = (enrichment: unknown): ProjectConfig =>
  ProjectConfigSchema.parse({ settings: { handle: 'demo' }, enrichment });

const issuesOf = (enrichment: unknown) => {
  const parsed = ProjectConfigSchema.safeParse({ settings: { handle: 'demo' }, enrichment });
  return parsed.success ? [] : parsed.error.issues.map((issue) => [issue.path.join('.'), issue.message]);
};

describe('the enrichment section of the project config', () => {
  it('when enrichment is enabled without a URL, or with a URL that is not http(s), then the config is refused', () => {
    expect(issuesOf({ enabled: true })).toEqual([
      ['enrichment.url', 'is required when enrichment is enabled'],
    ]);
    expect(issuesOf({ enabled: true, url: 'file:///etc/passwd' })).toEqual([
      ['enrichment.url', 'must be an http or https URL'],
    ]);
    expect(issuesOf({ enabled: false })).toEqual([]);
  });

  it('when the timeout is out of bounds or the labels property is the entities property, then the config is refused', () => {
    const url = 'https://enrich.example.com/hook';
    expect(issuesOf({ enabled: true, url, timeoutMs: 50 }).map(([path]) => path)).toEqual([
      'enrichment.timeoutMs',
    ]);
    expect(issuesOf({ enabled: true, url, timeoutMs: 60_000 }).map(([path]) => path)).toEqual([
      'enrichment.timeoutMs',
    ]);
    expect(issuesOf({ enabled: true, url, labelsProperty: 'entities' })).toEqual([
      ['enrichment.labelsProperty', 'must differ from property'],
    ]);
    expect(issuesOf({ enabled: true, url, property: 'tags', labelsProperty: 'entities' })).toEqual([]);
  });

  it('when enrichment is enabled, then its settings carry the defaults; otherwise there are none', () => {
    expect(enrichmentSettings(config({ enabled: true, url: 'http://127.0.0.1:9/x' }))).toEqual({
      url: 'http://127.0.0.1:9/x',
      timeoutMs: 5000,
      property: 'entities',
    });
    expect(
      enrichmentSettings(
        config({
          enabled: true,
          url: 'http://e/x',
          timeoutMs: 800,
          property: 'tags',
          labelsProperty: 'tagNames',
        }),
      ),
    ).toEqual({ url: 'http://e/x', timeoutMs: 800, property: 'tags', labelsProperty: 'tagNames' });
    expect(enrichmentSettings(config({ enabled: false, url: 'http://e/x' }))).toBeUndefined();
    expect(enrichmentSettings(config(undefined))).toBeUndefined();
  });
});

describe('enrichmentRequest', () => {
  it('when a document is sent, then the service gets its title, description, language and content text', () => {
    const request = enrichmentRequest(
      { id: 3, handle: 'demo' },
      {
        id: 12,
        contentType: 'regular',
        metadata: {
          title: 'A <b>bold</b> title',
          description: 'Short',
          language: { locale: 'de' },
          flag: 'x',
        },
        content: [
          { id: 'c1', component: 'paragraph', content: { text: '<p>One &amp; two</p>' } },
          {
            id: 'c2',
            component: 'image',
            content: { image: { url: 'https://x/y.jpg' }, caption: 'Caption' },
          },
        ],
      },
    );
    expect(request).toEqual({
      projectId: 3,
      projectHandle: 'demo',
      documentId: 12,
      contentType: 'regular',
      language: 'de',
      title: 'A bold title',
      description: 'Short',
      text: 'One & two\nCaption',
    });
  });

  it('when the document has no title, description or language, then they are left out', () => {
    const request = enrichmentRequest(
      { id: 3, handle: 'demo' },
      { id: 1, contentType: 'page', metadata: { language: 'en' }, content: [] },
    );
    expect(request).toEqual({
      projectId: 3,
      projectHandle: 'demo',
      documentId: 1,
      contentType: 'page',
      text: '',
    });
  });
});

describe('parseEnrichmentAnswer', () => {
  it('when the answer is an entity list, then its entities come out trimmed and without unknown keys', () => {
    expect(
      parseEnrichmentAnswer({
        entities: [
          { type: ' person ', label: 'Ada Lovelace', id: 'Q7259', score: 0.9, extra: true },
          { type: 'place', label: 'London' },
        ],
        took: 12,
      }),
    ).toEqual({
      ok: true,
      value: [
        { type: 'person', label: 'Ada Lovelace', id: 'Q7259', score: 0.9 },
        { type: 'place', label: 'London' },
      ],
    });
    expect(parseEnrichmentAnswer({ entities: [] })).toEqual({ ok: true, value: [] });
  });

  it('when the answer is nonsense, then every problem is named by its path', () => {
    const checked = parseEnrichmentAnswer({
      entities: [{ type: '', label: 'x' }, { label: 'y' }, { type: 't', label: 'z', score: 2 }, 'w'],
    });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(describeIssues(checked.issues)).toBe(
      'entities.0.type: must not be empty; entities.1.type: is required; entities.2.score: must be <= 1; ' +
        'entities.3: must be an object',
    );
    expect(parseEnrichmentAnswer(null).ok).toBe(false);
    expect(parseEnrichmentAnswer([]).ok).toBe(false);
    expect(
      parseEnrichmentAnswer({
        entities: Array.from({ length: MAX_ENTITIES + 1 }, () => ({ type: 't', label: 'l' })),
      }).ok,
    ).toBe(false);
  });

  it('when a label holds what Postgres cannot store, or the answer nests deeply, then it is refused before its shape', () => {
    const nul = parseEnrichmentAnswer({ entities: [{ type: 't', label: 'a\u0000' }] });
    expect(nul).toEqual({
      ok: false,
      issues: [{ path: ['entities', 0, 'label'], message: 'must not contain the NUL character (U+0000)' }],
    });
    let deep: unknown = 'x';
    for (let i = 0; i < 20; i += 1) deep = [deep];
    expect(parseEnrichmentAnswer({ entities: [], deep }).ok).toBe(false);
  });

  it('when more than five problems are found, then the line says how many more', () => {
    const checked = parseEnrichmentAnswer({ entities: Array.from({ length: 8 }, () => 'x') });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(describeIssues(checked.issues)).toMatch(/ \(and 3 more\)$/);
  });
});

describe('enrichmentCommands', () => {
  const ada = { type: 'person', label: 'Ada Lovelace' };
  const london = { type: 'place', label: 'London' };

  it('when the entities are new, then one setMetadataProperty writes them and one their distinct labels', () => {
    expect(
      enrichmentCommands({ title: 'T' }, [ada, london, { ...ada, id: 'Q1' }], {
        property: 'entities',
        labelsProperty: 'tags',
      }),
    ).toEqual([
      {
        operation: 'setMetadataProperty',
        propertyName: 'entities',
        value: [ada, london, { ...ada, id: 'Q1' }],
      },
      { operation: 'setMetadataProperty', propertyName: 'tags', value: ['Ada Lovelace', 'London'] },
    ]);
  });

  it('when a property already holds the value, then it gets no command', () => {
    const metadata = { entities: [{ label: 'London', type: 'place' }], tags: ['Old'] };
    expect(enrichmentCommands(metadata, [london], { property: 'entities', labelsProperty: 'tags' })).toEqual([
      { operation: 'setMetadataProperty', propertyName: 'tags', value: ['London'] },
    ]);
    expect(enrichmentCommands({ entities: [london] }, [london], { property: 'entities' })).toEqual([]);
  });

  it('when the service finds nothing, then the property is set to an empty list (enriched, nothing found)', () => {
    expect(enrichmentCommands({ entities: [ada] }, [], { property: 'entities' })).toEqual([
      { operation: 'setMetadataProperty', propertyName: 'entities', value: [] },
    ]);
  });
});
