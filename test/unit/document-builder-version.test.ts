import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { IndexSourceRow } from '../../src/db/queries/index-sources';
import type { Content, Metadata } from '../../src/domain/content';
import { ProjectConfigSchema } from '../../src/domain/project-config';
import { buildSearchDocument, SEARCH_DOCUMENT_VERSION } from '../../src/search/document-builder';

/**
 * Rebuilds reuse stored search documents built by the same SEARCH_DOCUMENT_VERSION (search_documents). If this
 * test fails, buildSearchDocument now makes something else from the same input: bump SEARCH_DOCUMENT_VERSION
 * (so stored documents are built again) and record the new fingerprint beside it.
 */
const RECORDED = { version: 2, fingerprint: 'HFeLkgR8dl4kme2-7FlTUfng9lpF_SlNzf0sycwoM2o' };

const FIXTURES = path.resolve(__dirname, '../../../shared/fixtures/magazine-example/publications');

const config = ProjectConfigSchema.parse({
  settings: { handle: 'magazine', label: 'Magazine', homepageDocumentId: 11 },
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
  const files = readdirSync(FIXTURES, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.json'))
    .sort();
  return files.map((file, n) => {
    const publication = JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8')) as {
      systemdata: { documentId: number; contentType: string; documentType: string; layout?: string };
      metadata: Metadata;
      content: Content;
    };
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
      contentType: publication.systemdata.contentType,
      documentType: publication.systemdata.documentType,
      layout: publication.systemdata.layout ?? null,
      designName: 'living-times',
      designVersion: '1.0.4',
      metadata: publication.metadata,
      content: publication.content,
      projectConfig: config,
      projectRevision: 1,
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
