import { z } from 'zod';
import { perVersion } from '../../../domain/api-versions';

/**
 * The answers made of document views (`buildDocumentView`, src/domain/document-view.ts): latestPublication,
 * latestDraft, latestPublications, publications/search, document lists and composition. The OpenAPI
 * description is generated from these (components Systemdata, Component, Reference, Document) and the tests
 * parse real answers with them.
 */

const dateTime = z.iso.datetime();

/** api-spec §2.1 and supplement §4: dates the document has not reached yet are left out. */
export const systemdataAnswer = z
  .strictObject({
    projectId: z.number().int(),
    channelId: z.number().int(),
    documentId: z.number().int(),
    publicationId: z.number().int().optional().describe('absent on a draft (latestDraft)'),
    documentType: z.enum(['article', 'page', 'data-record']),
    contentType: z.string(),
    layout: z.string().optional(),
    design: z.strictObject({ name: z.string(), version: z.string() }).optional(),
    firstPublicationDate: dateTime.optional(),
    significantPublicationDate: dateTime.optional(),
    visiblePublicationDate: dateTime.optional(),
    lastPublicationDate: dateTime.optional().describe('the time of the latest publish'),
    updatedAt: dateTime.describe(
      "a publication's: the document's updated_at as of the publish, kept with it (a later edit of the draft does not move it); latestDraft's: the draft's",
    ),
    version: z
      .number()
      .int()
      .optional()
      .describe(
        "latestDraft only: the draft's version; send it as a commands request's `version` to have the request refused (409) when the draft changed since",
      ),
  })
  .meta({ id: 'Systemdata' });

/** api-spec §2.3: free-form, its keys come from the project config. */
export const metadataAnswer = z
  .record(z.string(), z.unknown())
  .describe('free-form: keys and values depend on the project config (api-spec §2.3)');

const openObject = z.record(z.string(), z.unknown());

/**
 * One component of a content tree (api-spec §2.2). The tree is the editor's: directive values are arbitrary
 * JSON and a component may carry keys beyond these, so the object stays open; only the nesting is pinned.
 */
export const componentAnswer = z
  .looseObject({
    id: z.string().optional().describe('doc-<token>; a page component may have none'),
    component: z.string().optional().describe('component name'),
    identifier: z.string().optional().describe('<design_name>.<component_name>'),
    content: openObject.optional().describe('directive values (arbitrary JSON)'),
    styles: openObject.optional(),
    get containers(): z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodArray<typeof componentAnswer>>> {
      return z.record(z.string(), z.array(componentAnswer)).optional();
    },
    position: z.string().optional(),
    conditions: z
      .looseObject({
        dateTime: z
          .looseObject({
            gte: z.string().optional(),
            gt: z.string().optional(),
            lte: z.string().optional(),
            lt: z.string().optional(),
          })
          .optional(),
        brands: z.array(z.string()).optional(),
      })
      .optional()
      .describe('component conditions (supplement §6)'),
  })
  .meta({ id: 'Component' });

export const contentAnswer = z.array(componentAnswer);

/** api-spec §2.4, supplement §4: one per referenced document, and the language group. */
export const referenceAnswer = z
  .strictObject({
    id: z.string(),
    type: z.enum(['document', 'language-group']),
    location: z.literal('metadata'),
    propertyName: z.string(),
  })
  .meta({ id: 'Reference' });

const documentShape = {
  systemdata: systemdataAnswer.optional(),
  metadata: metadataAnswer.optional(),
  content: contentAnswer.optional(),
  references: z.array(referenceAnswer).optional(),
};

/** A document view: the fields asked for (`fields`, each route's default otherwise). */
export const documentAnswer = z
  .strictObject(documentShape)
  .describe('the fields asked for (fields); each route has its default')
  .meta({ id: 'Document' });

/** api-spec §2.5 (only up to 2025-07): what the content looks like through a rendition handle. */
export const renditionAnswer = z
  .strictObject({ handle: z.string(), content: z.string().describe('HTML') })
  .meta({ id: 'Rendition' });

/** A view with the renditions asked for (up to 2025-07). */
const documentWithRenditionsAnswer = z
  .strictObject({
    ...documentShape,
    renditions: z.array(renditionAnswer).optional().describe('the renditions asked for'),
  })
  .describe('the fields asked for (fields), and renditions when asked for');

/** GET documents/{id}/latestPublication and latestDraft: a view, with `renditions` when asked (up to 2025-07). */
export const documentViewAnswer = perVersion((version) =>
  version.atMost('2025-07') ? documentWithRenditionsAnswer : documentAnswer,
);

/** GET documents/{id}/latestPublication/renditions/{renditionHandles} (up to 2025-07). */
export const renditionsAnswer = z.array(renditionAnswer);
