import { STATUS_CODES } from 'node:http';
import { z } from 'zod';
import {
  ALL_VERSION_LABELS,
  ApiVersion,
  VERSION_LABELS,
  type VersionLabel,
} from '../../../domain/api-versions';
import { requestSchema as commandRequestSchema } from '../../../domain/document-commands/schema';
import { DOCUMENT_LIMITS, MAX_BODY_DEPTH } from '../../../domain/json-limits';
import { compositionBodySchema } from '../composition/composition.schema';
import { ImportRequestSchema } from '../../../domain/import-request';
import { categoryAnswer, categoryItem } from '../categories/categories.schema';
import { livenessAnswer, readinessAnswer } from '../health/health.schema';
import { menuAnswer } from '../menus/menus.schema';
import { channelAnswer } from '../channels/channels.schema';
import { legacyProjectAnswer } from '../project/project.schema';
import { addDeliveryStatusBody, deliveryStatusAnswer } from '../documents/delivery-status.schema';
import { importStartedAnswer, importStatusAnswer } from '../import/import.schema';
import { reEnrichBody } from '../enrichment/enrichment.schema';
import {
  createElementBody,
  updateElementBody,
  updateLinkedElementBody,
} from '../planner/planner-element.schema';
import {
  followBody,
  followDocumentBody,
  statusesBody,
  tokenAnswer,
  tokenBody,
} from '../planner-integration/planner-integration.schema';
import { PLANNER_TOKEN_SECONDS } from '../../../domain/planner-integration';
import { importMediaEntry, patchMediaBody } from '../media-library/media-library.schema';
import { inVersions } from './per-version';

/**
 * The OpenAPI 3.1 description of the API. Request bodies that the code validates with zod are generated
 * from those same schemas, so the description cannot drift from what the server accepts.
 */
type Schema = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * An answer's schema from the zod schema that describes it (as the server sends it: `io: 'output'`); the
 * integration tests parse real answers with the same zod schema, so neither can drift.
 */
const answer = (schema: z.ZodType, prefix: string, components: Record<string, Schema>): Schema =>
  fromZod(schema, prefix, components, 'output');

/** Converts a zod schema and lifts its `$defs` into components under `prefix`. */
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
  for (const [name, def] of Object.entries($defs)) components[`${prefix}${name}`] = rewrite(def) as Schema;
  return rewrite(rest) as Schema;
}

/**
 * A schema that differs by API version, generated for each from the zod schema the route validates that version
 * with: a `oneOf` of version-marked alternatives (versions with the same schema share one), of which each
 * version's document keeps its own.
 */
function versioned(
  build: (version: ApiVersion) => z.ZodType,
  prefix: string,
  components: Record<string, Schema>,
): Schema {
  const alternatives: { from: VersionLabel; to: VersionLabel; schema: Schema; text: string }[] = [];
  for (const label of VERSION_LABELS) {
    const schema = fromZod(build(ApiVersion.parse(label)!), `${prefix}${label.replace('-', '')}`, components);
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

const query = (name: string, description: string, schema: Schema = { type: 'string' }) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});
/** Ids are exact up to 2^53 - 1; a larger one is a 400 (src/http/query-params.ts). */
const ID = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER };
const DOCUMENT_ID = { ...ID, minimum: 1 };

const pathParam = (name: string, schema: Schema = DOCUMENT_ID) => ({
  name,
  in: 'path',
  required: true,
  schema,
});

const errors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      String(status),
      {
        description: STATUS_CODES[status] ?? 'Error',
        content: {
          'application/json': {
            schema: ref('Error'),
            example: {
              status,
              error: STATUS_CODES[status],
              error_details: ERROR_EXAMPLES[status] ?? { name: 'Error', message: STATUS_CODES[status] },
            },
          },
        },
      },
    ]),
  );

/** What each error status typically says (the test holds every example to its schema). */
const ERROR_EXAMPLES: Record<number, Schema> = {
  400: { 'query.limit': 'Too big: expected number to be <=100' },
  401: { name: 'Unauthorized', message: 'Send a bearer token in the Authorization header' },
  403: { name: 'Forbidden', message: "This token lacks the scope 'public-api:read'" },
  404: { name: 'NotFound', message: 'Document 42 not found' },
  409: { name: 'Conflict', message: 'The document changed since version 3' },
  413: { name: 'PayloadTooLarge', message: 'The body is larger than the limit' },
  415: { name: 'UnsupportedMediaType', message: 'Send the body as application/json' },
  503: { name: 'ServiceUnavailable', message: 'Search is unavailable; retry later' },
};

/** A JSON answer or body; `example`, when given, must validate against `schema` (test/integration/openapi). */
const json = (schema: Schema, description = 'OK', example?: unknown) => ({
  description,
  content: { 'application/json': { schema, ...(example !== undefined && { example }) } },
});

const conditionParams = [
  query('ignoreComponentConditions', 'keep every component regardless of its conditions', {
    type: 'boolean',
  }),
  query(
    'componentConditions',
    'JSON object {dateTime?: ISO date-time, brand?: string}; default now and the default brand',
  ),
];

const MEDIA_ID = { type: 'string', pattern: '^[a-zA-Z0-9-]{1,32}$' };
const CURSOR = { type: ['string', 'null'], description: 'pass as after for the next page' };

