import type { Content } from '../../src/domain/content';
import { extractReferences } from '../../src/domain/references';
import { loadPublication } from '../helpers/fixtures';

describe('extractReferences: metadata', () => {
  it('when metadata holds a list of documents, then each becomes an API reference and a row', () => {
    const result = extractReferences(
      { authors: { $ref: 'documents', references: [{ id: '12' }, { id: 14 }] } },
      [],
    );
    expect(result.documents).toEqual([
      { id: '12', type: 'document', location: 'metadata', propertyName: 'authors' },
      { id: '14', type: 'document', location: 'metadata', propertyName: 'authors' },
    ]);
    expect(result.rows).toEqual([
      { targetType: 'document', targetId: '12', location: 'metadata', propertyName: 'authors' },
      { targetType: 'document', targetId: '14', location: 'metadata', propertyName: 'authors' },
    ]);
  });

  it('when a single reference is preloaded, then only its id counts, not the preloaded document', () => {
    const result = extractReferences(
      {
        mainAuthor: {
          $ref: 'document',
          isPreloaded: true,
          reference: { id: 7 },
          value: {
            metadata: { friend: { $ref: 'document', reference: { id: 99 } } },
            systemdata: { documentId: 7 },
          },
        },
      },
      [],
    );
    expect(result.documents).toEqual([
      { id: '7', type: 'document', location: 'metadata', propertyName: 'mainAuthor' },
    ]);
    expect(result.rows.map((row) => row.targetId)).toEqual(['7']);
  });

  it('when metadata has a language group, then it is an API reference but not a stored row', () => {
    const result = extractReferences({ language: { groupId: 'grp-1', label: 'German', locale: 'de' } }, []);
    expect(result.documents).toEqual([
      { id: 'grp-1', type: 'language-group', location: 'metadata', propertyName: 'language' },
    ]);
    expect(result.rows).toEqual([]);
  });

  it('when the language has no group, then nothing is referenced', () => {
    expect(extractReferences({ language: { locale: 'de' } }, []).documents).toEqual([]);
  });

  it('when metadata references media, then it is a media row and not an API reference', () => {
    const result = extractReferences(
      {
        teaserImage: { mediaId: 'img-1', url: 'https://example.test/a.jpg', crops: [] },
        poster: { $ref: 'mediaLibrary', reference: { id: 'img-2' } },
        video: { $ref: 'media', reference: { id: 'vid-1' } },
      },
      [],
    );
    expect(result.documents).toEqual([]);
    expect(result.rows).toEqual([
      { targetType: 'media', targetId: 'img-1', location: 'metadata', propertyName: 'teaserImage' },
      { targetType: 'media', targetId: 'img-2', location: 'metadata', propertyName: 'poster' },
      { targetType: 'media', targetId: 'vid-1', location: 'metadata', propertyName: 'video' },
    ]);
  });

  it('when references sit deeper inside a metadata property, then they are found under that property', () => {
    const result = extractReferences(
      {
        related: {
          items: [{ doc: { $ref: 'document', reference: { id: '3' } } }, { image: { mediaId: 5 } }],
        },
      },
      [],
    );
    expect(result.rows).toEqual([
      { targetType: 'document', targetId: '3', location: 'metadata', propertyName: 'related' },
      { targetType: 'media', targetId: '5', location: 'metadata', propertyName: 'related' },
    ]);
  });

  it('when the same document is referenced twice in a property, then it is listed once', () => {
    const result = extractReferences(
      { authors: { $ref: 'documents', references: [{ id: '1' }, { id: 1 }] } },
      [],
    );
    expect(result.documents).toHaveLength(1);
    expect(result.rows).toHaveLength(1);
  });

  it('when the same document is referenced by two properties, then each property lists it', () => {
    const result = extractReferences(
      {
        authors: { $ref: 'documents', references: [{ id: '1' }] },
        editor: { $ref: 'document', reference: { id: '1' } },
      },
      [],
    );
    expect(result.documents.map((reference) => reference.propertyName)).toEqual(['authors', 'editor']);
  });

  it('when references are malformed, then they are skipped', () => {
    const result = extractReferences(
      {
        a: { $ref: 'documents', references: [{}, { id: null }, { id: '' }, 'x', { id: {} }] },
        b: { $ref: 'document' },
        c: { $ref: 'document', reference: 'nope' },
        d: { $ref: 'unknown', reference: { id: '1' } },
        e: { mediaId: '' },
        f: null,
        title: 'Just a string',
      },
      [],
    );
    expect(result).toEqual({ documents: [], rows: [] });
  });
});

