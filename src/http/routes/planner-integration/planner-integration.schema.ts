import { z } from 'zod';
import { isApiClientId } from '../../../domain/client-secrets';
import { PLANNER_TOKEN_SECONDS } from '../../../domain/planner-integration';
import { listAnswer } from '../../answers';
import { documentIdParam, documentIdValue } from '../../query-params';

/** `{documentId}` of planner-integration/publication/{documentId}. */
export const publicationDocumentParams = z.object({ documentId: documentIdParam });

/** Most documents one statuses request may ask for. */
export const MAX_STATUS_IDS = 100;

/** POST planner-integration/statuses: the documents whose publication state the tool wants. */
export const statusesBody = z.strictObject({
  documentIds: z.array(documentIdValue).min(1).max(MAX_STATUS_IDS),
});

/** Most bytes the tool's record of a publication may take as JSON. */
export const MAX_PUBLICATION_RECORD_BYTES = 64 * 1024;

const recordShape = {
  /** The tool's own id of the publication. */
  id: z
    .union([z.string().trim().min(1).max(200), z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)])
    .transform(String)
    .optional(),
  /** The tool's own status of the publication (its words, e.g. planned, ready). */
  status: z.string().trim().min(1).max(100).optional(),
};

const boundedRecord = (record: object, ctx: z.RefinementCtx) => {
  if (Buffer.byteLength(JSON.stringify(record), 'utf8') > MAX_PUBLICATION_RECORD_BYTES) {
    ctx.addIssue({
      code: 'custom',
      path: [],
      message: `must be at most ${MAX_PUBLICATION_RECORD_BYTES} bytes as JSON`,
    });
  }
};

/** PUT planner-integration/publication: the tool's record of a publication, naming the document it follows. */
export const followBody = z
  .looseObject({ ...recordShape, documentId: documentIdValue })
  .superRefine(boundedRecord);

/** PUT planner-integration/publication/{documentId}: the record; a documentId in it must be the path's. */
export const followDocumentBody = z
  .looseObject({ ...recordShape, documentId: documentIdValue.optional() })
  .superRefine(boundedRecord);

/**
 * The token request of a client-credentials grant (RFC 6749 §4.4.2), as a form or as JSON. Not strict: the
 * RFC has the server ignore parameters it does not know (§3.2).
 */
export const tokenBody = z.object({
  grant_type: z.literal('client_credentials', { error: "must be 'client_credentials'" }),
  scope: z
    .string()
    .optional()
    .refine(
      (scope) => scope === undefined || scope.split(' ').every((item) => item === '' || item === 'planner'),
      {
        message: "must be 'planner', the only scope these tokens carry",
      },
    ),
});

/**
 * RFC 6749 §3.1: no parameter of a token request is sent more than once. A form parses a repeated one into a
 * list, which tokenBody would refuse as the wrong value (`must be 'client_credentials'`, for the value sent):
 * each of its parameters given twice is named instead, or undefined when none is.
 */
export function repeatedTokenParams(form: unknown): Record<string, string> | undefined {
  if (typeof form !== 'object' || form === null) return undefined;
  const repeated = Object.keys(tokenBody.shape).filter((key) =>
    Array.isArray((form as Record<string, unknown>)[key]),
  );
  if (repeated.length === 0) return undefined;
  return Object.fromEntries(repeated.map((key) => [key, 'must be given once (RFC 6749 §3.1)']));
}

/**
 * HTTP Basic client credentials (RFC 6749 §2.3.1: client id and secret, each form-urlencoded, joined by a
 * colon, base64): the client id (an API client's id, a uuid) and its secret, or undefined when the header
 * does not hold them.
 */
export function basicCredentials(
  header: string | undefined,
): { clientId: string; secret: string } | undefined {
  const match = /^Basic +([A-Za-z0-9+/=_-]+) *$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    const formDecode = (text: string) => decodeURIComponent(text.replaceAll('+', ' '));
    const clientId = formDecode(decoded.slice(0, colon));
    const secret = formDecode(decoded.slice(colon + 1));
    return isApiClientId(clientId) && secret !== '' ? { clientId, secret } : undefined;
  } catch {
    return undefined;
  }
}

/** What POST planner-integration/oauth/token answers (RFC 6749 §5.1). */
export const tokenAnswer = z.strictObject({
  access_token: z.string().describe('send as Authorization: Bearer'),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().positive().max(PLANNER_TOKEN_SECONDS),
  scope: z.literal('planner'),
});

const dateTime = z.iso.datetime();

/** One document's publication state as the planning tool follows it (publicationStateOf). */
export const publicationStateAnswer = z
  .union([
    z
      .strictObject({ documentId: z.number().int(), status: z.literal('not-found') })
      .describe('no such document in the project'),
    z.strictObject({
      documentId: z.number().int(),
      status: z
        .enum(['draft', 'published', 'unpublished'])
        .describe('draft: never published; unpublished: was live'),
      publicationId: z.number().int().nullable().describe('the live publication; null unless published'),
      hasUnpublishedChanges: z.boolean().describe('published, and the draft changed since'),
      version: z.number().int(),
      updatedAt: dateTime,
      firstPublicationDate: dateTime.nullable(),
      lastPublicationDate: dateTime.nullable(),
      publishSchedule: dateTime.nullable(),
      unpublishSchedule: dateTime.nullable(),
      embargo: z.strictObject({ reason: z.string(), until: dateTime.nullable() }).nullable(),
      elementId: z.string().nullable().describe('the planner element linked to the document'),
      publication: z
        .record(z.string(), z.unknown())
        .nullable()
        .describe("the tool's record of the publication, as its last PUT publication sent it"),
    }),
  ])
  .meta({ id: 'PublicationState' });

/** POST planner-integration/statuses: the states in the order asked; `{results}` from 2026-01. */
export const statusesAnswer = listAnswer(publicationStateAnswer);
