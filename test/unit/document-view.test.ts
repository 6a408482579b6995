import { buildDocumentView, pickFields, type ViewSource } from '../../src/domain/document-view';
import type { Content } from '../../src/domain/content';

const source: ViewSource = {
  projectId: 1,
  channelId: 2,
  documentId: 3,
  documentType: 'article',
  contentType: 'regular',
  layout: null,
  designName: null,
  designVersion: null,
  metadata: { title: 'Views', authors: { $ref: 'documents', references: [{ id: '77' }] } },
  content: [
    {
      id: 'doc-link',
      component: 'paragraph',
      identifier: 'test-design.paragraph',
      content: { text: 'See <a data-document-id="88">this</a>' },
    },
  ] as Content,
  updatedAt: new Date('2026-01-02T03:04:05Z'),
  firstPublicationDate: null,
  lastPublicationDate: null,
  significantPublicationDate: null,
  visiblePublicationDateOverride: null,
};

describe('buildDocumentView', () => {
  it('when references are asked for, then the metadata references are in the view, in the answer order of fields', () => {
    const view = buildDocumentView(source, { references: true });
    expect(view.references).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: '77', location: 'metadata' })]),
    );
    expect(Object.keys(pickFields(view, ['references', 'systemdata']))).toEqual(['references', 'systemdata']);
  });

  it('when references are not asked for, then the view has none and the rest is the same', () => {
    const without = buildDocumentView(source, { references: false });
    expect(without).not.toHaveProperty('references');
    const { references: _, ...rest } = buildDocumentView(source, { references: true });
    expect(without).toEqual(rest);
  });
});