describe('extractReferences: content', () => {
  it('when a directive links a document, then it is a link-directive row naming the component', () => {
    const content: Content = [
      {
        id: 'doc-a',
        identifier: 'living-times.link-box',
        content: { link: { $ref: 'document', reference: { id: 42 }, href: '/x', target: '_blank' } },
      },
    ];
    expect(extractReferences({}, content)).toEqual({
      documents: [],
      rows: [
        {
          targetType: 'document',
          targetId: '42',
          location: 'link-directive',
          componentId: 'doc-a',
          componentName: 'link-box',
          directiveName: 'link',
        },
      ],
    });
  });

  it('when an include passes a document as a parameter, then it is an include-directive row with the service', () => {
    const content: Content = [
      {
        id: 'doc-b',
        component: 'teaser',
        content: {
          embed: {
            service: 'teaser-list',
            params: {
              main: { $ref: 'document', reference: { id: '8' } },
              more: { $ref: 'documents', references: [{ id: '9' }] },
              layout: 'card',
            },
          },
        },
      },
    ];
    expect(extractReferences({}, content).rows).toEqual([
      {
        targetType: 'document',
        targetId: '8',
        location: 'include-directive',
        propertyName: 'main',
        componentId: 'doc-b',
        componentName: 'teaser',
        directiveName: 'embed',
        serviceName: 'teaser-list',
      },
      {
        targetType: 'document',
        targetId: '9',
        location: 'include-directive',
        propertyName: 'more',
        componentId: 'doc-b',
        componentName: 'teaser',
        directiveName: 'embed',
        serviceName: 'teaser-list',
      },
    ]);
  });

  it('when an image directive carries a media id, then it is an image-directive media row', () => {
    const content: Content = [
      {
        id: 'doc-c',
        identifier: 'living-times.image',
        content: {
          image: { mediaId: 'abc-1', url: 'https://example.test/x.jpg' },
          other: { $ref: 'mediaLibrary', reference: { id: 'abc-2' } },
        },
      },
    ];
    expect(extractReferences({}, content).rows).toEqual([
      {
        targetType: 'media',
        targetId: 'abc-1',
        location: 'image-directive',
        componentId: 'doc-c',
        componentName: 'image',
        directiveName: 'image',
      },
      {
        targetType: 'media',
        targetId: 'abc-2',
        location: 'image-directive',
        componentId: 'doc-c',
        componentName: 'image',
        directiveName: 'other',
      },
    ]);
  });

  it('when components are nested in containers, then their references are found too', () => {
    const content: Content = [
      {
        id: 'doc-outer',
        identifier: 'd.container',
        containers: {
          main: [
            {
              id: 'doc-inner',
              identifier: 'd.link',
              content: { l: { $ref: 'document', reference: { id: 1 } } },
            },
          ],
        },
      },
    ];
    expect(extractReferences({}, content).rows.map((row) => row.componentId)).toEqual(['doc-inner']);
  });

  it('when a component has no id, then its rows simply carry no componentId', () => {
    const content: Content = [
      {
        identifier: 'd.link',
        content: { l: { $ref: 'document', reference: { id: 1 } } },
      } as unknown as Content[number],
    ];
    const [row] = extractReferences({}, content).rows;
    expect(row).toEqual({
      targetType: 'document',
      targetId: '1',
      location: 'link-directive',
      componentName: 'link',
      directiveName: 'l',
    });
  });

  it('when text directives contain HTML links, then they are not references', () => {
    const content: Content = [
      { id: 'doc-p', identifier: 'd.paragraph', content: { text: '<a href="/doc/3">x</a>' } },
    ];
    expect(extractReferences({}, content).rows).toEqual([]);
  });

  it('when the same link appears twice in one directive slot, then it is stored once; in two components, twice', () => {
    const link = { $ref: 'document', reference: { id: '5' } };
    const content: Content = [
      { id: 'doc-1', identifier: 'd.link', content: { l: link } },
      { id: 'doc-2', identifier: 'd.link', content: { l: link } },
      { id: 'doc-1', identifier: 'd.link', content: { l: link } },
    ];
    expect(extractReferences({}, content).rows.map((row) => row.componentId)).toEqual(['doc-1', 'doc-2']);
  });
});

