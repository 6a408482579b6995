import { STATUS_CODES } from 'node:http';
import { z } from 'zod';
import {
  ALL_VERSION_LABELS,
  ApiVersion,
  VERSION_LABELS,
  type VersionLabel,
} from '../../../domain/api-versions';
import { requestSchema as commandRequestSchema } from '../../../domain/document-commands/schema';
import { AppError } from '../../../domain/errors';
import { ImportRequestSchema } from '../../../domain/import-request';
import { DOCUMENT_LIMITS, MAX_BODY_DEPTH } from '../../../domain/json-limits';
import { PLANNER_TOKEN_SECONDS } from '../../../domain/planner-integration';
import type { CursorCodec } from '../../../domain/search-cursor';
import { errorAnswer, listAnswer } from '../../answers';
import { bodyTooSlowMessage } from '../../middleware/body-deadline';
import { categoryAnswer, categoryItem, categoryParams, categoryQuery } from '../categories/categories.schema';
import { channelAnswer, channelParams } from '../channels/channels.schema';
import {
  compositionAnswer,
  compositionBodySchema,
  compositionParams,
} from '../composition/composition.schema';
import { designAnswer, designParams } from '../design/design.schema';
import { docsAssetParams } from '../docs/docs.schema';
import {
  documentListAnswer,
  documentListParams,
  documentListQuery,
  documentListsAnswer,
  documentListsQuery,
} from '../document-lists/document-lists.schema';
import { addDeliveryStatusBody, deliveryStatusAnswer } from '../documents/delivery-status.schema';
import { documentIdParams } from '../documents/document-commands.schema';
import { documentViewAnswer, renditionsAnswer } from '../documents/document-view.schema';
import {
  incomingDocumentReferencesAnswer,
  incomingMediaReferencesAnswer,
  incomingReferencesQuery,
} from '../documents/incoming-references.schema';
import { latestDraftQuery } from '../documents/latest-draft.schema';
import {
  latestPublicationQuery,
  renditionHandlesParams,
  renditionsQuery,
} from '../documents/latest-publication.schema';
import { latestPublicationsAnswer, latestPublicationsQuery } from '../documents/latest-publications.schema';
import { reEnrichAnswer, reEnrichBody } from '../enrichment/enrichment.schema';
import { livenessAnswer, readinessAnswer } from '../health/health.schema';
import { ImportStatusQuery, importStartedAnswer, importStatusAnswer } from '../import/import.schema';
import {
  importMediaBodyDescription,
  incomingReferencesQuery as mediaIncomingReferencesQuery,
  mediaEntryAnswer,
  mediaImportAnswer,
  mediaIncomingDocumentReferencesAnswer,
  mediaIncomingMediaReferencesAnswer,
  mediaListAnswer,
  mediaListQuery,
  mediaParams,
  mediaUploadAnswer,
  patchMediaBody,
  uploadQuery,
} from '../media-library/media-library.schema';
import { serveImageParams } from '../media-library/serve-image.schema';
import { menuAnswer, menusParams, menusQuery } from '../menus/menus.schema';
import {
  createElementBody,
  elementAnswer as elementAnswerSchema,
  elementDocumentParams,
  updateElementBody,
  updateLinkedElementBody,
} from '../planner/planner-element.schema';
import {
  followBody,
  followDocumentBody,
  publicationDocumentParams,
  publicationStateAnswer,
  statusesAnswer,
  statusesBody,
  tokenAnswer,
  tokenBody,
} from '../planner-integration/planner-integration.schema';
import { legacyProjectAnswer } from '../project/project.schema';
import {
  ApplyProjectConfigBody,
  applyProjectConfigAnswer,
  projectConfigAnswer,
} from '../project-config/project-config.schema';
import {
  publicationEventsAnswer,
  publicationEventsQuery,
} from '../publication-events/publication-events.schema';
import { searchAnswer, searchQuery } from '../publications/publications.schema';
import { openApiAnswer } from './openapi.schema';
import { checkPathParameters, parametersOf, type Converted } from './parameters';
import { inVersions } from './per-version';

/**
 * The OpenAPI 3.1 description of the API. Every JSON body, request and answer alike, is generated from the zod
 * schema the route validates with or the answer schema in the route's `*.schema.ts` (which the tests parse
 * real answers with), and every query and path parameter from the zod schema the route parses `req.query`
 * and `req.params` with (`parametersOf`), so the description cannot drift from what the server accepts and
 * answers. Only headers are described by hand.
 */
type Schema = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * An answer's schema from the zod schema that describes it (as the server sends it: `io: 'output'`); the
 * integration tests parse real answers with the same zod schema, so neither can drift. Schemas with
 * `.meta({ id })` become shared components of that name.
 */
const answer = (schema: z.ZodType, prefix: string, components: Record<string, Schema>): Schema =>
  fromZod(schema, prefix, components, 'output');

/**
 * Converts a zod schema and lifts its `$defs` into components under `prefix`. Two different schemas under one
 * component name are a mistake in the schemas, and refused.
 */
function fromZod(
  schema: z.ZodType,
  prefix: string,
  components: Record<string, Schema>,
  io: 'input' | 'output' = 'input',
): Schema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Schema & {
    $defs?: Record<string, Schema>;
  };
  const { $defs = {}, $schema: _ignored, ...rest } = json;
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([key, inner]) =>
          key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')
            ? [key, `#/components/schemas/${prefix}${inner.slice('#/$defs/'.length)}`]
            : [key, rewrite(inner)],
        ),
      );
    }
    return value;
  };
  for (const [name, def] of Object.entries($defs)) {
    const component = rewrite(def) as Schema;
    const known = components[`${prefix}${name}`];
    if (known && JSON.stringify(known) !== JSON.stringify(component)) {
      throw new Error(`Two different schemas are named ${prefix}${name} in the OpenAPI description`);
    }
    components[`${prefix}${name}`] = component;
  }
  return rewrite(rest) as Schema;
}

/**
 * A schema that differs by API version, generated for each from the zod schema the route validates (or
 * answers) that version with: a `oneOf` of version-marked alternatives (versions with the same schema share
 * one), of which each version's document keeps its own. Components of request bodies are named per version
 * (`<prefix><label>...`); an answer's shared components (`.meta({ id })`) keep their names.
 */
function versioned(
  build: (version: ApiVersion) => z.ZodType,
  prefix: string,
  components: Record<string, Schema>,
  io: 'input' | 'output' = 'input',
): Schema {
  const alternatives: { from: VersionLabel; to: VersionLabel; schema: Schema; text: string }[] = [];
  // An answer schema that versions share (the same zod object) is converted once.
  const converted = new Map<z.ZodType, Schema>();
  for (const label of VERSION_LABELS) {
    const zodSchema = build(ApiVersion.parse(label)!);
    let schema = io === 'output' ? converted.get(zodSchema) : undefined;
    if (!schema) {
      const names = io === 'input' ? `${prefix}${label.replace('-', '')}` : prefix;
      schema = fromZod(zodSchema, names, components, io);
      converted.set(zodSchema, schema);
    }
    const text = JSON.stringify(schema).replaceAll(label.replace('-', ''), '');
    const last = alternatives.at(-1);
    if (last && last.text === text) last.to = label;
    else alternatives.push({ from: label, to: label, schema, text });
  }
  if (alternatives.length === 1) return alternatives[0]!.schema;
  return {
    oneOf: alternatives.map(({ from, to, schema }) =>
      inVersions({ from, to }, { ...schema, description: from === to ? from : `${from} to ${to}` }),
    ),
  };
}