/** A list: a bare array up to 2025-11, `{results, ...extra}` from 2026-01 (each version's document keeps its own). */
const listOf = (item: Schema, extra: Record<string, Schema> = {}, exampleItems?: unknown[]) => ({
  oneOf: [
    inVersions(
      { to: '2025-11' },
      {
        type: 'array',
        items: item,
        description: 'up to 2025-11',
        ...(exampleItems && { examples: [exampleItems] }),
      },
    ),
    inVersions(
      { from: '2026-01' },
      {
        type: 'object',
        properties: { results: { type: 'array', items: item }, ...extra },
        required: ['results'],
        description: 'from 2026-01',
        ...(exampleItems && { examples: [{ results: exampleItems }] }),
      },
    ),
  ],
});

export function buildOpenApiDocument(): Schema {
  const components: Record<string, Schema> = {
    Error: {
      type: 'object',
      required: ['status', 'error', 'error_details'],
      properties: {
        status: { type: 'integer' },
        error: { type: 'string', description: 'HTTP reason phrase' },
        error_details: {
          type: 'object',
          description: '{message, name} or, for validation errors, one key per offending path',
          additionalProperties: true,
        },
      },
    },
    Systemdata: {
      type: 'object',
      properties: {
        projectId: { type: 'integer' },
        channelId: { type: 'integer' },
        documentId: { type: 'integer' },
        publicationId: { type: 'integer' },
        documentType: { type: 'string', enum: ['article', 'page', 'data-record'] },
        contentType: { type: 'string' },
        layout: { type: 'string' },
        design: { type: 'object', properties: { name: { type: 'string' }, version: { type: 'string' } } },
        firstPublicationDate: { type: 'string', format: 'date-time' },
        significantPublicationDate: { type: 'string', format: 'date-time' },
        visiblePublicationDate: { type: 'string', format: 'date-time' },
        lastPublicationDate: { type: 'string', format: 'date-time' },
        updatedAt: { type: 'string', format: 'date-time' },
      },
    },
    Component: {
      type: 'object',
      required: ['id'],
      properties: {
        id: { type: 'string' },
        component: { type: 'string' },
        identifier: { type: 'string' },
        content: { type: 'object', additionalProperties: true },
        styles: { type: 'object', additionalProperties: true },
        containers: { type: 'object', additionalProperties: { type: 'array', items: ref('Component') } },
        position: { type: 'string' },
        conditions: { type: 'object', additionalProperties: true },
      },
    },
    Reference: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        type: { type: 'string' },
        location: { type: 'string' },
        propertyName: { type: 'string' },
      },
    },
    Document: {
      type: 'object',
      properties: {
        systemdata: ref('Systemdata'),
        metadata: { type: 'object', additionalProperties: true },
        content: { type: 'array', items: ref('Component') },
        references: { type: 'array', items: ref('Reference') },
        renditions: {
          type: 'array',
          items: { type: 'object', properties: { handle: { type: 'string' }, content: {} } },
        },
      },
    },
    IncomingDocumentReference: {
      type: 'object',
      description: 'A document that points at the document, with every reference it makes to it',
      required: ['id', 'references'],
      properties: {
        id: { type: 'integer', description: 'the referencing document' },
        references: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'location', 'type'],
            properties: {
              componentId: { type: 'string' },
              componentName: { type: 'string' },
              directiveName: { type: 'string' },
              id: { type: 'string', description: 'the referenced document' },
              location: { type: 'string', enum: ['metadata', 'link-directive', 'include-directive'] },
              propertyName: { type: 'string', description: 'metadata property or include parameter' },
              serviceName: { type: 'string', description: 'include service' },
              type: { type: 'string', enum: ['document'] },
            },
          },
        },
      },
    },
    IncomingMediaReference: {
      type: 'object',
      description: 'A media library entry whose metadata points at the document',
      required: ['id', 'references'],
      properties: {
        id: { type: 'string', description: 'the media library entry' },
        references: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'location', 'propertyName', 'type'],
            properties: {
              id: { type: 'string', description: 'the referenced document' },
              location: { type: 'string', enum: ['metadata'] },
              propertyName: { type: 'string' },
              type: { type: 'string', enum: ['document'] },
            },
          },
        },
      },
    },
    DocumentList: {
      type: 'object',
      required: ['id', 'name', 'documents', 'createdAt', 'updatedAt'],
      properties: {
        id: { type: 'integer' },
        name: { type: 'string' },
        documents: {
          type: 'array',
          description: 'the published documents of the list, in list order; unpublished ones are skipped',
          items: ref('Document'),
        },
        createdAt: { type: 'string', format: 'date-time' },
        updatedAt: { type: 'string', format: 'date-time' },
      },
    },
    ApplyProjectConfig: {
      type: 'object',
      description:
        'The config under channelConfig (what existing clients send) or projectConfig (its synonym), not both',
      properties: {
        plan: { type: 'boolean', description: 'default false: true shows the patches and changes nothing' },
        channelConfig: { type: 'object' },
        projectConfig: { type: 'object' },
      },
      oneOf: [{ required: ['channelConfig'] }, { required: ['projectConfig'] }],
      additionalProperties: false,
    },
    ApplyProjectConfigResult: {
      type: 'object',
      properties: {
        ok: { type: 'boolean' },
        plan: { type: 'boolean' },
        revisionNumber: { type: 'integer' },
        patches: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              action: { type: 'string', enum: ['add', 'update', 'remove'] },
              pointer: { type: 'string' },
              value: {},
              valueBefore: {},
            },
          },
        },
      },
    },
  };
  const asset = {
    type: 'object',
    additionalProperties: false,
    properties: {
      key: { type: 'string', description: 'the object key; serve-image/{key} serves the bytes' },
      filename: { type: 'string' },
      mimeType: { type: 'string', description: 'read from the bytes' },
      size: { type: 'integer' },
      width: { type: 'integer' },
      height: { type: 'integer' },
      duration: { type: 'number' },
      url: { type: 'string', format: 'uri' },
      storage: { type: 'string', deprecated: true },
    },
  };
  components.MediaEntry = {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'mediaType', 'createdAt', 'updatedAt', 'version', 'metadata', 'translations'],
    properties: {
      id: MEDIA_ID,
      mediaType: { type: 'string', enum: ['image', 'video', 'file'] },
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
      version: { type: 'integer' },
      metadata: { type: 'object', additionalProperties: true },
      asset,
      translations: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['locale', 'metadata'],
          properties: {
            locale: { type: 'string', pattern: '^[a-z][a-zA-Z0-9-]+$' },
            metadata: { type: 'object', additionalProperties: true },
            asset,
          },
        },
      },
    },
  };
  components.MediaImportResult = {
    oneOf: [
      {
        type: 'object',
        required: ['ok', 'status', 'id', 'record'],
        properties: {
          ok: { const: true },
          status: { const: 200 },
          id: MEDIA_ID,
          record: ref('MediaEntry'),
        },
      },
      {
        type: 'object',
        required: ['ok', 'status', 'error', 'error_details'],
        properties: {
          ok: { const: false },
          status: { type: 'integer', description: '400 ValidationError, 409 UniqueIdViolation' },
          error: { type: 'string' },
          error_details: { type: 'object', additionalProperties: true },
        },
      },
    ],
  };
  components.IncomingDocumentReferences = {
    type: 'object',
    required: ['id', 'references'],
    properties: {
      id: { type: 'integer', description: 'the referring document' },
      references: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            componentId: { type: 'string' },
            componentName: { type: 'string' },
            directiveName: { type: 'string' },
            id: { type: 'string', description: 'the media entry' },
            location: { type: 'string', enum: ['image-directive', 'metadata', 'include-directive'] },
            propertyName: { type: 'string' },
            serviceName: { type: 'string' },
            type: { const: 'media' },
          },
        },
      },
    },
  };
  components.IncomingMediaReferences = {
    type: 'object',
    required: ['id', 'references'],
    properties: {
      id: { type: 'string', description: 'the referring media entry' },
      references: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            location: { const: 'metadata' },
            propertyName: { type: 'string' },
            type: { type: 'string' },
          },
        },
      },
    },
  };
  components.Menu = answer(menuAnswer, '', components);
  components.Channel = answer(channelAnswer, '', components);
  components.PublicationState = {
    type: 'object',
    description:
      "One document's publication state as the planning tool follows it. status: draft (never published), " +
      'published (live; hasUnpublishedChanges when the draft changed since), unpublished (was live), ' +
      'not-found (no such document in the project: then documentId and status only)',
    required: ['documentId', 'status'],
    properties: {
      documentId: DOCUMENT_ID,
      status: { type: 'string', enum: ['draft', 'published', 'unpublished', 'not-found'] },
      publicationId: { type: ['integer', 'null'], description: 'the live publication' },
      hasUnpublishedChanges: { type: 'boolean' },
      version: { type: 'integer' },
      updatedAt: { type: 'string', format: 'date-time' },
      firstPublicationDate: { type: ['string', 'null'], format: 'date-time' },
      lastPublicationDate: { type: ['string', 'null'], format: 'date-time' },
      publishSchedule: { type: ['string', 'null'], format: 'date-time' },
      unpublishSchedule: { type: ['string', 'null'], format: 'date-time' },
      embargo: {
        type: ['object', 'null'],
        properties: { reason: { type: 'string' }, until: { type: ['string', 'null'], format: 'date-time' } },
      },
      elementId: { type: ['string', 'null'], description: 'the planner element linked to the document' },
      publication: {
        type: ['object', 'null'],
        additionalProperties: true,
        description: "the tool's record of the publication, as its last PUT publication sent it",
      },
    },
  };
  const commandsBody = versioned(commandRequestSchema, 'Commands', components);
  const planner = [{ bearer: ['planner'] }];
  const elementAnswer = json(
    {
      type: 'object',
      required: ['id'],
      properties: { id: { ...DOCUMENT_ID, description: 'the linked document' } },
    },
    'The linked document',
  );
  const tokenRequest = fromZod(tokenBody, 'PlannerTokenRequest', components);
  /** planner-integration/* in every version; legacy-planner-integration/*, the same, in v1..2025-03 only. */
  const integrationPaths = (segment: string, only: string) => ({
    [`/${segment}/oauth/token`]: {
      post: {
        summary:
          `${only}Client-credentials grant (RFC 6749 §4.4): HTTP Basic with an API client's id and secret ` +
          '(broadsheet client create --secret) for a token with the scope planner, valid ' +
          `${PLANNER_TOKEN_SECONDS} s (never longer than the client) and revoked with the client. 401 ` +
          'InvalidClient for missing or wrong credentials (with a Basic challenge), 403 when the client lacks the ' +
          'planner scope, 400 ConfigurationError when planner.integration is not enabled for its project',
        security: [{ basic: [] }],
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': { schema: tokenRequest },
            'application/json': { schema: tokenRequest },
          },
        },
        responses: {
          200: json(answer(tokenAnswer, 'PlannerToken', components), 'The token', {
            access_token: 'eyJhbGciOiJIUzI1NiJ9.eyJzY29wZSI6InBsYW5uZXIifQ.c2lnbmF0dXJl',
            token_type: 'Bearer',
            expires_in: PLANNER_TOKEN_SECONDS,
            scope: 'planner',
          }),
          ...errors(400, 401, 403, 415),
        },
      },
    },
    [`/${segment}/statuses`]: {
      post: {
        summary:
          `${only}The publication state of each document asked for, in the order asked (an id of no document of ` +
          'the project is status not-found). 400 ConfigurationError when planner.integration is not enabled',
        security: planner,
        requestBody: json(fromZod(statusesBody, 'PlannerStatuses', components)),
        responses: { 200: json(listOf(ref('PublicationState'))), ...errors(400, 401, 403, 413, 415) },
      },
    },
    [`/${segment}/publication`]: {
      put: {
        summary:
          `${only}Follow the publication of the document named by documentId: the body is the tool's record of ` +
          'the publication, stored as sent (a later PUT replaces it; id and status, when sent, are its own id and ' +
          'status words). Answers the publication state, which statuses reports from then on with the record',
        security: planner,
        requestBody: json(fromZod(followBody, 'PlannerPublication', components)),
        responses: { 200: json(ref('PublicationState')), ...errors(400, 401, 403, 404, 413, 415) },
      },
    },
    [`/${segment}/publication/{documentId}`]: {
      put: {
        summary: `${only}The same for the document of the path (a documentId in the body must be it)`,
        security: planner,
        parameters: [pathParam('documentId')],
        requestBody: json(fromZod(followDocumentBody, 'PlannerDocumentPublication', components)),
        responses: { 200: json(ref('PublicationState')), ...errors(400, 401, 403, 404, 413, 415) },
      },
      delete: {
        summary: `${only}Stop following the document's publication (its record goes; the document is untouched)`,
        security: planner,
        parameters: [pathParam('documentId')],
        responses: { 204: { description: 'No longer followed' }, ...errors(400, 401, 403, 404) },
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
          'planner.elements is not enabled; 409 when the element or the document is linked elsewhere',
        security: planner,
        requestBody: json(fromZod(createElementBody, 'PlannerCreateElement', components)),
        responses: { 200: elementAnswer, 201: elementAnswer, ...errors(400, 401, 403, 404, 409, 413, 415) },
      },
      put: {
        summary:
          `${only}Update the document linked to the element named by id: the element replaces the stored one, ` +
          'and each mapped field that differs from what the element said last time becomes a setMetadataProperty ' +
          'command (a field it no longer has is removed); fields the element never named are not touched',
        security: planner,
        requestBody: json(fromZod(updateElementBody, 'PlannerElement', components)),
        responses: { 200: elementAnswer, ...errors(400, 401, 403, 404, 413, 415) },
      },
    },
    [`/${segment}/element/{documentId}`]: {
      put: {
        summary: `${only}The same, for the element linked to the document (an id in the body must be that element's)`,
        security: planner,
        parameters: [pathParam('documentId')],
        requestBody: json(fromZod(updateLinkedElementBody, 'PlannerLinkedElement', components)),
        responses: { 200: elementAnswer, ...errors(400, 401, 403, 404, 409, 413, 415) },
      },
      delete: {
        summary: `${only}Unlink the document from its element; the document stays as it is`,
        security: planner,
        parameters: [pathParam('documentId')],
        responses: { 204: { description: 'Unlinked' }, ...errors(400, 401, 403, 404) },
      },
    },
  });
  const read = [{ bearer: ['public-api:read'] }];
  const referencePaging = [
    query('limit', '1..100, default 100', { type: 'integer', minimum: 1, maximum: 100 }),
    query('offset', 'max 10000', { type: 'integer', minimum: 0, maximum: 10000 }),
    query('after', '2026-01+: the cursor of the previous page (instead of offset)'),
  ];
  const write = [{ bearer: ['public-api:write'] }];
  const incomingPaging = [
    query('limit', 'default 100, max 100', { type: 'integer', minimum: 0, maximum: 100 }),
    query('offset', 'default 0, max 10000; not with after', { type: 'integer', minimum: 0, maximum: 10000 }),
    inVersions({ from: '2026-01' }, query('after', 'the cursor of the previous page (2026-01 and later)')),
  ];
  const incomingExtra = {
    total: { type: 'integer', description: 'how many items in all' },
    cursor: { type: ['string', 'null'], description: 'the after of the next page; null on the last page' },
  };
  const fieldsParam = query('fields', 'comma separated: systemdata, metadata, content, references');

  return {
    openapi: '3.1.0',
    info: {
      title: 'Broadsheet API',
      version: '2026-03',
      description:
        'Content delivery and management API. Every path starts with /api/{version}; versions: ' +
        `${ALL_VERSION_LABELS.join(', ')} (v1 and beta behave as 2025-03). Errors always use the Error envelope, ` +
        'including 400 for a malformed URL or body, 415 for a body that is not application/json and 431 for ' +
        `headers over 16 KB. JSON bodies may nest at most ${MAX_BODY_DEPTH} levels and may not contain __proto__ ` +
        "keys, U+0000 or unpaired surrogates (400 naming the path); a document's metadata and content may nest " +
        `${DOCUMENT_LIMITS.content.maxDepth} levels and be at most ${DOCUMENT_LIMITS.metadata.maxBytes / 1024} KiB ` +
        `and ${DOCUMENT_LIMITS.content.maxBytes / 1024 / 1024} MiB as JSON. Searches answer 503 with Retry-After ` +
        'while Elasticsearch is unavailable.',
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
    paths: {
      '/health': {
        get: {
          summary: 'Liveness, no token',
          responses: { 200: json(answer(livenessAnswer, 'Liveness', components), 'OK', { status: 'ok' }) },
        },
      },
      '/health/ready': {
        get: {
          summary: 'Readiness: Postgres and Elasticsearch answer',
          responses: {
            200: json(answer(readinessAnswer, 'Readiness', components), 'OK', {
              status: 'ok',
              postgres: 'ok',
              elasticsearch: 'ok',
            }),
            ...errors(503),
          },
        },
      },
      '/openapi.json': {
        get: {
          summary: "This description: the version's own routes, parameters and answers; no token",
          responses: { 200: json({ type: 'object' }) },
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
          parameters: [
            pathParam('asset', {
              type: 'string',
              enum: ['swagger-ui.css', 'swagger-ui-bundle.js', 'docs.js', 'favicon-32x32.png'],
            }),
          ],
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
          responses: { 200: json({ type: 'object' }), ...errors(400, 401, 403) },
        },
        post: {
          summary: 'Plan or apply a new project configuration',
          security: [{ bearer: ['public-api:config:write'] }],
          requestBody: json(ref('ApplyProjectConfig')),
          responses: { 200: json(ref('ApplyProjectConfigResult')), ...errors(400, 401, 403, 409, 415) },
        },
      },
      '/channelConfig': {
        get: {
          summary: 'Legacy name of GET projectConfig (v1 to 2025-05)',
          security: [{ bearer: ['public-api:config:read'] }],
          responses: { 200: json({ type: 'object' }), ...errors(400, 401, 403) },
        },
        post: {
          summary: 'Legacy name of POST projectConfig (v1 to 2025-05): the same plan/apply answers',
          security: [{ bearer: ['public-api:config:write'] }],
          requestBody: json(ref('ApplyProjectConfig')),
          responses: { 200: json(ref('ApplyProjectConfigResult')), ...errors(400, 401, 403, 409, 415) },
        },
      },
      '/project': {
        get: {
          summary: 'Legacy (v1 to 2025-05): the project and its channels',
          security: [{ bearer: ['public-api:config:read'] }],
          responses: {
            200: json(answer(legacyProjectAnswer, '', components), 'OK', {
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
          summary: 'Legacy (v1 to 2025-05): one channel of the project',
          security: read,
          parameters: [pathParam('channelHandle', { type: 'string' })],
          responses: { 200: json(ref('Channel')), ...errors(400, 401, 403, 404) },
        },
      },
      '/categories': {
        get: {
          summary: "The project's categories in config order (400 when its channel configuration is static)",
          security: read,
          responses: {
            200: json(
              listOf(answer(categoryItem, 'Category', components), {}, [
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
          parameters: [
            pathParam('categoryId', { type: 'string' }),
            query('inheritMetadata', 'default false', { type: 'boolean' }),
          ],
          responses: {
            200: json(answer(categoryAnswer, 'Category', components), 'OK', {
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
          parameters: [query('handle', 'one menu by its handle (404 when unknown); all menus without it')],
          responses: { 200: json({ type: 'array', items: ref('Menu') }), ...errors(400, 401, 403, 404) },
        },
      },
      '/menus/{channelHandle}': {
        get: {
          summary: 'Menus of one channel (v1, beta and 2025-03 only)',
          security: read,
          parameters: [
            pathParam('channelHandle', { type: 'string' }),
            query('handle', 'one menu by its handle (404 when unknown); all menus without it'),
          ],
          responses: { 200: json({ type: 'array', items: ref('Menu') }), ...errors(400, 401, 403, 404) },
        },
      },
      '/design': {
        get: {
          summary: 'The current design',
          security: read,
          responses: { 200: json({ type: 'object' }), ...errors(401, 403, 404) },
        },
      },
      '/design/{designVersion}': {
        get: {
          summary: 'A design version',
          security: read,
          parameters: [pathParam('designVersion', { type: 'string' })],
          responses: { 200: json({ type: 'object' }), ...errors(401, 403, 404) },
        },
      },
      '/composition/{documentId}': {
        post: {
          summary:
            'One published document gathered for rendering (every API version). fields picks systemdata, metadata, ' +
            'content, html, includes, design (default systemdata, metadata, content, and includes with ' +
            'resolveIncludes true); metadata.preload names metadata properties whose document references resolve to ' +
            'their published {systemdata, metadata} (drafts stay isPreloaded false); resolveIncludes resolves include ' +
            "directives that reference documents or a document list; html renders the design's component " +
            'templates with the content made safe (README, "Composition"); component conditions apply to content, ' +
            "html and includes. The body is optional; unpublished and other projects' documents are 404",
          security: read,
          parameters: [pathParam('documentId')],
          requestBody: {
            required: false,
            description: 'optional as a whole: every key has a default',
            content: {
              'application/json': { schema: fromZod(compositionBodySchema, 'Composition', components) },
            },
          },
          responses: {
            200: json({
              type: 'object',
              properties: {
                systemdata: ref('Systemdata'),
                metadata: { type: 'object', additionalProperties: true },
                content: { type: 'array', items: ref('Component') },
                html: { type: 'string' },
                includes: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['componentId', 'directiveName', 'resolvedValue'],
                    properties: {
                      componentId: {
                        type: 'string',
                        description: 'the component id, or its position (0.footer.1)',
                      },
                      directiveName: { type: 'string' },
                      resolvedValue: {
                        type: 'object',
                        properties: {
                          content: {
                            type: 'array',
                            items: {
                              type: 'object',
                              properties: {
                                id: { type: 'string' },
                                component: { type: 'string' },
                                content: { type: 'object' },
                              },
                            },
                          },
                        },
                      },
                    },
                  },
                },
                design: { type: ['object', 'null'] },
              },
            }),
            ...errors(400, 401, 403, 404, 413, 415),
          },
        },
      },
      '/import/documents': {
        post: {
          summary: 'Import documents in the background; answers the job id',
          security: write,
          requestBody: json(fromZod(ImportRequestSchema, 'Import', components), 'The import', {
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
            200: json(answer(importStartedAnswer, 'ImportStarted', components), 'The job', {
              id: '5d0c7c1e-2b7a-4f0e-8a39-0c7f4f2d9b11',
            }),
            ...errors(400, 401, 403, 413, 415),
          },
        },
      },
      '/import/documents/status': {
        get: {
          summary: 'State and per-document log of an import job',
          security: write,
          parameters: [{ ...query('id', 'job id'), required: true }],
          responses: {
            200: json(answer(importStatusAnswer, 'ImportStatus', components), 'The job', {
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
          parameters: [
            query('ids', 'comma separated media ids (max 100); also ids[0]=…&ids[1]=… or repeated ids=', {
              type: 'string',
            }),
            query('externalId', 'with systemName: the entry a system knows by this id'),
            query('systemName', 'with externalId'),
          ],
          responses: { 200: json(listOf(ref('MediaEntry'))), ...errors(400, 401, 403) },
        },
      },
      '/mediaLibrary/{id}': {
        get: {
          summary: "One media library entry (api-spec §2.7); another project's entry is 404",
          security: read,
          parameters: [pathParam('id', MEDIA_ID)],
          responses: { 200: json(ref('MediaEntry')), ...errors(400, 401, 403, 404) },
        },
        patch: {
          summary:
            'Patch an entry: revokeAsset (note from 2026-01; 409 ConflictError when already revoked from ' +
            '2026-01, the note kept), unrevokeAsset (2026-01+; 409 ConflictError when not revoked), setMetadata, ' +
            'setTranslations; preserveUpdatedAt from 2026-03. One transaction per batch, a new version',
          security: write,
          parameters: [pathParam('id', MEDIA_ID)],
          requestBody: json(fromZod(patchMediaBody(ApiVersion.latest()), 'MediaPatch', components)),
          responses: { 200: json(ref('MediaEntry')), ...errors(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      '/mediaLibrary/{id}/incomingDocumentReferences': {
        get: {
          summary:
            'The published documents that use the entry (image directives and image metadata), by document id; ' +
            '{results, total, cursor} from 2026-01, where after takes the cursor of the previous page',
          security: read,
          parameters: [pathParam('id', MEDIA_ID), ...referencePaging],
          responses: {
            200: json(
              listOf(ref('IncomingDocumentReferences'), { total: { type: 'integer' }, cursor: CURSOR }),
            ),
            ...errors(400, 401, 403, 404),
          },
        },
      },
      '/mediaLibrary/{id}/incomingMediaReferences': {
        get: {
          summary:
            'The media entries whose metadata refers to the entry, by entry id; {results, total, cursor} from 2026-01',
          security: read,
          parameters: [pathParam('id', MEDIA_ID), ...referencePaging],
          responses: {
            200: json(listOf(ref('IncomingMediaReferences'), { total: { type: 'integer' }, cursor: CURSOR })),
            ...errors(400, 401, 403, 404),
          },
        },
      },
      '/mediaLibrary/uploads': {
        post: {
          summary:
            'Upload the bytes of an asset (the raw request body, with its Content-Type), for POST ' +
            "import/mediaLibrary to name as asset.uploadId within a day. An image's format, width and height " +
            'are read from its bytes; a body sent as image/* that is not a readable image (or a truncated one) ' +
            'is a 400, one over MEDIA_UPLOAD_MAX_BYTES a 413',
          security: write,
          parameters: [query('filename', 'the file name the entry shows (default upload.<ext>)')],
          requestBody: {
            required: true,
            content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
          },
          responses: {
            201: json(
              {
                type: 'object',
                required: ['uploadId', 'filename', 'mimeType', 'size', 'expiresAt'],
                properties: {
                  uploadId: { type: 'string', format: 'uuid' },
                  filename: { type: 'string' },
                  mimeType: { type: 'string' },
                  size: { type: 'integer' },
                  width: { type: 'integer' },
                  height: { type: 'integer' },
                  expiresAt: { type: 'string', format: 'date-time' },
                },
              },
              'Created',
            ),
            ...errors(400, 401, 403, 413, 415),
          },
        },
      },
      '/import/mediaLibrary': {
        post: {
          summary:
            'Create or update media library entries (by externalId and systemName); each entry on its own, results ' +
            'in request order: {ok: true, status: 200, id, record} or {ok: false, status: 400 | 409, error, ' +
            'error_details}. The bytes come from asset.url (downloaded: http(s), bounded size and time, few ' +
            'redirects, no private addresses) or asset.uploadId. A bare array up to 2025-11, {results} from 2026-01',
          security: write,
          requestBody: json({
            type: 'object',
            required: ['mediaLibraryEntries'],
            additionalProperties: false,
            properties: {
              mediaLibraryEntries: {
                type: 'array',
                minItems: 1,
                maxItems: 100,
                items: fromZod(importMediaEntry, 'MediaImportEntry', components),
              },
            },
          }),
          responses: {
            200: json(listOf(ref('MediaImportResult'))),
            ...errors(400, 401, 403, 413, 415),
          },
        },
      },
      '/documents/latestPublications': {
        get: {
          summary: 'Latest publications, filtered and paged (offset or id ranges for parallel exports)',
          security: read,
          parameters: [
            fieldsParam,
            query('limit', '0..100, default 100', { type: 'integer', minimum: 0, maximum: 100 }),
            query('offset', 'max 10000', { type: 'integer', minimum: 0, maximum: 10000 }),
            query('reverse', 'ascending lastPublicationDate', { type: 'boolean' }),
            query('homepage', 'only the project homepage', { type: 'boolean' }),
            query('contentTypes', 'comma separated'),
            query('documentTypes', 'comma separated: article, page, data-record'),
            query('id', 'one id or a comma separated list'),
            ...['gte', 'gt', 'lte', 'lt'].map((op) => query(`id.${op}`, 'document id range', ID)),
            ...['gte', 'gt', 'lte', 'lt'].map((op) =>
              query(`publishedAt.${op}`, 'lastPublicationDate range', {
                type: 'string',
                format: 'date-time',
              }),
            ),
            ...conditionParams,
          ],
          responses: { 200: json(listOf(ref('Document'))), ...errors(400, 401, 403, 503) },
        },
      },
      '/documents/{documentId}/latestPublication': {
        get: {
          summary: 'The latest publication of one document',
          security: read,
          parameters: [
            pathParam('documentId'),
            fieldsParam,
            inVersions({ to: '2025-07' }, query('renditions', 'comma separated handles; up to 2025-07 only')),
            ...conditionParams,
          ],
          responses: { 200: json(ref('Document')), ...errors(400, 401, 403, 404) },
        },
      },
      '/documents/{documentId}/latestPublication/renditions/{renditionHandles}': {
        get: {
          summary: 'Renditions of the latest publication (up to 2025-07)',
          security: read,
          parameters: [pathParam('documentId'), pathParam('renditionHandles', { type: 'string' })],
          responses: {
            200: json({
              type: 'array',
              items: { type: 'object', properties: { handle: { type: 'string' }, content: {} } },
            }),
            ...errors(400, 401, 403, 404),
          },
        },
      },
      '/documents/{documentId}/latestDraft': {
        get: {
          summary: 'The latest draft (scopes public-api:write and public-api:drafts:read)',
          security: [{ bearer: ['public-api:write', 'public-api:drafts:read'] }],
          parameters: [
            pathParam('documentId'),
            fieldsParam,
            inVersions({ to: '2025-07' }, query('renditions', 'comma separated handles; up to 2025-07 only')),
            ...conditionParams,
          ],
          responses: { 200: json(ref('Document')), ...errors(400, 401, 403, 404) },
        },
      },
      '/documents/{documentId}/commands': {
        patch: {
          summary: 'Run document commands in one transaction (optimistic version, preconditions)',
          security: write,
          parameters: [pathParam('documentId')],
          requestBody: json(commandsBody, 'Commands, run in order', {
            version: 3,
            preconditions: [{ type: 'isPublished', value: false }],
            commands: [
              { operation: 'setMetadataProperty', propertyName: 'title', value: 'Council votes on budget' },
              { operation: 'publish' },
            ],
          }),
          responses: {
            204: { description: 'All commands applied' },
            ...errors(400, 401, 403, 404, 409, 415),
          },
        },
      },
      '/documents/{documentId}/addDeliveryStatus': {
        post: {
          summary: 'Create or update a delivery status report',
          security: write,
          parameters: [pathParam('documentId')],
          requestBody: json(fromZod(addDeliveryStatusBody, 'DeliveryStatus', components), 'The report', {
            publicationId: 7,
            deliveryHandle: 'print',
            status: 'success',
            message: 'Sent to press',
          }),
          responses: {
            200: json(answer(deliveryStatusAnswer, 'DeliveryStatusReport', components), 'The stored report', {
              reportId: '0f8b5c1e-3a4d-4b8e-9c2f-1d2e3f4a5b6c',
              documentId: 42,
              publicationId: 7,
              deliveryHandle: 'print',
              status: 'success',
              message: 'Sent to press',
              createdAt: '2026-03-02T09:00:00.000Z',
              updatedAt: '2026-03-02T09:05:00.000Z',
            }),
            ...errors(400, 401, 403, 404, 415),
          },
        },
      },
      '/publications/search': {
        get: {
          summary: 'Full-text and filtered search over the latest publications (teasers, tickers)',
          security: read,
          parameters: [
            query('search', 'full text; quote a part for an exact phrase'),
            query('contentTypes', 'comma separated, OR'),
            query('categories', 'comma separated category ids, OR'),
            query('languages', 'comma separated locales, OR'),
            query('languageGroupId', 'all translations of a document'),
            query('filters', 'JSON filter expression (supplement §5)'),
            query('sort', 'comma separated; - prefix descends; default -sortDate,-documentId'),
            query('fields', 'comma separated, or id for {documentId, projectId} items'),
            query('limit', 'default 10, max 100', { type: 'integer', minimum: 0, maximum: 100 }),
            query('offset', 'max 10000', { type: 'integer', minimum: 0, maximum: 10000 }),
            inVersions(
              { from: '2026-01' },
              query(
                'after',
                'cursor of the previous response (from 2026-01), signed by the server; valid for the same sort only',
              ),
            ),
            ...conditionParams,
          ],
          responses: {
            200: json(listOf(ref('Document'), { total: { type: 'integer' }, cursor: { type: 'string' } })),
            ...errors(400, 401, 403, 503),
          },
        },
      },
      '/documents/{documentId}/incomingDocumentReferences': {
        get: {
          summary:
            'Published documents whose latest publication points at this published document (metadata, link ' +
            'and include directives), ascending id; 404 when the document is not published',
          security: read,
          parameters: [pathParam('documentId'), ...incomingPaging],
          responses: {
            200: json(listOf(ref('IncomingDocumentReference'), incomingExtra)),
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
          parameters: [pathParam('documentId'), ...incomingPaging],
          responses: {
            200: json(listOf(ref('IncomingMediaReference'), incomingExtra)),
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
          parameters: [pathParam('documentId'), ...incomingPaging],
          responses: {
            200: json(listOf(ref('IncomingDocumentReference'), incomingExtra)),
            ...errors(400, 401, 403, 404),
          },
        },
      },
      '/document-lists': {
        get: {
          summary:
            "The project's document lists, the exact name first, then by name; each with its first `limit` " +
            'published documents (systemdata, metadata), newest-added first. At most 100 lists per answer: ' +
            'offset pages through more',
          security: read,
          parameters: [
            query('name', 'only lists whose name contains this (case-insensitive)'),
            query('limit', 'documents resolved per list: default 10, max 100', {
              type: 'integer',
              minimum: 0,
              maximum: 100,
            }),
            query('offset', 'lists skipped: default 0, max 10000', {
              type: 'integer',
              minimum: 0,
              maximum: 10000,
            }),
          ],
          responses: { 200: json(listOf(ref('DocumentList'))), ...errors(400, 401, 403) },
        },
      },
      '/document-lists/{id}': {
        get: {
          summary: 'One document list with its first `limit` published documents (never wrapped)',
          security: read,
          parameters: [
            pathParam('id', { type: 'integer', minimum: 1, maximum: 2147483647 }),
            query('reverse', 'default true: newest-added first; false: the order seen in the editor', {
              type: 'boolean',
            }),
            query('fields', 'comma separated: systemdata, metadata, content; default systemdata,metadata'),
            query('limit', 'default 100, max 100', { type: 'integer', minimum: 0, maximum: 100 }),
            ...conditionParams,
          ],
          responses: { 200: json(ref('DocumentList')), ...errors(400, 401, 403, 404) },
        },
      },
      '/publicationEvents': {
        get: {
          summary: 'Publication events, ascending id; page with id.gt',
          security: read,
          parameters: [
            query('limit', 'default 100, max 1000', { type: 'integer', minimum: 0, maximum: 1000 }),
            query('reverse', 'descending id', { type: 'boolean' }),
            query('contentTypes', 'comma separated'),
            query('documentTypes', 'comma separated'),
            ...['gt', 'gte', 'lt', 'lte'].map((op) => query(`id.${op}`, 'event id range', ID)),
            ...['gt', 'gte', 'lt', 'lte'].map((op) =>
              query(`createdAt.${op}`, 'creation time range', { type: 'string', format: 'date-time' }),
            ),
          ],
          responses: { 200: json(listOf({ type: 'object' })), ...errors(400, 401, 403) },
        },
      },
      '/enrichment/re-enrich': {
        post: {
          summary:
            'Re-enrich documents in the background: {} at once, one job per document of the project (unknown ids ' +
            "are skipped). Each job POSTs the document's text to the project's enrichment service and writes the " +
            'entities it answers into the metadata as document commands (README, "Enrichment"). 400 ' +
            'ConfigurationError when the project has no enrichment enabled',
          security: [{ bearer: ['enrichment'] }],
          requestBody: json(fromZod(reEnrichBody, 'ReEnrich', components)),
          responses: {
            200: json({ type: 'object', additionalProperties: false }),
            ...errors(400, 401, 403, 413, 415),
          },
        },
      },
      ...elementPaths('planner', ''),
      ...elementPaths('legacy-planner', 'v1, beta and 2025-03 only. '),
      ...integrationPaths('planner-integration', ''),
      ...integrationPaths('legacy-planner-integration', 'v1, beta and 2025-03 only. '),
      '/publicationEvents/{channelHandle}': {
        get: {
          summary: 'Publication events of one channel',
          security: read,
          parameters: [pathParam('channelHandle', { type: 'string' })],
          responses: { 200: json(listOf({ type: 'object' })), ...errors(400, 401, 403, 404) },
        },
      },
      '/mediaLibrary/serve-image/{key}': {
        get: {
          summary: "An image's stored bytes in original dimensions (2025-03 on, so every version); HEAD too",
          description:
            'The key is the asset key of a media library entry (or of one of its translations) and may contain ' +
            'slashes (2025/03/14/<uuid>.jpeg); it must not contain `.` or `..` segments, empty segments, ' +
            'backslashes or control characters (400). Strong ETag, `Cache-Control: private, no-cache`; ' +
            '`If-None-Match` gives 304; one `Range: bytes=...` gives 206 (several ranges: the whole image), ' +
            'one beyond the end 416. A revoked or invalid image is 403 `The requested image is revoked or ' +
            "marked as invalid`; a key of no entry of the token's project is 404.",
          security: read,
          parameters: [
            { ...pathParam('key', { type: 'string' }), description: 'the asset key; may contain slashes' },
            {
              name: 'Range',
              in: 'header',
              required: false,
              description: 'one byte range, bytes=a-b, a- or -n',
              schema: { type: 'string' },
            },
            { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
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
            304: { description: 'Not modified: If-None-Match names the current ETag' },
            ...errors(400, 401, 403, 404, 416),
          },
        },
      },
    },
  };
}
