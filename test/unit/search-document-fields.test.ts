import type { IndexSourceRow } from '../../src/db/queries/index-sources';
import { ProjectConfigSchema } from '../../src/domain/project-config';
import { buildSearchDocument } from '../../src/search/document-builder';

const config = ProjectConfigSchema.parse({
  settings: { handle: 'p', label: 'P' },
  contentTypes: [{ handle: 'regular', documentType: 'article', metadata: [] }],
});

function row(content: unknown[], declared: string[]): IndexSourceRow {
  const at = new Date(Date.UTC(2025, 0, 1));
  return {
    projectId: 1,
    documentId: 1,
    channelId: 1,
    indexVersion: 1,
    updatedAt: at,
    firstPublicationDate: at,
    lastPublicationDate: at,
    significantPublicationDate: at,
    visiblePublicationDateOverride: null,
    embargoSet: false,
    embargoUntil: null,
    publicationId: 1,
    publishedAt: at,
    contentType: 'regular',
    documentType: 'article',
    layout: null,
    designName: 'nope',
    designVersion: '9.9.9',
    metadata: {},
    content: content as IndexSourceRow['content'],
    projectConfig: config,
    projectRevision: 1,
    declaredComponents: new Set(declared),
  };
}

describe('statistics.componentCount of a search document', () => {
  it('when content names components no design of the project declares, then only the declared ones are counted', () => {
    const content = [
      { id: 'a', component: 'paragraph' },
      {
        id: 'b',
        component: 'container',
        containers: {
          main: [
            { id: 'c', component: 'paragraph' },
            { id: 'd', component: 'made-up' },
          ],
        },
      },
      { id: 'e', identifier: 'whatever.invented-1' },
      { id: 'f', component: 'dotted.name' },
    ];
    const document = buildSearchDocument(row(content, ['paragraph', 'container', 'dotted.name']), config);
    // A dotted name stays out even when declared: it would clash with another name's object path.
    expect(document?.statistics.componentCount).toEqual({ paragraph: 2, container: 1 });
  });

  it('when the project has no design, then no component becomes a field', () => {
    const document = buildSearchDocument(row([{ id: 'a', component: 'paragraph' }], []), config);
    expect(document?.statistics).toEqual({ characterCount: 0, componentCount: {} });
  });
});
