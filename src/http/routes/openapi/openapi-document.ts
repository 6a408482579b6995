import { z } from 'zod';
import { ALL_VERSION_LABELS } from '../../../domain/api-versions';
import { commandRequestSchema } from '../../../domain/document-commands/schema';
import { DOCUMENT_LIMITS, MAX_BODY_DEPTH } from '../../../domain/json-limits';
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
  tokenBody,
} from '../planner-integration/planner-integration.schema';
import { PLANNER_TOKEN_SECONDS } from '../../../domain/planner-integration';

/**
 * The OpenAPI 3.1 description of the API. Request bodies that the code validates with zod are generated
 * from those same schemas, so the description cannot drift from what the server accepts.
 */
type Schema = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Converts a zod schema and lifts its `$defs` into components under `prefix`. */
function fromZod(schema: z.ZodType, prefix: string, components: Record<string, Schema>): Schema {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Schema & {
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
      { description: 'Error', content: { 'application/json': { schema: ref('Error') } } },
    ]),
  );

const json = (schema: Schema, description = 'OK') => ({
  description,
  content: { 'application/json': { schema } },
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

const listOf = (item: Schema, extra: Record<string, Schema> = {}) => ({
  oneOf: [
    { type: 'array', items: item, description: 'up to 2025-11' },
    {
      type: 'object',
      properties: { results: { type: 'array', items: item }, ...extra },
      required: ['results'],
      description: 'from 2026-01',
    },
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
    Channel: {
      type: 'object',
      properties: {
        channelId: { type: 'integer' },
        channelHandle: { type: 'string' },
        label: { type: 'string' },
        designName: { type: ['string', 'null'] },
        designVersion: { type: ['string', 'null'] },
        contentTypeHandles: { type: 'array', items: { type: 'string' } },
      },
    },
    MenuNode: {
      type: 'object',
      required: ['id', 'label', 'type', 'nodes'],
      properties: {
        id: { type: 'string' },
        label: { type: 'string' },
        type: { type: 'string', enum: ['uri', 'path', 'document'] },
        uri: { type: 'string', description: 'type uri: an absolute http, https, mailto or tel URI' },
        path: { type: 'string', description: "type path: starts with '/'" },
        documentId: { type: 'string', description: 'type document: a document of the project' },
        nodes: { type: 'array', items: ref('MenuNode') },
      },
    },
    Menu: {
      type: 'object',
      required: ['handle', 'label', 'version', 'maxDepth', 'nodes'],
      properties: {
        handle: { type: 'string' },
        label: { type: 'string' },
        version: { type: 'integer', description: 'grows with every change' },
        maxDepth: { type: 'integer', description: 'levels below the top one (0: a flat menu)' },
        nodes: { type: 'array', items: ref('MenuNode') },
      },
    },
  };
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
  const commandsBody = fromZod(commandRequestSchema, 'Commands', components);
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
          200: json({
            type: 'object',
            required: ['access_token', 'token_type', 'expires_in', 'scope'],
            properties: {
              access_token: { type: 'string', description: 'send as Authorization: Bearer' },
              token_type: { const: 'Bearer' },
              expires_in: { type: 'integer', maximum: PLANNER_TOKEN_SECONDS },
              scope: { const: 'planner' },
            },
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
  const write = [{ bearer: ['public-api:write'] }];
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
      '/health': { get: { summary: 'Liveness, no token', responses: { 200: json({ type: 'object' }) } } },
      '/health/ready': {
        get: {
          summary: 'Readiness: Postgres and Elasticsearch answer',
          responses: { 200: json({ type: 'object' }), ...errors(503) },
        },
      },
      '/openapi.json': {
        get: { summary: 'This description, no token', responses: { 200: json({ type: 'object' }) } },
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
            200: json({
              type: 'object',
              properties: {
                projectId: { type: 'integer' },
                name: { type: 'string', description: 'the project handle' },
                label: { type: 'string' },
                defaultChannelId: { type: 'integer' },
                channels: { type: 'array', items: ref('Channel') },
              },
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
              listOf({
                type: 'object',
                required: ['id', 'label', 'path'],
                properties: {
                  id: { type: 'string' },
                  label: { type: 'string' },
                  path: { type: 'string' },
                  parent: { type: 'string', description: 'id of the parent category' },
                },
              }),
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
            200: json({
              type: 'object',
              required: ['id', 'label', 'path', 'metadata'],
              properties: {
                id: { type: 'string' },
                label: { type: 'string' },
                path: { type: 'string' },
                metadata: { type: 'object', additionalProperties: true },
              },
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
      '/import/documents': {
        post: {
          summary: 'Import documents in the background; answers the job id',
          security: write,
          requestBody: json({ type: 'object', required: ['systemName', 'documents'] }),
          responses: {
            200: json({ type: 'object', properties: { id: { type: 'string' } } }),
            ...errors(400, 401, 403, 413, 415),
          },
        },
      },
      '/import/documents/status': {
        get: {
          summary: 'State and per-document log of an import job',
          security: write,
          parameters: [{ ...query('id', 'job id'), required: true }],
          responses: { 200: json({ type: 'object' }), ...errors(400, 401, 403, 404) },
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
            query('renditions', 'comma separated handles; up to 2025-07 only'),
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
            query('renditions', 'comma separated handles; up to 2025-07 only'),
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
          requestBody: json(commandsBody),
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
          requestBody: json({
            type: 'object',
            required: ['publicationId', 'deliveryHandle', 'status'],
            properties: {
              publicationId: { type: 'integer' },
              deliveryHandle: { type: 'string' },
              status: { type: 'string', enum: ['success', 'failed', 'in-progress', 'aborted'] },
              message: { type: 'string' },
              reportId: { type: 'string' },
              userChoices: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { label: { type: 'string' }, value: { type: 'string' } },
                },
              },
            },
          }),
          responses: {
            200: json({ type: 'object', properties: { reportId: { type: 'string' } } }),
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
            query(
              'after',
              'cursor of the previous response (from 2026-01), signed by the server; valid for the same sort only',
            ),
            ...conditionParams,
          ],
          responses: {
            200: json(listOf(ref('Document'), { total: { type: 'integer' }, cursor: { type: 'string' } })),
            ...errors(400, 401, 403, 503),
          },
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
    },
  };
}
