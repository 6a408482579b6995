import { publishDocument } from '../../src/commands/publish-document';
import type { AppContext } from '../../src/context';
import { withTransaction } from '../../src/db/pool';
import { documentReferenceQueries } from '../../src/db/queries/document-references';
import { documentQueries, type DocumentRow } from '../../src/db/queries/documents';
import type { Content, Metadata } from '../../src/domain/content';
import { extractReferences } from '../../src/domain/references';

export interface DraftDocumentInput {
  projectId: number;
  channelId: number;
  documentType?: 'article' | 'page' | 'data-record';
  contentType?: string;
  metadata?: Metadata;
  content?: Content;
}

/** A few components of TEST_DESIGN, one of each directive kind the commands touch. */
export function buildContent(): Content {
  return [
    { id: 'doc-title', component: 'title', identifier: 'test-design.title', content: { title: 'Hello' } },
    {
      id: 'doc-para',
      component: 'paragraph',
      identifier: 'test-design.paragraph',
      content: { text: 'First' },
    },
    {
      id: 'doc-link',
      component: 'link-box',
      identifier: 'test-design.link-box',
      content: { link: { href: 'https://example.com' }, text: 'Link' },
    },
    {
      id: 'doc-embed',
      component: 'embed',
      identifier: 'test-design.embed',
      content: { teaser: { service: 'teaser', params: { size: 'large' } } },
    },
    {
      id: 'doc-styled',
      component: 'styled',
      identifier: 'test-design.styled',
      content: { appearance: { color: 'red' }, text: 'Styled' },
      styles: { margin: 'small' },
    },
  ] as Content;
}

/** Inserts a never-published document straight into Postgres (the way an import would leave it). */
export async function createDraftDocument(ctx: AppContext, input: DraftDocumentInput): Promise<DocumentRow> {
  const metadata = input.metadata ?? { title: 'A draft' };
  const content = input.content ?? buildContent();
  const result = await ctx.pool.query<{ id: number }>(
    `INSERT INTO documents (project_id, channel_id, document_type, content_type, design_name, design_version,
       metadata, content)
     VALUES ($1, $2, $3, $4, 'test-design', '1.0.0', $5, $6) RETURNING id`,
    [
      input.projectId,
      input.channelId,
      input.documentType ?? 'article',
      input.contentType ?? 'regular',
      JSON.stringify(metadata),
      JSON.stringify(content),
    ],
  );
  const id = result.rows[0]!.id;
  const references = extractReferences(metadata, content).rows;
  await documentReferenceQueries(ctx.pool).replace(input.projectId, id, { draft: references });
  return (await documentQueries(ctx.pool).findById(input.projectId, id))!;
}

/**
 * A draft published once through the real publish path (publication, dates, event, index job), returned as
 * its row; documents.ts has the id-returning createPublishedDocument used by the read-side tests.
 */
export async function createPublishedDraft(ctx: AppContext, input: DraftDocumentInput): Promise<DocumentRow> {
  const draft = await createDraftDocument(ctx, input);
  await withTransaction(ctx.pool, async (tx) => {
    const row = await documentQueries(tx).findByIdForUpdate(draft.projectId, draft.id);
    await publishDocument(tx, ctx.boss, row!, { now: new Date() });
  });
  return (await documentQueries(ctx.pool).findById(draft.projectId, draft.id))!;
}
