import { randomUUID } from 'node:crypto';
import { withTransaction, type Pool } from '../db/pool';
import {
  deliveryReportQueries,
  type DeliveryReportFields,
  type DeliveryReportRow,
} from '../db/queries/delivery-reports';
import { documentQueries } from '../db/queries/documents';
import { publicationQueries } from '../db/queries/publications';
import { AppError } from '../domain/errors';
import { loadSanitizeHtml } from '../domain/html-render';
import { noOpener } from '../domain/new-tab-links';

export interface AddDeliveryStatusInput extends Omit<DeliveryReportFields, 'message'> {
  projectId: number;
  documentId: number;
  reportId?: string;
  message?: string;
  now: Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TAG_START = /<\/?[a-z!]/i;

/**
 * Whether a message has markup: a tag start (`<p`, `</b`, `<!--`) with a `>` somewhere after it. The same
 * answer as `/<\/?[a-z!][^>]*>/i`, in one pass: that expression rescanned the rest of the message from every
 * tag start, 150 ms of blocked event loop for the 10,000 characters `<a<a<a...` a message may have.
 */
export function looksLikeHtml(message: string): boolean {
  const start = message.search(TAG_START);
  return start >= 0 && message.includes('>', start);
}

/**
 * A plain-text message is stored exactly as given; one that contains markup is sanitised: scripts, styles,
 * event handler attributes and javascript: URLs are removed, ordinary formatting and links stay, a link to a
 * new tab with rel="noopener noreferrer".
 */
export function sanitiseMessage(message: string): string {
  if (!looksLikeHtml(message)) return message;
  const sanitize = loadSanitizeHtml();
  return sanitize(message, {
    allowedTags: sanitize.defaults.allowedTags,
    allowedAttributes: { a: ['href', 'title', 'target', 'rel'] },
    allowedSchemes: ['http', 'https', 'mailto'],
    disallowedTagsMode: 'discard',
    transformTags: { a: noOpener },
  });
}

/**
 * POST documents/{documentId}/addDeliveryStatus (api-spec §3.1, §4.10): without reportId a new report,
 * with one an update of that report of the same document (unknown → 404). The publicationId must be one of
 * this document's publications; another document's publication is a 400 on `publicationId`.
 */
export async function addDeliveryStatus(
  pool: Pool,
  input: AddDeliveryStatusInput,
): Promise<DeliveryReportRow> {
  return withTransaction(pool, async (tx) => {
    // Held until the commit: a document deleted meanwhile is a 404, not a foreign key error on the insert.
    const document = await documentQueries(tx).findByIdForKeyShare(input.projectId, input.documentId);
    if (document === undefined) throw AppError.notFound(`Document ${input.documentId} not found`);
    const publication = await publicationQueries(tx).findById(input.projectId, input.publicationId);
    if (publication === undefined || publication.documentId !== document.id) {
      throw AppError.validation({ publicationId: `is not a publication of document ${document.id}` });
    }
    const fields = {
      projectId: input.projectId,
      documentId: input.documentId,
      publicationId: input.publicationId,
      deliveryHandle: input.deliveryHandle,
      status: input.status,
      message: input.message === undefined ? null : sanitiseMessage(input.message),
      userChoices: input.userChoices,
      now: input.now,
    };
    const reports = deliveryReportQueries(tx);
    if (input.reportId === undefined) return reports.insert({ ...fields, reportId: randomUUID() });

    const notFound = AppError.notFound(
      `Delivery report ${input.reportId} not found for document ${document.id}`,
    );
    if (!UUID.test(input.reportId)) throw notFound;
    const updated = await reports.update({ ...fields, reportId: input.reportId });
    if (updated === undefined) throw notFound;
    return updated;
  });
}
