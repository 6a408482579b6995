import { createHash } from 'node:crypto';
import type { IndexSourceRow } from '../../src/db/queries/index-sources';
import { ProjectConfigSchema } from '../../src/domain/project-config';
import { buildSearchDocument, SEARCH_DOCUMENT_VERSION } from '../../src/search/document-builder';
import { loadLivingTimesDesign, loadPublications } from '../helpers/fixtures';

/**
 * Rebuilds reuse stored search documents built by the same SEARCH_DOCUMENT_VERSION (search_documents). If this
 * test fails, buildSearchDocument now makes something else from the same input: bump SEARCH_DOCUMENT_VERSION
 * (so stored documents are built again) and record the new fingerprint beside it. When the fixtures change
 * (test/fixtures/magazine) and the builder does not, record the new fingerprint and leave the version alone.
 */
const RECORDED = { version: 6, fingerprint: 'mlBUtAhdkSgaGW4arTa0jqtPgQb1I4XQXDjr268urgM' };

const config = ProjectConfigSchema.parse({
  settings: { handle: 'magazine', label: 'Magazine', homepageDocumentId: 301 },
  contentTypes: [
    {
      handle: 'regular',
      documentType: 'article',
      sortDateField: 'publishDate',
      metadata: [
        { handle: 'title', type: 'string', index: true },
        { handle: 'readingTime', type: 'integer', index: true },
        { handle: 'publishDate', type: 'date', index: true },
      ],
    },
  ],
});

function rows(): IndexSourceRow[] {
  const declaredComponents = new Set(loadLivingTimesDesign().components.map((component) => component.name));
  return loadPublications().map((publication, n) => {
    const at = new Date(Date.UTC(2025, 0, 1 + n));
    return {
      projectId: 1,
      documentId: publication.systemdata.documentId,
      channelId: 1,
      indexVersion: 1,
      updatedAt: at,
      firstPublicationDate: at,
      lastPublicationDate: at,
      significantPublicationDate: at,
      visiblePublicationDateOverride: null,
      embargoSet: n % 7 === 0,
      embargoUntil: n % 7 === 0 ? new Date(Date.UTC(2030, 0, 1)) : null,
      publicationId: 1000 + n,
      publishedAt: at,
      contentType: publication.systemdata.contentType,
      documentType: publication.systemdata.documentType,
      layout: publication.systemdata.layout ?? null,
      designName: 'living-times',
      designVersion: '1.0.4',
      metadata: publication.metadata,
      content: publication.content,
      projectConfig: config,
      projectRevision: 1,
      declaredComponents,
    };
  });
}

describe('SEARCH_DOCUMENT_VERSION', () => {
  it('when the builder makes the same documents from the magazine fixtures, then the version need not move', () => {
    const hash = createHash('sha256');
    for (const row of rows()) hash.update(`${JSON.stringify(buildSearchDocument(row, config))}\n`);
    expect({ version: SEARCH_DOCUMENT_VERSION, fingerprint: hash.digest('base64url') }).toEqual(RECORDED);
  });
});