/** One error answer: the envelope, with an example of what the route really says (`details`). */
const errorAnswerOf = (
  status: number,
  details: Schema = ERROR_EXAMPLES[status] ?? { name: 'Error', message: STATUS_CODES[status] },
) => ({
  description: STATUS_CODES[status] ?? 'Error',
  content: {
    'application/json': {
      schema: ref('Error'),
      example: { status, error: STATUS_CODES[status], error_details: details },
    },
  },
});

const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [String(status), errorAnswerOf(status)]));

/**
 * What each error status says on most routes, as the app words it (test/integration/openapi holds every example
 * to its schema, and to the keys of a real answer of its operation): a token's 401 and 403 are keyed
 * access_token (supplement §2); a route whose error says something else passes its own (`errorAnswerOf`).
 */
const ERROR_EXAMPLES: Record<number, Schema> = {
  400: { name: 'ValidationError', limit: 'must be <= 100' },
  401: { access_token: 'The access token is missing.' },
  403: { access_token: 'The request requires higher privileges' },
  404: { name: 'NotFound', message: 'Document 42 not found' },
  409: {
    name: 'Conflict',
    message: 'The document you tried to update is outdated',
    expectedVersion: 3,
    currentVersion: 4,
  },
  408: {
    name: 'RequestTimeout',
    // The message of the default pace (BODY_TIMEOUT_MS, BODY_MIN_BYTES_PER_SECOND).
    message: bodyTooSlowMessage({ floorMs: 60_000, minBytesPerSecond: 16_384 }),
  },
  413: { name: 'PayloadTooLarge', message: 'The request body is larger than the limit of 5242880 bytes' },
  412: {
    name: 'PreconditionFailed',
    message: 'The image does not match If-Match or If-Unmodified-Since: it is not the version the client has',
  },
  415: {
    name: 'UnsupportedMediaType',
    message: 'The request body must be JSON: send it with Content-Type: application/json (got text/plain)',
  },
  416: {
    name: 'RangeNotSatisfiable',
    message: "The range 'bytes=900-' is outside the 800 bytes of the image",
  },
  500: {
    name: 'ConfigurationError',
    message: "Category 'deep' has more than 20 parents; metadata inheritance goes at most 20 levels deep",
  },
  // GET health/ready's (each dependency ok, red or unavailable); searches and every read with a token describe
  // their own 503s.
  503: {
    name: 'NotReady',
    message: 'A dependency is not ready',
    postgres: 'ok',
    elasticsearch: 'unavailable',
  },
};

/** A 503 in the envelope with its own error name: a dependency of the operation other than Postgres is away. */
const unavailableResponse = (name: string, when: string, message: string) => {
  const response = errors(503)['503'] as Schema;
  const content = response.content as Record<string, Schema>;
  return {
    ...response,
    description: `Service Unavailable: the envelope with name '${name}' when ${when}`,
    content: {
      'application/json': {
        ...content['application/json'],
        example: { status: 503, error: 'Service Unavailable', error_details: { name, message } },
      },
    },
  };
};

/** The 503 of a read answered from Elasticsearch (withDatabaseUnavailable adds Postgres' to it, as to every read). */
const searchUnavailable = () =>
  unavailableResponse(
    'SearchUnavailable',
    'Elasticsearch is unreachable',
    'Search is unavailable right now; try again in a few seconds',
  );

/** The 503 of an operation that reads or writes media bytes in the object store (S3 unreachable or failing). */
const storageUnavailable = () =>
  unavailableResponse(
    'StorageUnavailable',
    'the object store of media bytes cannot be reached, fails, or sends nothing for MEDIA_S3_TIMEOUT_MS (Retry-After)',
    AppError.storageUnavailable().message,
  );

/** A JSON answer or body; `example`, when given, must validate against `schema` (test/integration/openapi). */
const json = (schema: Schema, description = 'OK', example?: unknown) => ({
  description,
  content: { 'application/json': { schema, ...(example !== undefined && { example }) } },
});

/** A required JSON request body; `example`, when given, must validate against `schema` like an answer's. */
const body = (schema: Schema, description = 'The body', example?: unknown) => ({
  required: true,
  ...json(schema, description, example),
});

/**
 * Operations whose path another replaces (api-spec §9: planner replaces legacy-planner from 2025-05, projectConfig
 * the legacy project and channelConfig reads): deprecated in the versions that still have them.
 */
const replaced = (paths: Record<string, Record<string, object | undefined>>) =>
  Object.fromEntries(
    Object.entries(paths).map(([path, operations]) => [
      path,
      Object.fromEntries(
        Object.entries(operations).map(([method, operation]) => [method, { ...operation, deprecated: true }]),
      ),
    ]),
  );

/**
 * The group each operation is listed under (OpenAPI `tags`), by its path: the tags api-spec §4 names
 * (Document Categories §4.1, Publications §4.9, Add Delivery Status §4.10, Document Command API §4.11), and one
 * per resource for the operations it leaves untagged. Swagger UI (GET docs) lists an operation under its tag and
 * client generators name their API classes after it; without tags every operation was in one "default" group.
 * The first pattern that matches a path decides; every path must match one (tagged refuses a description
 * with an untagged path, as checkPathParameters does a slip in path parameters).
 */
