import { z } from 'zod';
import { perVersion } from '../../../domain/api-versions';
import { listAnswer, pagedExtra } from '../../answers';
import { emptyMeansDefault, integerParam } from '../../query-params';

export const MAX_LIMIT = 100;
export const MAX_OFFSET = 10_000;

/**
 * The query of every incoming-references endpoint (api-spec §4.12, §4.13, §4.18, §4.20; the documents' and
 * the media library's): limit (default and max 100), offset (max 10000) and, from 2026-01, `after`: a cursor
 * this server signed for the endpoint and its target, opened by the route (`openIncomingCursor`), which knows
 * the target from the path. `target` names it in the description of `after` ('document', 'entry').
 */
export const incomingReferencesQueryOf = (target: string) =>
  perVersion((version) =>
    z
      .strictObject({
        limit: emptyMeansDefault(integerParam(0, MAX_LIMIT).default(MAX_LIMIT)),
        offset: emptyMeansDefault(integerParam(0, MAX_OFFSET).default(0).describe('not with after')),
        after: version.wrapsLists
          ? z
              .string()
              .min(1, { message: 'must not be empty' })
              .optional()
              .describe(`the cursor of the previous page (instead of offset), on the same ${target}`)
          : z
              .never({
                error: `is not available in API version ${version.label}; cursors exist from 2026-01`,
              })
              .optional(),
      })
      .refine((query) => query.after === undefined || query.offset === 0, {
        message: 'use after or offset, not both: a cursor already says where the page starts',
        path: ['after'],
      }),
  );

export const incomingReferencesQuery = incomingReferencesQueryOf('document');

/** api-spec §2.9: a document pointing at the document, with every reference it makes to it. */
export const incomingDocumentReferenceAnswer = z
  .strictObject({
    id: z.number().int().describe('the referencing document'),
    references: z.array(
      z.strictObject({
        componentId: z.string().optional(),
        componentName: z.string().optional(),
        directiveName: z.string().optional(),
        id: z.string().describe('the referenced document'),
        location: z.enum(['metadata', 'link-directive', 'include-directive']),
        propertyName: z.string().optional().describe('metadata property or include parameter'),
        serviceName: z.string().optional().describe('include service'),
        type: z.literal('document'),
      }),
    ),
  })
  .meta({ id: 'IncomingDocumentReference' });

/** api-spec §2.9: a media library entry whose metadata (or a translation's) points at the document. */
export const incomingMediaReferenceAnswer = z
  .strictObject({
    id: z.string().describe('the media library entry'),
    references: z.array(
      z.strictObject({
        id: z.string().describe('the referenced document'),
        location: z.literal('metadata'),
        propertyName: z.string(),
        type: z.literal('document'),
      }),
    ),
  })
  .meta({ id: 'IncomingMediaReference' });

const cursorText = 'signs the id of the last item';

/** documents/{id}/incomingDocumentReferences and drafts/{id}/incomingDocumentReferences. */
export const incomingDocumentReferencesAnswer = listAnswer(
  incomingDocumentReferenceAnswer,
  pagedExtra(cursorText),
);

/** documents/{id}/incomingMediaReferences. */
export const incomingMediaReferencesAnswer = listAnswer(incomingMediaReferenceAnswer, pagedExtra(cursorText));