describe('extractReferences: fixtures', () => {
  it('when reading an article with an author, then the author is its one API reference', () => {
    const { metadata, content } = loadPublication('articles/321.json');
    const result = extractReferences(metadata, content);
    expect(result.documents).toEqual([
      { id: '312', type: 'document', location: 'metadata', propertyName: 'authors' },
    ]);
  });

  it('when reading an article with teaser includes, then each teased document is an include-directive row', () => {
    const { metadata, content } = loadPublication('articles/321.json');
    const includes = extractReferences(metadata, content).rows.filter(
      (row) => row.location === 'include-directive',
    );
    expect(includes).toContainEqual({
      targetType: 'document',
      targetId: '312',
      location: 'include-directive',
      propertyName: 'mediaId',
      componentId: 'doc-3v8sc8o3w6',
      componentName: 'teaser-author',
      directiveName: 'embed',
      serviceName: 'teaser',
    });
    // The footer teaser stack has no component id but still references 322, 324, 327 and 330.
    const footer = includes.filter((row) => row.componentName === '2-col-teaser-stack');
    expect(footer.map((row) => row.targetId)).toEqual(['322', '324', '327', '330']);
    expect(footer.every((row) => row.componentId === undefined)).toBe(true);
    expect(includes.every((row) => typeof row.targetId === 'string')).toBe(true);
  });

  it('when reading an author record, then it references nothing', () => {
    const { metadata, content } = loadPublication('authors/312.json');
    expect(extractReferences(metadata, content)).toEqual({ documents: [], rows: [] });
  });

  it('when reading the homepage, then the same teased document in one slot is not repeated', () => {
    const { metadata, content } = loadPublication('pages/home.json');
    const { rows } = extractReferences(metadata, content);
    const keys = rows.map((row) => JSON.stringify(row));
    expect(new Set(keys).size).toBe(keys.length);
    expect(rows.length).toBeGreaterThan(0);
  });

  it('when the homepage hero names its teased document by reference, then that parameter is the row', () => {
    const { metadata, content } = loadPublication('pages/home.json');
    const hero = extractReferences(metadata, content).rows.filter(
      (row) => row.componentName === '1-teaser-row',
    );
    expect(hero).toEqual([
      {
        targetType: 'document',
        targetId: '321',
        location: 'include-directive',
        propertyName: 'document',
        componentName: '1-teaser-row',
        directiveName: 'teaser',
        serviceName: 'teaser',
      },
    ]);
  });

  it('when reading an article with a link box, then the linked document is a link-directive row only', () => {
    const { metadata, content } = loadPublication('articles/324.json');
    const result = extractReferences(metadata, content);
    expect(result.rows.filter((row) => row.location === 'link-directive')).toEqual([
      {
        targetType: 'document',
        targetId: '331',
        location: 'link-directive',
        componentId: 'doc-2ztkn8yqsx',
        componentName: 'link-box',
        directiveName: 'link',
      },
    ]);
    // Two authors, both in metadata; the link is content and not an API reference.
    expect(result.documents.map((reference) => reference.id)).toEqual(['314', '313']);
  });

  it('when two translations share a language group, then each names the group as an API reference and stores no row for it', () => {
    const english = loadPublication('articles/331.json');
    const german = loadPublication('articles/332.json');
    for (const { metadata, content } of [english, german]) {
      const result = extractReferences(metadata, content);
      expect(result.documents).toEqual([
        { id: '313', type: 'document', location: 'metadata', propertyName: 'authors' },
        { id: 'lg-tide-gauges', type: 'language-group', location: 'metadata', propertyName: 'language' },
      ]);
      expect(result.rows.some((row) => row.targetId === 'lg-tide-gauges')).toBe(false);
    }
  });

  it('when a gallery relates an article and shows library images, then both kinds of reference are rows', () => {
    const { metadata, content } = loadPublication('galleries/342.json');
    const result = extractReferences(metadata, content);
    expect(result.documents).toEqual([
      { id: '323', type: 'document', location: 'metadata', propertyName: 'relatedArticle' },
    ]);
    expect(result.rows.filter((row) => row.location === 'image-directive')).toEqual(
      ['lt-img-seagrass-02', 'lt-img-seagrass-03', 'lt-img-seagrass-04', 'lt-img-seagrass-05'].map(
        (targetId) => ({
          targetType: 'media',
          targetId,
          location: 'image-directive',
          componentId: expect.stringMatching(/^doc-/),
          componentName: 'asset-image',
          directiveName: 'image',
        }),
      ),
    );
  });
});