const OPERATION_TAGS: readonly (readonly [RegExp, string])[] = [
  [/^\/documents\/\{documentId\}\/commands$/, 'Document Command API'],
  [/^\/documents\/\{documentId\}\/addDeliveryStatus$/, 'Add Delivery Status'],
  [/^\/categories(\/|$)/, 'Document Categories'],
  [
    /^\/(documents\/latestPublications|documents\/\{documentId\}\/latestPublication|publications\/)/,
    'Publications',
  ],
  [/^\/documents\/\{documentId\}\/latestDraft$/, 'Drafts'],
  [/^\/(documents|drafts)\/\{documentId\}\/incoming/, 'Incoming References'],
  [/^\/composition\//, 'Composition'],
  [/^\/document-lists(\/|$)/, 'Document Lists'],
  [/^\/publicationEvents(\/|$)/, 'Publication Events'],
  [/^\/design(\/|$)/, 'Design'],
  [/^\/menus(\/|$)/, 'Menus'],
  [/^\/(projectConfig|channelConfig|project|channels\/)/, 'Project Configuration'],
  [/^\/(mediaLibrary|import\/mediaLibrary$)/, 'Media Library'],
  [/^\/import\/documents/, 'Import'],
  [/^\/enrichment\//, 'Enrichment'],
  [/^\/(legacy-)?planner/, 'Planner'],
  [/^\/(health|openapi\.json$|docs)/, 'Service'],
];

/** Each operation of `paths` with its tag (OPERATION_TAGS). */
function tagged<T extends Record<string, Record<string, object | undefined>>>(paths: T): T {
  for (const [path, operations] of Object.entries(paths)) {
    const tag = OPERATION_TAGS.find(([pattern]) => pattern.test(path))?.[1];
    if (tag === undefined) throw new Error(`No tag for the path ${path} (OPERATION_TAGS)`);
    for (const [method, operation] of Object.entries(operations)) {
      if (operation) operations[method] = { tags: [tag], ...operation };
    }
  }
  return paths;
}

/** What a published article looks like (fields systemdata, metadata, content, references). */
const DOCUMENT_EXAMPLE = {
  systemdata: {
    projectId: 1,
    channelId: 1,
    documentId: 42,
    publicationId: 7,
    documentType: 'article',
    contentType: 'regular',
    design: { name: 'living-times', version: '1.0.0' },
    firstPublicationDate: '2026-03-02T09:00:00.000Z',
    significantPublicationDate: '2026-03-02T09:00:00.000Z',
    visiblePublicationDate: '2026-03-02T09:00:00.000Z',
    lastPublicationDate: '2026-03-02T09:30:00.000Z',
    updatedAt: '2026-03-02T09:29:41.000Z',
  },
  metadata: {
    title: 'Council votes on budget',
    authors: { $ref: 'documents', references: [{ id: '12' }] },
    category: { id: 'news' },
  },
  content: [
    { id: 'doc-1a2b', identifier: 'living-times.title', content: { title: 'Council votes on budget' } },
    {
      id: 'doc-3c4d',
      identifier: 'living-times.paragraph',
      content: { text: 'The council voted <b>12 to 3</b>.' },
      conditions: { brands: ['ch'] },
    },
  ],
  references: [{ id: '12', type: 'document', location: 'metadata', propertyName: 'authors' }],
};

const MEDIA_ENTRY_EXAMPLE = {
  id: 'hero-1203',
  mediaType: 'image',
  createdAt: '2026-03-02T08:00:00.000Z',
  updatedAt: '2026-03-02T08:00:00.000Z',
  version: 1,
  metadata: { caption: 'The council chamber' },
  asset: {
    key: '1/2026/03/02/0f8b5c1e-3a4d-4b8e-9c2f-1d2e3f4a5b6c.jpeg',
    filename: 'chamber.jpeg',
    mimeType: 'image/jpeg',
    size: 183211,
    width: 1600,
    height: 900,
    url: 'https://cms.example.org/api/2026-03/mediaLibrary/serve-image/1/2026/03/02/0f8b5c1e-3a4d-4b8e-9c2f-1d2e3f4a5b6c.jpeg',
  },
  translations: [{ locale: 'de', metadata: { caption: 'Der Ratssaal' } }],
};

/**
 * The description of every version. `cursors` is the process's cursor codec: the search's query schema closes
 * over it, and is built here as its route builds it (it is never called while describing).
 */
export function buildOpenApiDocument(cursors: CursorCodec): Schema {
  const components: Record<string, Schema> = {};
  /** A route's parameters (`parametersOf`); a schema several routes share is converted once. */
  const converted: Converted = new Map();
  const params = (sources: Parameters<typeof parametersOf>[0]) => parametersOf(sources, converted);
  /** An answer whose shape is the same in every version. */
  const out = (schema: z.ZodType) => answer(schema, '', components);
  /**
   * A list answer (`listAnswer` in src/http/answers.ts): a bare array up to 2025-11, `{results, ...}` from
   * 2026-01, each version's document keeping its own; example items, when given, in each version's shape.
   */
  const listOf = (
    build: (version: ApiVersion) => z.ZodType,
    exampleItems?: unknown[],
    exampleExtra: Schema = {},
  ): Schema => {
    const schema = versioned(build, '', components, 'output');
    if (!exampleItems) return schema;
    const withExample = (alternative: Schema): Schema => ({
      ...alternative,
      examples: [alternative.type === 'array' ? exampleItems : { results: exampleItems, ...exampleExtra }],
    });
    return Array.isArray(schema.oneOf)
      ? { ...schema, oneOf: (schema.oneOf as Schema[]).map(withExample) }
      : withExample(schema);
  };
  out(errorAnswer);
  const documentView = versioned(documentViewAnswer, '', components, 'output');
  const mediaEntry = out(mediaEntryAnswer);
  const publicationState = out(publicationStateAnswer);
  const applyProjectConfig = fromZod(ApplyProjectConfigBody, 'ApplyProjectConfig', components);
  const applyProjectConfigResult = out(applyProjectConfigAnswer);
  const applyProjectConfigOk =
    'The patches planned or applied; for an invalid config, {ok: false, schemaErrors} with JSON pointers, ' +
    'nothing changed (a 200: the vendor project-config CLI reads schemaErrors from it)';
  const projectConfig = out(projectConfigAnswer);
  const configConflict = errorAnswerOf(409, {
    name: 'Conflict',
    message: 'The project config was changed since the base revision',
    baseRevision: 6,
    currentRevision: 7,
  });
  const menus = out(z.array(menuAnswer));
  const channel = out(channelAnswer);
  const design = out(designAnswer);
  const commandsBody = versioned(commandRequestSchema, 'Commands', components);
  const planner = [{ bearer: ['planner'] }];
  const elementAnswer = json(out(elementAnswerSchema), 'The linked document', { id: 42 });
  const tokenRequest = fromZod(tokenBody, 'PlannerTokenRequest', components);
  const elementConflict = errorAnswerOf(409, {
    name: 'Conflict',
    message: "Document 42 is linked to planner element 'story-1'",
  });
  /**
   * The precondition headers a planner write judges on what it writes (domain/write-preconditions.ts), each
   * described as it applies there.
   */
  const preconditionParams = (descriptions: {
    ifMatch: string;
    ifNoneMatch: string;
    ifUnmodifiedSince: string;
  }) =>
    (
      [
        ['If-Match', descriptions.ifMatch],
        ['If-None-Match', descriptions.ifNoneMatch],
        ['If-Unmodified-Since', descriptions.ifUnmodifiedSince],
      ] as const
    ).map(([name, description]) => ({
      name,
      in: 'header',
      required: false,
      description,
      schema: { type: 'string' },
    }));
  /** The preconditions PUT and DELETE publication judge on the tool's record. */
  const publicationPreconditions = preconditionParams({
    ifMatch:
      'a followed publication has no entity tag: a list of tags is a 412; `*` holds only once it is followed ' +
      '(a PUT that would start following is a 412)',
    ifNoneMatch: '`*`: start following only; a 412 when it is followed already',
    ifUnmodifiedSince:
      'an HTTP-date (read only without If-Match): a 412 when the record was written after it, at the second',
  });
  /** The preconditions PUT and DELETE element judge on the element's link, once found (else the 404). */
  const elementPreconditions = preconditionParams({
    ifMatch: 'an element has no entity tag: a list of tags is a 412; `*` holds (the element is linked)',
    ifNoneMatch: '`*`: a 412 (a PUT updates a linked element, it never creates one); a list of tags holds',
    ifUnmodifiedSince:
      'an HTTP-date (read only without If-Match): a 412 when the tool sent the element after it (its last ' +
      'POST or PUT), at the second',
  });
  /** The same on POST, which updates a known element and creates the link of an unknown one. */
  const postedElementPreconditions = preconditionParams({
    ifMatch:
      'an element has no entity tag: a list of tags is a 412; `*` holds only once the element is linked (a ' +
      'POST that would create it is a 412)',
    ifNoneMatch: '`*`: create only; a 412 when the element is linked already; a list of tags holds',
    ifUnmodifiedSince:
      'an HTTP-date (read only without If-Match), for an element that is linked: a 412 when the tool sent it ' +
      'after it (its last POST or PUT), at the second',
  });
  const elementPreconditionFailed = errorAnswerOf(412, {
    name: 'PreconditionFailed',
    message:
      'The planner element was changed after If-Unmodified-Since (Thu, 15 Jan 2026 12:00:04 GMT): its ' +
      'updatedAt is 2026-01-15T12:00:05.731Z',
    updatedAt: '2026-01-15T12:00:05.731Z',
  });
  const elementPreconditionsText =
    ' If-Match, If-None-Match and If-Unmodified-Since are judged on the linked element (412, nothing written).';
  const publicationPreconditionFailed = errorAnswerOf(412, {
    name: 'PreconditionFailed',
    message:
      'If-None-Match: * cannot hold: the followed publication exists (it asks to change only what does not)',
  });
  const preconditionsText =
    ' If-Match, If-None-Match and If-Unmodified-Since are judged on the record (412, nothing written).';
  /** planner-integration/* in every version; legacy-planner-integration/*, the same, in v1..2025-03 only. */
  const integrationPaths = (segment: string, only: string) => ({
    [`/${segment}/oauth/token`]: {
      post: {
        summary:
          `${only}Client-credentials grant (RFC 6749 §4.4): HTTP Basic with an API client's id and secret ` +
          '(broadsheet client create --secret) for a token with the scope planner, valid ' +
          `${PLANNER_TOKEN_SECONDS} s (never longer than the client) and revoked with the client. 401 ` +
          'InvalidClient for missing or wrong credentials (with a Basic challenge), 403 when the client lacks the ' +
          'planner scope, 400 ConfigurationError when planner.integration is not enabled for its project, 429 ' +
          'TooManyRequests (before the secret is checked) once the address or the client failed too often',
        security: [{ basic: [] }],
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': { schema: tokenRequest },
            'application/json': { schema: tokenRequest },
          },
        },
        responses: {
          200: json(out(tokenAnswer), 'The token', {
            access_token: 'eyJhbGciOiJIUzI1NiJ9.eyJzY29wZSI6InBsYW5uZXIifQ.c2lnbmF0dXJl',
            token_type: 'Bearer',
            expires_in: PLANNER_TOKEN_SECONDS,
            scope: 'planner',
          }),
          ...errors(400, 403, 408, 413, 415),
          401: errorAnswerOf(401, {
            name: 'InvalidClient',
            message: "Send the API client's id and secret as HTTP Basic credentials.",
          }),
          429: {
            ...errorAnswerOf(429, {
              name: 'TooManyRequests',
              message:
                'Too many failed attempts with client credentials (at most 20 per 60 s from this address); ' +
                'retry in 42 s',
            }),
            description:
              'Too many failed logins from this client address or for this client (AUTH_FAILURE_LIMIT, ' +
              'AUTH_FAILURE_LIMIT_PER_CLIENT; README, "Rate limits"): refused before the secret is checked, the ' +
              'right one included; successful logins are not counted. Retry after Retry-After seconds',
            headers: {
              'Retry-After': { description: 'Seconds until the window ends', schema: { type: 'integer' } },
            },
          },
        },
      },
    },
    [`/${segment}/statuses`]: {
      post: {
        summary:
          `${only}The publication state of each document asked for, in the order asked (an id of no document of ` +
          'the project is status not-found). 400 ConfigurationError when planner.integration is not enabled',
        security: planner,
        requestBody: body(fromZod(statusesBody, 'PlannerStatuses', components)),
        responses: { 200: json(listOf(statusesAnswer)), ...errors(400, 401, 403, 408, 413, 415) },
      },
    },
    [`/${segment}/publication`]: {
      put: {
        summary:
          `${only}Follow the publication of the document named by documentId: the body is the tool's record of ` +
          'the publication, stored as sent (a later PUT replaces it; id and status, when sent, are its own id and ' +
          'status words). Answers the publication state, which statuses reports from then on with the record.' +
          preconditionsText,
        security: planner,
        parameters: publicationPreconditions,
        requestBody: body(fromZod(followBody, 'PlannerPublication', components)),
        responses: {
          200: json(publicationState),
          ...errors(400, 401, 403, 404, 408, 413, 415),
          412: publicationPreconditionFailed,
        },
      },
    },
    [`/${segment}/publication/{documentId}`]: {
      put: {
        summary: `${only}The same for the document of the path (a documentId in the body must be it)`,
        security: planner,
        parameters: [...params({ path: publicationDocumentParams }), ...publicationPreconditions],
        requestBody: body(fromZod(followDocumentBody, 'PlannerDocumentPublication', components)),
        responses: {
          200: json(publicationState),
          ...errors(400, 401, 403, 404, 408, 413, 415),
          412: publicationPreconditionFailed,
        },
      },
      delete: {
        summary:
          `${only}Stop following the document's publication (its record goes; the document is untouched).` +
          preconditionsText,
        security: planner,
        parameters: [...params({ path: publicationDocumentParams }), ...publicationPreconditions],
        responses: {
          204: { description: 'No longer followed' },
          ...errors(400, 401, 403, 404),
          412: publicationPreconditionFailed,
        },
      },
    },
  });
  /** planner/element in every version; legacy-planner/element, the same, in v1..2025-03 only. */
  const elementPaths = (segment: string, only: string) => ({
    [`/${segment}/element`]: {
      post: {
        summary:
          `${only}Planning-tool element sync: creates a draft of the configured content type (201) whose metadata ` +
          'the element sets through document commands (title → metadata.title, description → ' +
          'metadata.description, metadata.* → metadata.*), or links the existing document named by documentId ' +
          '(200). The element is stored as sent (other keys are kept); an element id the project knows already ' +
          'updates its document (200), so a repeated POST creates nothing twice. 400 ConfigurationError when ' +
          'planner.elements is not enabled; 409 when the element or the document is linked elsewhere.' +
          ' If-Match, If-None-Match and If-Unmodified-Since are judged as PUT judges them on a linked element ' +
          '(If-None-Match: * makes the POST create-only); on an unknown one any If-Match is a 412 (nothing ' +
          'written).',
        security: planner,
        parameters: postedElementPreconditions,
        requestBody: body(fromZod(createElementBody, 'PlannerCreateElement', components)),
        responses: {
          200: elementAnswer,
          201: elementAnswer,
          ...errors(400, 401, 403, 404, 408, 413, 415),
          409: elementConflict,
          412: errorAnswerOf(412, {
            name: 'PreconditionFailed',
            message:
              'If-None-Match: * cannot hold: the planner element exists (it asks to change only what does not)',
          }),
        },
      },
      put: {
        summary:
          `${only}Update the document linked to the element named by id: the element replaces the stored one, ` +
          'and each mapped field that differs from what the element said last time becomes a setMetadataProperty ' +
          'command (a field it no longer has is removed); fields the element never named are not touched.' +
          elementPreconditionsText,
        security: planner,
        parameters: elementPreconditions,
        requestBody: body(fromZod(updateElementBody, 'PlannerElement', components)),
        responses: {
          200: elementAnswer,
          ...errors(400, 401, 403, 404, 408, 413, 415),
          412: elementPreconditionFailed,
        },
      },
    },
    [`/${segment}/element/{documentId}`]: {
      put: {
        summary:
          `${only}The same, for the element linked to the document (an id in the body must be that ` +
          "element's, judged after the preconditions)",
        security: planner,
        parameters: [...params({ path: elementDocumentParams }), ...elementPreconditions],
        requestBody: body(fromZod(updateLinkedElementBody, 'PlannerLinkedElement', components)),
        responses: {
          200: elementAnswer,
          ...errors(400, 401, 403, 404, 408, 413, 415),
          409: elementConflict,
          412: elementPreconditionFailed,
        },
      },
      delete: {
        summary:
          `${only}Unlink the document from its element; the document stays as it is.` +
          elementPreconditionsText,
        security: planner,
        parameters: [...params({ path: elementDocumentParams }), ...elementPreconditions],
        responses: {
          204: { description: 'Unlinked' },
          ...errors(400, 401, 403, 404),
          412: elementPreconditionFailed,
        },
      },
    },
  });
  const read = [{ bearer: ['public-api:read'] }];
  const write = [{ bearer: ['public-api:write'] }];

  return checkPathParameters({
    openapi: '3.1.0',
    info: {
      title: 'Broadsheet API',
      version: '2026-03',
      description:
        'Content delivery and management API. Every path starts with /api/{version}; versions: ' +
        `${ALL_VERSION_LABELS.join(', ')} (v1 and beta behave as 2025-03). A query parameter with a default sent ` +
        'empty (fields=, sort=, limit=, offset=) means that default; an empty filter (contentTypes=) is a 400. ' +
        'Errors always use the Error envelope, ' +
        'including 400 for a malformed URL or body (or an HTTP/1.1 request without Host), 415 for a body that is not ' +
        'application/json (or is in a charset other than UTF-8, or a Content-Encoding other than gzip, deflate, br ' +
        'or zstd), 417 for an Expect other than 100-continue and 431 for ' +
        `headers over 16 KB. JSON bodies are UTF-8 (bytes that are not: 400 naming the offset), may nest at most ${MAX_BODY_DEPTH} levels and may not contain __proto__ ` +
        "keys, U+0000 or unpaired surrogates (400 naming the path; re-enrich skips such an id); a document's metadata and content may nest " +
        `${DOCUMENT_LIMITS.content.maxDepth} levels and be at most ${DOCUMENT_LIMITS.metadata.maxBytes / 1024} KiB ` +
        `and ${DOCUMENT_LIMITS.content.maxBytes / 1024 / 1024} MiB as JSON. Searches answer 503 with Retry-After ` +
        'while Elasticsearch is unavailable, and every operation that takes a token 503 DatabaseUnavailable ' +
        'with Retry-After while Postgres is. Every 2xx JSON answer of a GET or HEAD carries a weak ETag (an ' +
        'error answer carries no ETag nor Last-Modified); ' +
        'If-None-Match naming it (weak comparison, a list or *) gives 304 Not Modified with no body, whatever ' +
        "the request's Cache-Control: the no-cache fetch adds to any request with If-None-Match is for caches " +
        "(RFC 9111 §5.2.1.4), and the API is the origin. A write's answer (PUT, PATCH, POST, DELETE) carries " +
        'no ETag, being no representation a GET of its URL gives (RFC 9110 §9.3.4, §8.8), except PATCH ' +
        "mediaLibrary/{id}'s: it is the entry as GET mediaLibrary/{id} answers it, with that GET's ETag.",
    },
    servers: [
      {
        url: '/api/{version}',
        variables: { version: { default: '2026-03', enum: [...ALL_VERSION_LABELS] } },
      },
    ],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        basic: { type: 'http', scheme: 'basic', description: "an API client's id and secret" },
      },
      schemas: components,
    },
    paths: tagged({
      '/health': {
        get: {
          summary: 'Liveness, no token',
          responses: { 200: json(out(livenessAnswer), 'OK', { status: 'ok' }) },
        },
      },
      '/health/ready': {
        get: {
          summary: 'Readiness: Postgres and Elasticsearch answer',
          responses: {
            200: json(out(readinessAnswer), 'OK', {
              status: 'ok',
              postgres: 'ok',
              elasticsearch: 'ok',
            }),
            503: {
              ...errorAnswerOf(503),
              description:
                "Service Unavailable: the envelope with name 'NotReady' and each dependency's state (ok, red or " +
                'unavailable, never its error) when Postgres or Elasticsearch does not answer within 2 s; retry ' +
                'after Retry-After seconds',
              headers: {
                'Retry-After': {
                  description: 'Seconds to wait before asking again',
                  schema: { type: 'integer' },
                },
              },
            },
          },
        },
      },
      '/openapi.json': {
        get: {
          summary: "This description: the version's own routes, parameters and answers; no token",
          responses: { 200: json(out(openApiAnswer)) },
        },
      },
      '/docs': {
        get: {
          summary: "The version's browsable API reference (Swagger UI on its openapi.json), no token",
          responses: {
            200: { description: 'The page', content: { 'text/html': { schema: { type: 'string' } } } },
          },
        },
      },
      '/docs/{asset}': {
        get: {
          summary:
            'A file of the reference page: swagger-ui.css, swagger-ui-bundle.js, docs.js or favicon-32x32.png',
          parameters: params({ path: docsAssetParams }),
          responses: {
            200: {
              description: 'The file',
              content: {
                'text/css': { schema: { type: 'string' } },
                'text/javascript': { schema: { type: 'string' } },
                'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
              },
            },
            ...errors(404),
          },
        },
      },
      '/projectConfig': {
        get: {
          summary: 'The project configuration, with $baseRevision',
          security: [{ bearer: ['public-api:config:read'] }],
          responses: { 200: json(projectConfig), ...errors(400, 401, 403) },
        },
        post: {
          summary:
            'Plan or apply a new project configuration; an apply that changes indexed metadata fields or a ' +
            "sortDateField re-indexes the project's published documents in the background (the homepage: the " +
            'old and the new one)',
          security: [{ bearer: ['public-api:config:write'] }],
          requestBody: body(applyProjectConfig),
          responses: {
            200: json(applyProjectConfigResult, applyProjectConfigOk),
            ...errors(400, 401, 403, 408, 413, 415),
            409: configConflict,
          },
        },
      },
      '/channelConfig': {
        get: {
          deprecated: true,
          summary: 'Legacy name of GET projectConfig (v1 to 2025-05)',
          security: [{ bearer: ['public-api:config:read'] }],
          responses: { 200: json(projectConfig), ...errors(400, 401, 403) },
        },
        post: {
          deprecated: true,
          summary: 'Legacy name of POST projectConfig (v1 to 2025-05): the same plan/apply answers',
          security: [{ bearer: ['public-api:config:write'] }],
          requestBody: body(applyProjectConfig),
          responses: {
            200: json(applyProjectConfigResult, applyProjectConfigOk),
            ...errors(400, 401, 403, 408, 413, 415),
            409: configConflict,
          },
        },
      },
      '/project': {
        get: {
          deprecated: true,
          summary: 'Legacy (v1 to 2025-05): the project and its channels',
          security: [{ bearer: ['public-api:config:read'] }],
          responses: {
            200: json(out(legacyProjectAnswer), 'OK', {
              projectId: 1,
              name: 'daily-bugle',
              label: 'Daily Bugle',
              defaultChannelId: 1,
              channels: [
                {
                  channelId: 1,
                  channelHandle: 'web',
                  label: 'Web',
                  designName: 'living-times',
                  designVersion: '1.0.0',
                  contentTypeHandles: ['regular', 'page'],
                },
              ],
            }),
            ...errors(400, 401, 403),
          },
        },
      },
      '/channels/{channelHandle}': {
        get: {
          deprecated: true,
          summary: 'Legacy (v1 to 2025-05): one channel of the project',
          security: read,
          parameters: params({ path: channelParams }),
          responses: { 200: json(channel), ...errors(400, 401, 403, 404) },
        },
      },
      '/categories': {
        get: {
          summary: "The project's categories in config order (400 when its channel configuration is static)",
          security: read,
          responses: {
            200: json(
              listOf(listAnswer(categoryItem), [
                { id: 'news', label: 'News', path: '/news' },
                { id: 'local', label: 'Local', path: '/news/local', parent: 'news' },
              ]),
            ),
            ...errors(400, 401, 403),
          },
        },
      },
      '/categories/{categoryId}': {
        get: {
          summary:
            "One category; inheritMetadata fills in its parents' metadata, nearest first, never overwriting",
          security: read,
          parameters: params({ path: categoryParams, query: categoryQuery }),
          responses: {
            200: json(out(categoryAnswer), 'OK', {
              id: 'local',
              label: 'Local',
              path: '/news/local',
              metadata: { color: 'blue' },
            }),
            // 500: inheritance deeper than 20 parents; configs that would allow it are refused when applied.
            ...errors(400, 401, 403, 404, 500),
          },
        },
      },
      '/menus': {
        get: {
          summary: "Menus of the project's default channel (v1, beta and 2025-03 only)",
          security: read,
          parameters: params({ query: menusQuery }),
          responses: { 200: json(menus), ...errors(400, 401, 403, 404) },
        },
      },
      '/menus/{channelHandle}': {
        get: {
          summary: 'Menus of one channel (v1, beta and 2025-03 only)',
          security: read,
          parameters: params({ path: menusParams, query: menusQuery }),
          responses: { 200: json(menus), ...errors(400, 401, 403, 404) },
        },
      },
      '/design': {
        get: {
          summary: 'The current design',
          security: read,
          responses: { 200: json(design), ...errors(400, 401, 403, 404) },
        },
      },
      '/design/{designVersion}': {
        get: {
          summary: 'A design version',
          security: read,
          parameters: params({ path: designParams }),
          responses: { 200: json(design), ...errors(400, 401, 403, 404) },
        },
      },
      '/composition/{documentId}': {
        post: {
          summary:
            'One published document gathered for rendering (every API version). fields picks systemdata, metadata, ' +
            'content, html, includes, design (default: all of them, as the vendor documents it; includes resolved ' +
            'unless resolveIncludes is false); metadata.preload names metadata properties whose document references resolve to ' +
            'their published {systemdata, metadata} (drafts stay isPreloaded false); resolveIncludes resolves include ' +
            "directives that reference documents or a document list; html renders the design's component " +
            'templates with the content made safe (README, "Composition"); component conditions apply to content, ' +
            "html and includes. The body is optional; unpublished and other projects' documents are 404",
          security: read,
          parameters: params({ path: compositionParams }),
          requestBody: {
            required: false,
            description: 'optional as a whole: every key has a default',
            content: {
              'application/json': { schema: fromZod(compositionBodySchema, 'Composition', components) },
            },
          },
          responses: {
            200: json(out(compositionAnswer)),
            ...errors(400, 401, 403, 404, 408, 413, 415),
          },
        },
      },
      '/import/documents': {
        post: {
          summary: 'Import documents in the background; answers the job id',
          security: write,
          requestBody: body(fromZod(ImportRequestSchema, 'Import', components), 'The import', {
            systemName: 'archive',
            webhook: 'https://cms.example.org/hooks/import',
            documents: [
              {
                id: 'a-1001',
                contentType: 'article',
                title: 'From the archive',
                metadata: { title: 'From the archive' },
                flags: { autoPublish: true },
              },
            ],
          }),
          responses: {
            200: json(out(importStartedAnswer), 'The job', {
              id: '5d0c7c1e-2b7a-4f0e-8a39-0c7f4f2d9b11',
            }),
            ...errors(400, 401, 403, 408, 413, 415),
          },
        },
      },
      '/import/documents/status': {
        get: {
          summary: 'State and per-document log of an import job',
          security: write,
          parameters: params({ query: ImportStatusQuery }),
          responses: {
            200: json(out(importStatusAnswer), 'The job', {
              finished: true,
              state: 'success',
              id: '5d0c7c1e-2b7a-4f0e-8a39-0c7f4f2d9b11',
              logs: [{ state: 'published', external_id: 'a-1001', document_id: 42 }],
            }),
            ...errors(400, 401, 403, 404),
          },
        },
      },
      '/mediaLibrary': {
        get: {
          summary:
            'Media library entries by ids (in the order asked, unknown ids left out), or the entry of a system by ' +
            'externalId and systemName; a bare array up to 2025-11, {results} from 2026-01',
          security: read,
          parameters: params({ query: mediaListQuery }),
          responses: { 200: json(listOf(mediaListAnswer)), ...errors(400, 401, 403) },
        },
      },
      '/mediaLibrary/{id}': {
        get: {
          summary: "One media library entry (api-spec §2.7); another project's entry is 404",
          security: read,
          parameters: params({ path: mediaParams }),
          responses: { 200: json(mediaEntry, 'OK', MEDIA_ENTRY_EXAMPLE), ...errors(400, 401, 403, 404) },
        },
        patch: {
          summary:
            'Patch an entry: revokeAsset (note from 2026-01; 409 ConflictError when already revoked from ' +
            '2026-01, the note kept), unrevokeAsset (2026-01+; 409 ConflictError when not revoked), setMetadata, ' +
            "setTranslations (a locale keeps its image: a translation's asset may come back as GET shows it, another " +
            'is a 400), setMetadataProperty (one property; null or no value removes it); preserveUpdatedAt ' +
            "from 2026-03; version (a number or its digits): another than the entry's is a 409 Conflict. One " +
            'transaction per batch, a new version; a batch that leaves the entry as stored writes nothing and ' +
            'answers it as it was (its version and updatedAt)',
          description:
            "The optimistic check is the body's `version` (409 when outdated); an entry has no entity tag (GET's " +
            '`ETag` is a weak tag of the answer), so an `If-Match` naming one is a 412 with `currentVersion`, ' +
            "and only `*` holds. Without an `If-Match`, an `If-Unmodified-Since` before the entry's `updatedAt` " +
            '(at the second) is a 412 with `currentVersion` and `updatedAt`; one that is not an HTTP-date is ' +
            'ignored. A patch made with `preserveUpdatedAt` keeps `updatedAt`: only `version` catches every ' +
            'change. `If-None-Match: *` (only if the entry does not exist) is a 412 too. Nothing changes on a 412.',
          security: write,
          parameters: [
            ...params({ path: mediaParams }),
            { name: 'If-Match', in: 'header', required: false, schema: { type: 'string' } },
            { name: 'If-Unmodified-Since', in: 'header', required: false, schema: { type: 'string' } },
            { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
          ],
          requestBody: body(versioned(patchMediaBody, 'MediaPatch', components)),
          responses: {
            200: {
              ...json(mediaEntry, 'The entry as GET mediaLibrary/{id} now answers it'),
              headers: {
                ETag: {
                  description:
                    'The ETag GET mediaLibrary/{id} now answers with (weak): send it in If-None-Match to revalidate ' +
                    'a copy made from this answer',
                  schema: { type: 'string' },
                },
              },
            },
            ...errors(400, 401, 403, 404, 408, 413, 415),
            409: errorAnswerOf(409, {
              name: 'ConflictError',
              message: 'The asset of this media library entry is already revoked',
              patchIndex: 0,
            }),
            412: errorAnswerOf(412, {
              name: 'PreconditionFailed',
              message:
                'If-Match cannot hold: a media library entry has no entity tag to match. Send the version the ' +
                "change is based on (the entry's version) in the body (`version`) instead",
              currentVersion: 4,
            }),
          },
        },
      },
      '/mediaLibrary/{id}/incomingDocumentReferences': {
        get: {
          summary:
            'The published documents that use the entry (image directives and image metadata), by document id; ' +
            '{results, total, cursor} from 2026-01, where after takes the cursor of the previous page',
          security: read,
          parameters: params({ path: mediaParams, query: mediaIncomingReferencesQuery }),
          responses: {
            200: json(listOf(mediaIncomingDocumentReferencesAnswer)),
            ...errors(400, 401, 403, 404),
          },
        },
      },
      '/mediaLibrary/{id}/incomingMediaReferences': {
        get: {
          summary:
            'The media entries whose metadata refers to the entry, by entry id; {results, total, cursor} from 2026-01',
          security: read,
          parameters: params({ path: mediaParams, query: mediaIncomingReferencesQuery }),
          responses: {
            200: json(listOf(mediaIncomingMediaReferencesAnswer)),
            ...errors(400, 401, 403, 404),
          },
        },
      },
      '/mediaLibrary/uploads': {
        post: {
          summary:
            'Upload the bytes of an asset (the raw request body, with its Content-Type), for POST ' +
            "import/mediaLibrary to name as asset.uploadId within a day. An image's format, width and height " +
            "are read from its bytes, a video's duration (seconds), width and height from its MP4/MOV or " +
            'Matroska/WebM header; a body sent as image/* that is not a readable image (or a truncated one) ' +
            'is a 400, as is one of more than MEDIA_MAX_IMAGE_PIXELS pixels; one over MEDIA_UPLOAD_MAX_BYTES a 413',
          security: write,
          parameters: params({ query: uploadQuery }),
          requestBody: {
            required: true,
            description:
              "The file's bytes as they are (no Content-Encoding but identity), with its own Content-Type: " +
              'image/*, video/*, audio/* or an application/ type other than JSON (application/json, */*+json) ' +
              'and forms (application/x-www-form-urlencoded); any other type, or an encoded body, is a 415',
            content: Object.fromEntries(
              ['image/*', 'video/*', 'audio/*', 'application/*'].map((range) => [
                range,
                { schema: { type: 'string', format: 'binary' } },
              ]),
            ),
          },
          responses: {
            201: json(out(mediaUploadAnswer), 'Created'),
            ...errors(400, 401, 403, 408, 413, 415),
            503: storageUnavailable(),
          },
        },
      },
      '/import/mediaLibrary': {
        post: {
          summary:
            'Create or update media library entries (by externalId and systemName); each entry on its own, results ' +
            'in request order: {ok: true, status: 200, id, record} or {ok: false, status: 400 | 409 | 503, error, ' +
            'error_details} (503 StorageUnavailable: the media store could not take its bytes now; 503 DatabaseUnavailable: ' +
            'Postgres could not answer, this entry and the ones after it were not stored). The bytes come from asset.url (downloaded: http(s), bounded size and time, few ' +
            'redirects, no private addresses) or asset.uploadId. A bare array up to 2025-11, {results} from 2026-01',
          security: write,
          requestBody: body(fromZod(importMediaBodyDescription, 'MediaImport', components)),
          responses: {
            200: json(listOf(mediaImportAnswer)),
            ...errors(400, 401, 403, 408, 413, 415),
          },
        },
      },
      '/documents/latestPublications': {
        get: {
          summary: 'Latest publications, filtered and paged (offset or id ranges for parallel exports)',
          security: read,
          parameters: params({ query: latestPublicationsQuery }),
          responses: {
            200: json(listOf(latestPublicationsAnswer)),
            ...errors(400, 401, 403),
            503: searchUnavailable(),
          },
        },
      },
      '/documents/{documentId}/latestPublication': {
        get: {
          summary: 'The latest publication of one document',
          security: read,
          parameters: params({ path: documentIdParams, query: latestPublicationQuery }),
          responses: { 200: json(documentView, 'OK', DOCUMENT_EXAMPLE), ...errors(400, 401, 403, 404) },
        },
      },
      '/documents/{documentId}/latestPublication/renditions/{renditionHandles}': {
        get: {
          summary: 'Renditions of the latest publication (up to 2025-07)',
          security: read,
          parameters: params({ path: renditionHandlesParams, query: renditionsQuery }),
          responses: {
            200: json(out(renditionsAnswer)),
            ...errors(400, 401, 403, 404),
          },
        },
      },
      '/documents/{documentId}/latestDraft': {
        get: {
          summary: 'The latest draft (scopes public-api:write and public-api:drafts:read)',
          security: [{ bearer: ['public-api:write', 'public-api:drafts:read'] }],
          parameters: params({ path: documentIdParams, query: latestDraftQuery }),
          responses: { 200: json(documentView), ...errors(400, 401, 403, 404) },
        },
      },
      '/documents/{documentId}/commands': {
        patch: {
          summary: 'Run document commands in one transaction (optimistic version, preconditions)',
          description:
            'A directive command (setEditableDirective, setLinkDirective, setStyleDirective, setIncludeDirective) ' +
            "writes only a directive that the document's design declares for the component, of the command's " +
            'kind (setEditableDirective: editable or html): anything else is a 400 at its index. A document ' +
            "reference a command writes (a link's reference, a document `$ref` or legacy `mediaId` in an include's " +
            "params, a document `$ref` in a metadata value) must name a document of the token's project (else a " +
            '400 at its index naming the param or property); likewise a media reference (a media `$ref` or a ' +
            "`mediaId` in a metadata value or an include's params) must name a media library entry of the " +
            "token's project. Only the ids a request adds are checked: an id the stored draft references already " +
            '(anywhere in it) may be sent back, also when its document or entry is gone since, so a client that ' +
            'saves the whole draft is not blocked by a dangling reference. A brands condition must name brands ' +
            'of the project config, and a `category` ' +
            'metadata value (`{id}` or the id) a category of it (else a 400 at its index naming it; a value the ' +
            'document carries already may be sent back). The optimistic ' +
            "check is the body's `version` (409 when outdated); a document has no entity tag, so an `If-Match` " +
            "naming one (latestDraft's weak ETag included) is a 412 with `currentVersion`, and only `*` holds. " +
            "Without an `If-Match`, an `If-Unmodified-Since` before the document's `updatedAt` (at the second) is " +
            'a 412 with `currentVersion` and `updatedAt`; one that is not an HTTP-date is ignored. A change made ' +
            'with `preserveUpdatedAt` keeps `updatedAt`: only `version` catches every change. ' +
            '`If-None-Match: *` (only if the document does not exist) is a 412 too.',
          security: write,
          parameters: [
            ...params({ path: documentIdParams }),
            { name: 'If-Match', in: 'header', required: false, schema: { type: 'string' } },
            { name: 'If-Unmodified-Since', in: 'header', required: false, schema: { type: 'string' } },
            { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
          ],
          requestBody: body(commandsBody, 'Commands, run in order', {
            version: 3,
            preconditions: [{ type: 'isPublished', value: false }],
            commands: [
              { operation: 'setMetadataProperty', propertyName: 'title', value: 'Council votes on budget' },
              { operation: 'publish' },
            ],
          }),
          responses: {
            204: { description: 'All commands applied' },
            ...errors(400, 401, 403, 404, 409, 408, 413, 415),
            412: errorAnswerOf(412, {
              name: 'PreconditionFailed',
              message:
                'If-Match cannot hold: a document has no entity tag to match. Send the version the change is ' +
                "based on (latestDraft's systemdata.version) in the body (`version`) instead",
              currentVersion: 4,
            }),
          },
        },
      },
      '/documents/{documentId}/addDeliveryStatus': {
        post: {
          summary: 'Create or update a delivery status report',
          security: write,
          parameters: params({ path: documentIdParams }),
          requestBody: body(fromZod(addDeliveryStatusBody, 'DeliveryStatus', components), 'The report', {
            publicationId: 7,
            deliveryHandle: 'print',
            status: 'success',
            message: 'Sent to press',
          }),
          responses: {
            200: json(out(deliveryStatusAnswer), 'The stored report', {
              reportId: '0f8b5c1e-3a4d-4b8e-9c2f-1d2e3f4a5b6c',
              documentId: 42,
              publicationId: 7,
              deliveryHandle: 'print',
              status: 'success',
              message: 'Sent to press',
              createdAt: '2026-03-02T09:00:00.000Z',
              updatedAt: '2026-03-02T09:05:00.000Z',
            }),
            ...errors(400, 401, 403, 404, 408, 413, 415),
          },
        },
      },
      '/publications/search': {
        get: {
          summary: 'Full-text and filtered search over the latest publications (teasers, tickers)',
          security: read,
          parameters: params({ query: searchQuery(cursors) }),
          responses: {
            200: json(listOf(searchAnswer)),
            400: {
              ...errorAnswerOf(400),
              description:
                'Bad Request: a parameter is invalid (keyed by it), or Elasticsearch refused the query for more ' +
                'clauses than its node allows: a message naming the limit (each word of search counts 3, each of ' +
                'its first 20 words 3 more, each word of a text filter value 1: 321 words fit the smallest ' +
                'node\'s 1,024; README, "Search size and Elasticsearch\'s clause limit")',
            },
            ...errors(401, 403),
            503: searchUnavailable(),
          },
        },
      },
      '/documents/{documentId}/incomingDocumentReferences': {
        get: {
          summary:
            'Published documents whose latest publication points at this published document (metadata, link ' +
            'and include directives), ascending id; 404 when the document is not published',
          security: read,
          parameters: params({
            path: documentIdParams,
            query: incomingReferencesQuery,
          }),
          responses: {
            200: json(listOf(incomingDocumentReferencesAnswer)),
            ...errors(400, 401, 403, 404),
          },
        },
      },
      '/documents/{documentId}/incomingMediaReferences': {
        get: {
          summary:
            'Media library entries whose metadata points at this published document, ascending id; 404 when ' +
            'the document is not published',
          security: read,
          parameters: params({
            path: documentIdParams,
            query: incomingReferencesQuery,
          }),
          responses: {
            200: json(listOf(incomingMediaReferencesAnswer)),
            ...errors(400, 401, 403, 404),
          },
        },
      },
      '/drafts/{documentId}/incomingDocumentReferences': {
        get: {
          summary:
            'Documents whose latest publication or current draft points at this document, published or not ' +
            '(scope public-api:drafts:read), ascending id',
          security: [{ bearer: ['public-api:drafts:read'] }],
          parameters: params({
            path: documentIdParams,
            query: incomingReferencesQuery,
          }),
          responses: {
            200: json(listOf(incomingDocumentReferencesAnswer)),
            ...errors(400, 401, 403, 404),
          },
        },
      },
      '/document-lists': {
        get: {
          summary:
            "The project's document lists, the exact name first (as spelt, then in another case), then by name " +
            '(Unicode root collation: apple, eclair, Éclair, news, News, Ñews, Zebra) and id; each with its first `limit` ' +
            'published documents (systemdata, metadata), newest-added first. At most 100 lists per answer: ' +
            'offset pages through more',
          security: read,
          parameters: params({ query: documentListsQuery }),
          responses: { 200: json(listOf(documentListsAnswer)), ...errors(400, 401, 403) },
        },
      },
      '/document-lists/{id}': {
        get: {
          summary: 'One document list with its first `limit` published documents (never wrapped)',
          security: read,
          parameters: params({ path: documentListParams, query: documentListQuery }),
          responses: { 200: json(out(documentListAnswer)), ...errors(400, 401, 403, 404) },
        },
      },
      '/publicationEvents': {
        get: {
          summary: 'Publication events, ascending id; page with id.gt',
          security: read,
          parameters: params({ query: publicationEventsQuery }),
          responses: {
            200: json(
              listOf(publicationEventsAnswer, [
                {
                  id: 1187,
                  createdAt: '2026-03-02T09:00:00.000Z',
                  projectId: 1,
                  channelId: 1,
                  documentId: 42,
                  documentType: 'article',
                  eventType: 'publish',
                  publicationId: 7,
                },
              ]),
            ),
            ...errors(400, 401, 403),
          },
        },
      },
      '/enrichment/re-enrich': {
        post: {
          summary:
            'Re-enrich documents in the background: {} at once, one job per document of the project (ids of no ' +
            'document, or that cannot be one, such as "x", 0, 1e400 or a string with an unpaired surrogate, are skipped). Each job POSTs the text of the ' +
            "document to the project's enrichment service and writes the entities it answers into the metadata " +
            'as document commands (README, "Enrichment"). 400 ConfigurationError when the project has no ' +
            'enrichment enabled',
          security: [{ bearer: ['enrichment'] }],
          requestBody: body(fromZod(reEnrichBody, 'ReEnrich', components)),
          responses: {
            200: json(out(reEnrichAnswer)),
            ...errors(400, 401, 403, 408, 413, 415),
          },
        },
      },
      ...elementPaths('planner', ''),
      ...replaced(elementPaths('legacy-planner', 'v1, beta and 2025-03 only. ')),
      ...integrationPaths('planner-integration', ''),
      ...replaced(integrationPaths('legacy-planner-integration', 'v1, beta and 2025-03 only. ')),
      '/publicationEvents/{channelHandle}': {
        get: {
          summary: 'Publication events of one channel',
          security: read,
          parameters: params({ path: channelParams, query: publicationEventsQuery }),
          responses: { 200: json(listOf(publicationEventsAnswer)), ...errors(400, 401, 403, 404) },
        },
      },
      '/mediaLibrary/serve-image/{key}': {
        get: {
          summary: "An image's stored bytes in original dimensions (2025-03 on, so every version)",
          description:
            'The key is the asset key of a media library entry (or of one of its translations) and may contain ' +
            'slashes (2025/03/14/<uuid>.jpeg); it must not contain `.` or `..` segments, empty segments, ' +
            'backslashes or control characters (400). Strong ETag, `Cache-Control: private, no-cache`; ' +
            '`If-None-Match` (else `If-Modified-Since`) gives 304, `If-Match` (else `If-Unmodified-Since`) that ' +
            'does not hold gives 412 (RFC 9110 §13.2.2); one `Range: bytes=...` gives 206 (several ranges: the ' +
            'whole image), ' +
            'one beyond the end 416. A revoked or invalid image is 403 `The requested image is revoked or ' +
            "marked as invalid`; a key of no entry of the token's project is 404.",
          security: read,
          parameters: [
            ...params({ path: serveImageParams }),
            {
              name: 'Range',
              in: 'header',
              required: false,
              description: 'one byte range, bytes=a-b, a- or -n',
              schema: { type: 'string' },
            },
            { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
            { name: 'If-Modified-Since', in: 'header', required: false, schema: { type: 'string' } },
            { name: 'If-Match', in: 'header', required: false, schema: { type: 'string' } },
            { name: 'If-Unmodified-Since', in: 'header', required: false, schema: { type: 'string' } },
            { name: 'If-Range', in: 'header', required: false, schema: { type: 'string' } },
          ],
          responses: {
            200: {
              description: 'The image (Content-Type as stored, Content-Length, ETag, Cache-Control)',
              content: { 'image/*': { schema: { type: 'string', format: 'binary' } } },
            },
            206: {
              description: 'The requested range (Content-Range)',
              content: { 'image/*': { schema: { type: 'string', format: 'binary' } } },
            },
            304: {
              description:
                'Not modified: If-None-Match names the current ETag (or, without it, If-Modified-Since is not before Last-Modified)',
            },
            ...errors(400, 401, 403, 404, 412, 416),
            503: storageUnavailable(),
          },
        },
        // Express answers HEAD with the GET's handler, so a HEAD is there wherever the GET is (per-version.ts).
        head: {
          summary: "An image's headers without its bytes: what GET would answer, with no body",
          description:
            'The headers of the GET of the same image (Content-Type, Content-Length, ETag, Last-Modified, ' +
            'Cache-Control) and no body, to learn its size and ETag without reading it. The conditions work as ' +
            'for GET (304, 412); a Range is ignored (RFC 9110 §14.2): 200 with the whole length. Errors are ' +
            "the GET's statuses, their envelope's headers without the envelope.",
          security: read,
          parameters: [
            ...params({ path: serveImageParams }),
            { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
            { name: 'If-Modified-Since', in: 'header', required: false, schema: { type: 'string' } },
            { name: 'If-Match', in: 'header', required: false, schema: { type: 'string' } },
            { name: 'If-Unmodified-Since', in: 'header', required: false, schema: { type: 'string' } },
          ],
          responses: {
            200: {
              description:
                'The headers GET would answer for the whole image (Content-Type as stored, Content-Length, ETag, ' +
                'Cache-Control), no body',
            },
            304: {
              description:
                'Not modified: If-None-Match names the current ETag (or, without it, If-Modified-Since is not before Last-Modified)',
            },
            ...errors(400, 401, 403, 404, 412),
            503: storageUnavailable(),
          },
        },
      },
    }),
  });
}
