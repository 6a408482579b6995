import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { createApiClient } from '../../src/commands/api-clients';
import { documentListQueries } from '../../src/db/queries/document-lists';
import { ALL_VERSION_LABELS, ApiVersion } from '../../src/domain/api-versions';
import { listRoutes, routeExistsIn, type RouteEntry } from '../../src/http/route-table';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument, indexNow } from '../helpers/documents';
import { ALL_SCOPES, createTestProject, TEST_DESIGN, tokenFor } from '../helpers/factories';
import { noisePng } from '../helpers/image-server';
import { localFolderBackend, type StoreBackend } from '../helpers/object-stores';

/**
 * The OpenAPI description of each API version: exactly the routes that version has mounted, every example in
 * it valid against the schema next to it, the version differences (list shapes, version-only parameters), and
 * real answers of the app, on a small project that has one of everything, valid against the schemas each
 * version describes for them: every JSON answer schema of every version held to at least one real answer.
 */
type Schema = Record<string, unknown>;
interface OpenApi {
  openapi: string;
  info: { version: string; description: string };
  servers: { url: string }[];
  components: { schemas: Record<string, Schema> };
  paths: Record<string, Record<string, Schema>>;
}

/** A real answer of the app: to which operation of which version, and what came back. */
interface Answer {
  label: string;
  /** `GET /documents/{documentId}/latestPublication`: the operation as the description names it. */
  operation: string;
  url: string;
  expected: number;
  status: number;
  contentType: string;
  body: unknown;
}

let app: TestApp;
let backend: StoreBackend;
let routes: RouteEntry[];
const documents = new Map<string, OpenApi>();
const answers: Answer[] = [];
/** Real answers to HEAD requests (no body to validate): which operation, the status and the body's length. */
const headAnswers: { label: string; operation: string; status: number; bodyLength: number }[] = [];
/**
 * Each GET asked again as a HEAD with the same headers: where the HEAD's status or headers were not the GET's
 * (the Content-Length of the GET's body included), what differed.
 */
const headMismatches: { label: string; url: string; get: unknown; head: unknown }[] = [];
/** Headers that differ from one answer to the next whatever the method: the time, ids, the rate limit left. */
const VARYING_HEADERS = /^(date|x-request-id|ratelimit|ratelimit-policy|keep-alive|connection)$/;

/** A HEAD's answer beside its GET's: the status and the headers that must be the same. */
async function headBesideGet(
  label: string,
  operation: string,
  url: string,
  headers: Record<string, string>,
  get: { status: number; headers: Headers; bodyLength: number },
): Promise<void> {
  const response = await fetch(`${app.url}/api/${label}/${url}`, { method: 'HEAD', headers });
  const bodyLength = (await response.arrayBuffer()).byteLength;
  headAnswers.push({
    label,
    operation: operation.replace(/^GET/, 'HEAD'),
    status: response.status,
    bodyLength,
  });
  const kept = (all: Headers) =>
    Object.fromEntries([...all.entries()].filter(([name]) => !VARYING_HEADERS.test(name)));
  const getHeaders = kept(get.headers);
  const lengthOfGet = get.headers.get('content-length');
  // A GET sent in pieces (or chunked) says its length by its body: the HEAD names that length.
  if (lengthOfGet === null && get.status !== 304 && get.status !== 204) {
    getHeaders['content-length'] = String(get.bodyLength);
  }
  const [getSide, headSide] = [
    { status: get.status, ...getHeaders },
    { status: response.status, ...kept(response.headers) },
  ];
  if (JSON.stringify(Object.entries(getSide).sort()) !== JSON.stringify(Object.entries(headSide).sort())) {
    headMismatches.push({ label, url, get: getSide, head: headSide });
  }
}
/**
 * Each GET answered 200 with an ETag, asked again with If-None-Match naming it: which operation, the status and
 * the body's length of the second answer.
 */
const conditionalAnswers: { label: string; operation: string; status: number; bodyLength: number }[] = [];
/** POST mediaLibrary/uploads of the same image bytes under each Content-Type: which type, and the status. */
const uploadAnswers: { contentType: string; status: number }[] = [];

beforeAll(async () => {
  backend = await localFolderBackend();
  // A database of its own: the fixture's jobs (import, re-enrich) are nobody else's workers' business.
  app = await startTestApp({ env: { ...(await isolatedEnv('openapi')), ...backend.env } });
  routes = listRoutes(app.app.router);
  for (const label of ALL_VERSION_LABELS) {
    const response = await fetch(`${app.url}/api/${label}/openapi.json`);
    expect(response.status).toBe(200);
    documents.set(label, (await response.json()) as OpenApi);
  }
  // Every request is made before any test compiles a schema: compiling blocks the process (the app's too)
  // long enough for a kept-alive connection to be closed under the next request.
  await collectAnswers();
}, 120_000);
afterAll(async () => {
  await app.close();
  await backend.dispose();
});

/** The small project and one call of every documented JSON answer, in an old and a current version. */
async function collectAnswers(): Promise<void> {
  const { ctx } = app;
  const { projectId } = await createTestProject(ctx, {
    config: {
      planner: { elements: { enabled: true }, integration: { enabled: true } },
      enrichment: { enabled: true, url: 'http://127.0.0.1:9/entities' },
    },
  });
  const { token } = await tokenFor(ctx, projectId, ALL_SCOPES);
  /** A token without public-api:read: the 403 of a read. */
  const enrichmentOnly = (await tokenFor(ctx, projectId, ['enrichment'])).token;
  const planner = await createApiClient(ctx.pool, ctx.config.auth.jwtSecret, {
    projectId,
    name: 'planning tool',
    scopes: ['planner'],
    withSecret: true,
  });

  const call = async (
    label: string,
    expected: number,
    operation: string,
    url: string,
    options: { body?: unknown; raw?: Buffer; headers?: Record<string, string>; token?: string | null } = {},
  ) => {
    const [method] = operation.split(' ');
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== null) headers.authorization = `Bearer ${options.token ?? token}`;
    if (options.body !== undefined) headers['content-type'] ??= 'application/json';
    const response = await fetch(`${app.url}/api/${label}/${url}`, {
      method,
      headers,
      ...(options.raw !== undefined && { body: options.raw }),
      ...(options.body !== undefined && {
        body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
      }),
    });
    const contentType = response.headers.get('content-type') ?? '';
    const bytes = Buffer.from(await response.arrayBuffer());
    const text = bytes.toString('utf8');
    const body: unknown = contentType.startsWith('application/json') ? JSON.parse(text) : text;
    answers.push({ label, operation, url, expected, status: response.status, contentType, body });
    if (method === 'GET') {
      const get = { status: response.status, headers: response.headers, bodyLength: bytes.length };
      await headBesideGet(label, operation, url, headers, get);
    }
    const etag = response.headers.get('etag');
    if (method === 'GET' && response.status === 200 && etag !== null) {
      const conditional = { ...headers, 'if-none-match': etag };
      const again = await fetch(`${app.url}/api/${label}/${url}`, { headers: conditional });
      const bodyLength = (await again.arrayBuffer()).byteLength;
      conditionalAnswers.push({ label, operation, status: again.status, bodyLength });
      await headBesideGet(label, operation, url, conditional, {
        status: again.status,
        headers: again.headers,
        bodyLength,
      });
    }
    return body as Record<string, unknown> & { results?: Record<string, unknown>[] };
  };

  // Media: an image, an entry whose metadata refers to it, and one whose metadata refers to a document.
  const png = await noisePng(24, 16);
  /** The bytes of one entry: an upload is used up by the import that names it. */
  const upload = async () =>
    (
      await call('2026-03', 201, 'POST /mediaLibrary/uploads', 'mediaLibrary/uploads?filename=noise.png', {
        raw: png,
        headers: { 'content-type': 'image/png' },
      })
    ).uploadId;
  const importMedia = (label: string, entries: unknown[]) =>
    call(label, 200, 'POST /import/mediaLibrary', 'import/mediaLibrary', {
      body: { mediaLibraryEntries: entries },
    });
  for (const contentType of [
    'image/png',
    'application/octet-stream',
    'application/pdf',
    'video/mp4',
    'audio/mpeg',
    'text/plain',
    'application/json',
    'application/ld+json',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
  ]) {
    const response = await fetch(`${app.url}/api/2026-03/mediaLibrary/uploads?filename=noise.png`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
      body: png,
    });
    await response.arrayBuffer();
    uploadAnswers.push({ contentType, status: response.status });
  }
  await importMedia('2026-03', [
    { id: 'hero', mediaType: 'image', asset: { uploadId: await upload() }, metadata: { title: 'Hero' } },
    // Refused on its own (no asset): the failure's shape is described too.
    { id: 'broken', mediaType: 'image' },
  ]);
  await importMedia('2025-03', [
    {
      id: 'gallery',
      mediaType: 'file',
      asset: { uploadId: await upload() },
      metadata: { cover: { $ref: 'mediaLibrary', reference: { id: 'hero' } } },
      translations: [{ locale: 'de', metadata: { title: 'Galerie' } }],
    },
  ]);

  // Documents: an author, an article that refers to it (metadata, include) and shows the image; a page.
  const author = (
    await createPublishedDocument(ctx, projectId, {
      contentType: 'author',
      documentType: 'data-record',
      metadata: { title: 'Ada', name: 'Ada' },
    })
  ).documentId;
  const article = await createPublishedDocument(ctx, projectId, {
    metadata: {
      title: 'Council votes',
      authors: { $ref: 'documents', references: [{ id: String(author) }] },
      category: { id: 'news' },
      teaserImage: { mediaId: 'hero' },
    },
    content: [
      { id: 'doc-title', identifier: `${TEST_DESIGN.name}.title`, content: { title: 'Council votes' } },
      { id: 'doc-image', identifier: `${TEST_DESIGN.name}.image`, content: { image: { mediaId: 'hero' } } },
      {
        id: 'doc-embed',
        identifier: `${TEST_DESIGN.name}.embed`,
        content: {
          teaser: {
            service: 'teaser',
            params: { document: { $ref: 'document', reference: { id: String(author) } } },
          },
        },
      },
      {
        id: 'doc-box',
        identifier: `${TEST_DESIGN.name}.container`,
        containers: {
          main: [
            { id: 'doc-later', identifier: `${TEST_DESIGN.name}.paragraph`, content: { text: 'Later' } },
          ],
        },
        conditions: { brands: ['ch'] },
      },
    ],
    design: { name: TEST_DESIGN.name, version: TEST_DESIGN.version },
  });
  const page = (
    await createPublishedDocument(ctx, projectId, {
      contentType: 'page',
      documentType: 'page',
      metadata: { title: 'Home' },
    })
  ).documentId;
  await indexNow(ctx, projectId, [author, article.documentId, page]);
  await importMedia('2026-03', [
    {
      id: 'about-article',
      mediaType: 'file',
      asset: { uploadId: await upload() },
      metadata: { story: { $ref: 'document', reference: { id: String(article.documentId) } } },
    },
  ]);
  const listId = await documentListQueries(ctx.pool).replace(projectId, 'Front page', [
    article.documentId,
    author,
  ]);
  await ctx.commands.loadMenu({
    projectId,
    menu: {
      handle: 'main',
      label: 'Main',
      maxDepth: 1,
      nodes: [
        {
          label: 'Home',
          type: 'document',
          documentId: String(page),
          nodes: [{ label: 'Contact', type: 'uri', uri: 'mailto:desk@example.org', nodes: [] }],
        },
      ],
    },
  });

  const id = article.documentId;
  // v1 keeps an older default of `fields` (supplement §4): its views without fields, held to its description.
  await call('v1', 200, 'GET /documents/{documentId}/latestPublication', `documents/${id}/latestPublication`);
  await call('v1', 200, 'GET /documents/{documentId}/latestDraft', `documents/${id}/latestDraft`);
  await call('v1', 200, 'GET /documents/latestPublications', 'documents/latestPublications');
  for (const label of ['2025-03', '2026-03']) {
    const legacy = label === '2025-03';
    await call(label, 200, 'GET /health', 'health', { token: null });
    await call(label, 200, 'GET /health/ready', 'health/ready', { token: null });
    await call(label, 200, 'GET /openapi.json', 'openapi.json', { token: null });
    await call(label, 200, 'GET /categories', 'categories');
    await call(label, 200, 'GET /categories/{categoryId}', 'categories/politics?inheritMetadata=true');
    await call(label, 200, 'GET /design', 'design');
    await call(label, 200, 'GET /design/{designVersion}', `design/${TEST_DESIGN.version}`);
    const config = await call(label, 200, 'GET /projectConfig', 'projectConfig');
    await call(label, 200, 'POST /projectConfig', 'projectConfig', {
      body: {
        plan: true,
        projectConfig: { ...config, settings: { ...(config.settings as Schema), label: 'New' } },
      },
    });
    await call(label, 200, 'POST /projectConfig', 'projectConfig', {
      body: { plan: true, projectConfig: { ...config, bogus: true } },
    });
    await call(
      label,
      200,
      'GET /documents/{documentId}/latestPublication',
      `documents/${id}/latestPublication`,
    );
    await call(
      label,
      200,
      'GET /documents/{documentId}/latestDraft',
      `documents/${id}/latestDraft?ignoreComponentConditions=true`,
    );
    await call(label, 200, 'GET /documents/latestPublications', 'documents/latestPublications');
    await call(label, 200, 'GET /publications/search', 'publications/search?limit=2');
    await call(label, 200, 'GET /publications/search', 'publications/search?fields=id');
    await call(label, 200, 'POST /composition/{documentId}', `composition/${id}`, {
      body: {
        fields: ['systemdata', 'metadata', 'content', 'html', 'includes', 'design'],
        metadata: { preload: { authors: true } },
      },
    });
    await call(label, 200, 'GET /document-lists', 'document-lists?limit=5');
    await call(
      label,
      200,
      'GET /document-lists/{id}',
      `document-lists/${listId}?fields=systemdata,metadata,content`,
    );
    for (const kind of ['incomingDocumentReferences', 'incomingMediaReferences']) {
      await call(label, 200, `GET /documents/{documentId}/${kind}`, `documents/${author}/${kind}?limit=1`);
      await call(label, 200, `GET /documents/{documentId}/${kind}`, `documents/${id}/${kind}`);
    }
    await call(
      label,
      200,
      'GET /drafts/{documentId}/incomingDocumentReferences',
      `drafts/${author}/incomingDocumentReferences`,
    );
    const media = await call(label, 200, 'GET /mediaLibrary', 'mediaLibrary?ids=hero,gallery');
    // HEAD of serve-image (Express answers it with the GET's handler): of the image, of it unchanged, of no image.
    const [, heroKey] = /"key":"([^"]+\.png)"/.exec(JSON.stringify(media)) ?? [];
    expect(heroKey).toBeDefined();
    const head = async (path: string, headers: Record<string, string> = {}) => {
      const response = await fetch(`${app.url}/api/${label}/mediaLibrary/serve-image/${path}`, {
        method: 'HEAD',
        headers: { authorization: `Bearer ${token}`, ...headers },
      });
      const bodyLength = (await response.arrayBuffer()).byteLength;
      headAnswers.push({
        label,
        operation: 'HEAD /mediaLibrary/serve-image/{key}',
        status: response.status,
        bodyLength,
      });
      return response;
    };
    const etag = (await head(heroKey!)).headers.get('etag') ?? '';
    await head(heroKey!, { 'if-none-match': etag });
    await head('no/such-image.png');
    await call(label, 200, 'GET /mediaLibrary/{id}', 'mediaLibrary/gallery');
    await call(label, 200, 'PATCH /mediaLibrary/{id}', 'mediaLibrary/hero', {
      body: { patches: [{ operation: 'setMetadata', metadata: { title: `Hero ${label}` } }] },
    });
    await call(
      label,
      200,
      'GET /mediaLibrary/{id}/incomingDocumentReferences',
      'mediaLibrary/hero/incomingDocumentReferences',
    );
    await call(
      label,
      200,
      'GET /mediaLibrary/{id}/incomingMediaReferences',
      'mediaLibrary/hero/incomingMediaReferences',
    );
    await call(label, 200, 'GET /publicationEvents', 'publicationEvents?limit=3');
    await call(label, 200, 'GET /publicationEvents/{channelHandle}', 'publicationEvents/web?reverse=true');
    await call(
      label,
      200,
      'POST /documents/{documentId}/addDeliveryStatus',
      `documents/${id}/addDeliveryStatus`,
      {
        body: {
          publicationId: article.publicationId,
          deliveryHandle: 'print',
          status: 'in-progress',
          userChoices: [{ label: 'Retry', value: 'retry' }],
        },
      },
    );
    const job = await call(label, 200, 'POST /import/documents', 'import/documents', {
      body: {
        systemName: 'wire',
        documents: [{ id: `wire-${label}`, contentType: 'regular', title: 'Wire' }],
      },
    });
    await call(label, 200, 'GET /import/documents/status', `import/documents/status?id=${String(job.id)}`);
    await call(label, 200, 'POST /enrichment/re-enrich', 'enrichment/re-enrich', { body: { doc_ids: [id] } });

    // The planning tool: element sync and the publication-state integration, under each version's segments.
    const elements = legacy ? 'legacy-planner' : 'planner';
    const integration = legacy ? 'legacy-planner-integration' : 'planner-integration';
    const element = { id: `element-${label}`, title: 'Planned' };
    const created = await call(label, 201, `POST /${elements}/element`, `${elements}/element`, {
      body: element,
    });
    await call(label, 200, `POST /${elements}/element`, `${elements}/element`, { body: element });
    await call(label, 200, `PUT /${elements}/element`, `${elements}/element`, {
      body: { ...element, title: 'Planned again' },
    });
    await call(
      label,
      200,
      `PUT /${elements}/element/{documentId}`,
      `${elements}/element/${String(created.id)}`,
      {
        body: { title: 'Planned once more' },
      },
    );
    const basic = Buffer.from(`${planner.client.id}:${planner.secret!}`).toString('base64');
    const grant = await call(label, 200, `POST /${integration}/oauth/token`, `${integration}/oauth/token`, {
      token: null,
      body: 'grant_type=client_credentials',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    });
    const tool = { token: String(grant.access_token) };
    await call(label, 200, `PUT /${integration}/publication`, `${integration}/publication`, {
      ...tool,
      body: { documentId: id, id: 'p-1', status: 'planned' },
    });
    await call(
      label,
      200,
      `PUT /${integration}/publication/{documentId}`,
      `${integration}/publication/${page}`,
      {
        ...tool,
        body: { status: 'ready' },
      },
    );
    await call(label, 200, `POST /${integration}/statuses`, `${integration}/statuses`, {
      ...tool,
      body: { documentIds: [id, Number(created.id), 999_999_999] },
    });

    if (legacy) {
      // planner-integration (not legacy-) is in every version: its statuses in a version of bare arrays.
      await call('2025-11', 200, 'POST /planner-integration/statuses', 'planner-integration/statuses', {
        ...tool,
        body: { documentIds: [id] },
      });
      await call(label, 200, 'GET /menus', 'menus');
      await call(label, 200, 'GET /menus/{channelHandle}', 'menus/web?handle=main');
      await call(label, 200, 'GET /project', 'project');
      await call(label, 200, 'GET /channels/{channelHandle}', 'channels/web');
      await call(label, 200, 'GET /channelConfig', 'channelConfig');
      await call(label, 200, 'POST /channelConfig', 'channelConfig', {
        body: { plan: true, channelConfig: config },
      });
      await call(
        label,
        200,
        'GET /documents/{documentId}/latestPublication',
        `documents/${id}/latestPublication?renditions=web`,
      );
      await call(
        label,
        200,
        'GET /documents/{documentId}/latestPublication/renditions/{renditionHandles}',
        `documents/${id}/latestPublication/renditions/web,html`,
      );
    }
    // Errors: each in the envelope its operation describes.
    await call(label, 401, 'GET /documents/latestPublications', 'documents/latestPublications', {
      token: null,
    });
    await call(label, 400, 'GET /publications/search', 'publications/search?limit=500&nope=1');
    await call(label, 404, 'GET /mediaLibrary/{id}', 'mediaLibrary/missing');
    await call(label, 403, 'GET /categories', 'categories', { token: enrichmentOnly });
    await call(label, 409, 'PATCH /documents/{documentId}/commands', `documents/${id}/commands`, {
      body: { version: 999, commands: [{ operation: 'publish' }] },
    });
    await call(label, 409, 'POST /projectConfig', 'projectConfig', {
      body: { plan: true, projectConfig: { ...config, $baseRevision: -1 } },
    });
    await call(label, 409, `POST /${elements}/element`, `${elements}/element`, {
      body: { ...element, documentId: page },
    });
    await call(label, 401, `POST /${integration}/oauth/token`, `${integration}/oauth/token`, {
      token: null,
      body: 'grant_type=client_credentials',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    if (!legacy) {
      for (const expected of [200, 409]) {
        await call(label, expected, 'PATCH /mediaLibrary/{id}', 'mediaLibrary/gallery', {
          body: { patches: [{ operation: 'revokeAsset' }] },
        });
      }
    }
    await call(label, 415, 'POST /enrichment/re-enrich', 'enrichment/re-enrich', {
      body: 'doc_ids=1',
      headers: { 'content-type': 'text/plain' },
    });
    // Past the JSON body limit (BODY_LIMIT, 5 MB): refused before the route reads it, whichever route it is.
    await call(label, 413, 'PATCH /documents/{documentId}/commands', `documents/${id}/commands`, {
      body: {
        commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'x'.repeat(6e6) }],
      },
    });
  }
}

const operationsOf = (document: OpenApi): string[] =>
  Object.entries(document.paths)
    .flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    )
    .sort();

const mountedIn = (label: string): string[] =>
  routes
    .filter((route) => routeExistsIn(route, ApiVersion.parse(label)!))
    .map(
      (route) =>
        `${route.method} ${route.path.replace(/^\/api\/:apiVersion/, '').replace(/[:*](\w+)/g, '{$1}')}`,
    )
    .sort();

/**
 * Every `example` of a media type or parameter, with its schema, and every entry of a schema's `examples`, with
 * that schema; and where each is.
 */
function examplesOf(document: OpenApi): { where: string; schema: Schema; example: unknown }[] {
  const found: { where: string; schema: Schema; example: unknown }[] = [];
  const walk = (value: unknown, where: string) => {
    if (Array.isArray(value)) {
      value.forEach((item, index) => walk(item, `${where}/${index}`));
      return;
    }
    if (!value || typeof value !== 'object') return;
    const object = value as Schema;
    if ('example' in object && object.schema && typeof object.schema === 'object') {
      found.push({ where, schema: object.schema as Schema, example: object.example });
    }
    if (Array.isArray(object.examples)) {
      const { examples, ...schema } = object;
      for (const example of examples as unknown[]) found.push({ where, schema, example });
    }
    for (const [key, inner] of Object.entries(object)) {
      if (key !== 'examples') walk(inner, `${where}/${key}`);
    }
  };
  walk(document.paths, '#/paths');
  return found;
}

/** The JSON schema an operation of `document` describes for an answer of `status`, and its text. */
function describedAnswer(
  document: OpenApi,
  operation: string,
  status: number,
): { schema: Schema; text: string } | undefined {
  const [method, path] = operation.split(' ') as [string, string];
  const responses = document.paths[path]?.[method.toLowerCase()]?.responses as
    Record<string, { content?: Record<string, { schema: Schema }> }> | undefined;
  const schema = responses?.[String(status)]?.content?.['application/json']?.schema;
  return schema && { schema, text: JSON.stringify(schema) };
}

/** Every JSON answer of a 2xx status that `document` describes, by operation. */
function jsonAnswersOf(document: OpenApi): { operation: string; status: number; text: string }[] {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).flatMap(([method, operation]) =>
      Object.entries(operation.responses as Record<string, { content?: Record<string, { schema: Schema }> }>)
        .filter(([status, response]) => status.startsWith('2') && response.content?.['application/json'])
        .map(([status, response]) => ({
          operation: `${method.toUpperCase()} ${path}`,
          status: Number(status),
          text: JSON.stringify(response.content!['application/json']!.schema),
        })),
    ),
  );
}

/**
 * Each description's validators, by the text of the schema, from one Ajv of its own: a new Ajv compiles the
 * JSON Schema meta-schema again before its first schema, and the examples of a version share a few dozen
 * schemas (v1's 350, 17). One text and one description make one validator, so nothing is checked less.
 */
const validators = new Map<OpenApi, { ajv: Ajv2020; compiled: Map<string, ValidateFunction> }>();

function validatorFor(document: OpenApi, schema: Schema): ValidateFunction {
  let own = validators.get(document);
  if (!own) {
    own = {
      ajv: new Ajv2020({ strict: false, validateFormats: false, allErrors: true }),
      compiled: new Map(),
    };
    validators.set(document, own);
  }
  const text = JSON.stringify(schema);
  let validate = own.compiled.get(text);
  if (!validate) {
    validate = own.ajv.compile({ ...schema, components: document.components });
    own.compiled.set(text, validate);
  }
  return validate;
}

describe('the OpenAPI description of each API version', () => {
  it.each(ALL_VERSION_LABELS)(
    'when %s is asked for, then it describes exactly the routes that version has, each with its method',
    (label) => {
      const document = documents.get(label)!;
      expect(document.openapi).toBe('3.1.0');
      expect(document.info.version).toBe(label);
      expect(document.servers).toEqual([{ url: `/api/${label}` }]);
      const described = operationsOf(document);
      const mounted = mountedIn(label);
      expect(described.filter((operation) => !operation.startsWith('HEAD '))).toEqual(mounted);
      // Express answers a HEAD with the handler of the GET: a HEAD is described only where its GET is mounted.
      const heads = described.filter((operation) => operation.startsWith('HEAD '));
      expect(heads.filter((head) => !mounted.includes(head.replace(/^HEAD/, 'GET')))).toEqual([]);
      expect(heads).toEqual(
        mounted.filter((operation) => operation.startsWith('GET ')).map((get) => get.replace(/^GET/, 'HEAD')),
      );
    },
  );

  it("when any GET is asked as a HEAD with the same headers, then the same status and headers, the GET body's length, no body", () => {
    expect(headMismatches).toEqual([]);
    expect(new Set(headAnswers.map((answer) => answer.operation.split(' ')[1])).size).toBeGreaterThan(25);
  });

  it('when a HEAD operation is described, then the app answers HEAD there with statuses it lists and no body, as it describes', () => {
    const problems = headAnswers.flatMap((answer) => {
      const [method, path] = answer.operation.split(' ') as [string, string];
      const responses = documents.get(answer.label)!.paths[path]?.[method.toLowerCase()]?.responses as
        Record<string, Schema> | undefined;
      const described = responses?.[String(answer.status)];
      return described && described.content === undefined && answer.bodyLength === 0
        ? []
        : [{ ...answer, described }];
    });
    expect(problems).toEqual([]);
    expect([...new Set(headAnswers.map((answer) => answer.status))]).toEqual(
      expect.arrayContaining([200, 304, 400, 401, 403, 404]),
    );
    // Every answer of a HEAD is described without a body, and a HEAD ignores Range: no 206 or 416.
    for (const label of ALL_VERSION_LABELS) {
      const responses = documents.get(label)!.paths['/mediaLibrary/serve-image/{key}']!.head!
        .responses as Record<string, Schema>;
      expect(Object.values(responses).filter((response) => response.content !== undefined)).toEqual([]);
      expect(Object.keys(responses)).not.toContain('206');
      expect(Object.keys(responses)).not.toContain('416');
    }
  });

  it('when a GET answer is asked for again with If-None-Match naming its ETag, then the app answers 304 with no body, and the operation describes that 304 and the header', () => {
    const problems = conditionalAnswers.flatMap((answer) => {
      const [method, path] = answer.operation.split(' ') as [string, string];
      const operation = documents.get(answer.label)!.paths[path]?.[method.toLowerCase()];
      const responses = operation?.responses as Record<string, Schema> | undefined;
      const parameters = (operation?.parameters ?? []) as { name: string; in: string }[];
      const described =
        responses?.['304'] !== undefined &&
        responses['304'].content === undefined &&
        parameters.some((parameter) => parameter.in === 'header' && parameter.name === 'If-None-Match');
      return answer.status === 304 && answer.bodyLength === 0 && described ? [] : [{ ...answer, described }];
    });
    expect(problems).toEqual([]);
    expect(new Set(conditionalAnswers.map((answer) => answer.operation)).size).toBeGreaterThan(25);
  });

  it.each(ALL_VERSION_LABELS)(
    'when %s describes a GET or HEAD with a 2xx answer, then it describes the 304 a current If-None-Match gets, and the ETag of its 2xx answers',
    (label) => {
      const missing = Object.entries(documents.get(label)!.paths).flatMap(([path, operations]) =>
        Object.entries(operations)
          .filter(([method]) => method === 'get' || method === 'head')
          .flatMap(([method, operation]) => {
            const responses = operation.responses as Record<string, { headers?: Schema }>;
            const ok = Object.entries(responses)
              .filter(([status]) => status.startsWith('2'))
              .every(([, response]) => Object.hasOwn(response.headers ?? {}, 'ETag'));
            return ok && responses['304'] !== undefined ? [] : [`${method.toUpperCase()} ${path}`];
          }),
      );
      expect(missing).toEqual([]);
    },
  );

  it.each(ALL_VERSION_LABELS)(
    'when %s describes a GET or HEAD with a 2xx answer, then it describes If-Match and the 412 a failing one gets',
    (label) => {
      const missing = Object.entries(documents.get(label)!.paths).flatMap(([path, operations]) =>
        Object.entries(operations)
          .filter(([method]) => method === 'get' || method === 'head')
          .filter(([, operation]) =>
            Object.keys(operation.responses as Schema).some((status) => status.startsWith('2')),
          )
          .flatMap(([method, operation]) => {
            const parameters = (operation.parameters ?? []) as { name: string; in: string }[];
            const described =
              (operation.responses as Schema)['412'] !== undefined &&
              parameters.some((parameter) => parameter.in === 'header' && parameter.name === 'If-Match');
            return described ? [] : [`${method.toUpperCase()} ${path}`];
          }),
      );
      expect(missing).toEqual([]);
    },
  );

  it('when planner-integration/publication is described, then its PUTs and DELETE take the precondition headers and describe their 412', () => {
    const operations = Object.entries(documents.get('2026-03')!.paths)
      .filter(([path]) => path.startsWith('/planner-integration/publication'))
      .flatMap(([path, byMethod]) =>
        Object.entries(byMethod).map(([method, operation]) => ({ where: `${method} ${path}`, operation })),
      );
    expect(operations.map(({ where }) => where).sort()).toEqual([
      'delete /planner-integration/publication/{documentId}',
      'put /planner-integration/publication',
      'put /planner-integration/publication/{documentId}',
    ]);
    for (const { where, operation } of operations) {
      const headers = ((operation.parameters ?? []) as { name: string; in: string }[])
        .filter((parameter) => parameter.in === 'header')
        .map((parameter) => parameter.name);
      expect({ where, headers }).toEqual({
        where,
        headers: ['If-Match', 'If-None-Match', 'If-Unmodified-Since'],
      });
      expect({ where, described: (operation.responses as Schema)['412'] !== undefined }).toEqual({
        where,
        described: true,
      });
    }
  });

  it.each(ALL_VERSION_LABELS)(
    'when %s describes a PUT, PATCH or DELETE, then it takes If-Match, If-None-Match and If-Unmodified-Since and describes the 412 (every write route judges them)',
    (label) => {
      const writes = Object.entries(documents.get(label)!.paths).flatMap(([path, operations]) =>
        Object.entries(operations)
          .filter(([method]) => method === 'put' || method === 'patch' || method === 'delete')
          .map(([method, operation]) => {
            const headers = ((operation.parameters ?? []) as { name: string; in: string }[])
              .filter((parameter) => parameter.in === 'header')
              .map((parameter) => parameter.name)
              .sort();
            return {
              where: `${method.toUpperCase()} ${path}`,
              headers,
              has412: (operation.responses as Schema)['412'] !== undefined,
            };
          }),
      );
      expect(writes.length).toBeGreaterThanOrEqual(6);
      expect(writes).toEqual(
        writes.map(({ where }) => ({
          where,
          headers: ['If-Match', 'If-None-Match', 'If-Unmodified-Since'],
          has412: true,
        })),
      );
    },
  );

  it('when an upload is sent under a Content-Type, then the app takes it (201) exactly when a media range its request body describes covers that type, and refuses it otherwise', () => {
    const upload = documents.get('2026-03')!.paths['/mediaLibrary/uploads']!.post!.requestBody as {
      content: Record<string, unknown>;
    };
    const ranges = Object.keys(upload.content);
    const covered = (contentType: string) => {
      const type = contentType.split(';')[0]!.trim();
      return ranges.some(
        (range) =>
          range === '*/*' || range === type || (range.endsWith('/*') && type.startsWith(range.slice(0, -1))),
      );
    };
    // What the body's description excepts from application/*, which a media range cannot say.
    const excluded = (contentType: string) => /json|x-www-form-urlencoded/.test(contentType);
    // Refused: a 415, or for application/json the 400 of the JSON parser every route's body goes through.
    const wrong = uploadAnswers.filter(({ contentType, status }) =>
      covered(contentType) && !excluded(contentType) ? status !== 201 : ![400, 415].includes(status),
    );
    expect(wrong).toEqual([]);
    expect(uploadAnswers.filter(({ contentType }) => !covered(contentType)).length).toBeGreaterThan(0);
  });

  it('when an operation is described, then it is grouped under one tag, the one api-spec §4 names where it names one', () => {
    const tagsIn = (label: string) =>
      new Map(
        operationsOf(documents.get(label)!).map((operation) => {
          const [method, path] = operation.split(' ') as [string, string];
          return [operation, documents.get(label)!.paths[path]![method.toLowerCase()]!.tags] as const;
        }),
      );
    for (const label of ALL_VERSION_LABELS) {
      const tags = tagsIn(label);
      for (const [operation, tag] of tags) {
        expect({ operation, tag }).toEqual({ operation, tag: [expect.any(String)] });
      }
      // Tag: Document Categories (§4.1), Publications (§4.9), Add Delivery Status (§4.10), Document Command API (§4.11).
      expect(tags.get('GET /categories')).toEqual(['Document Categories']);
      expect(tags.get('GET /categories/{categoryId}')).toEqual(['Document Categories']);
      expect(tags.get('GET /documents/latestPublications')).toEqual(['Publications']);
      expect(tags.get('HEAD /documents/latestPublications')).toEqual(['Publications']);
      expect(tags.get('POST /documents/{documentId}/addDeliveryStatus')).toEqual(['Add Delivery Status']);
      expect(tags.get('PATCH /documents/{documentId}/commands')).toEqual(['Document Command API']);
    }
    // The operations of one resource are one group, whatever the version.
    const v1 = tagsIn('v1');
    expect(v1.get('GET /menus')).toEqual(v1.get('GET /menus/{channelHandle}'));
    expect(v1.get('GET /documents/{documentId}/latestPublication/renditions/{renditionHandles}')).toEqual([
      'Publications',
    ]);
    expect(v1.get('POST /legacy-planner/element')).toEqual(v1.get('POST /planner/element'));
  });

  it('when the versions are compared, then legacy routes are only in the versions that have them', () => {
    const paths = (label: string) => Object.keys(documents.get(label)!.paths);
    for (const label of ['v1', 'beta', '2025-03']) {
      expect(paths(label)).toEqual(
        expect.arrayContaining(['/menus', '/legacy-planner/element', '/channelConfig']),
      );
    }
    expect(paths('2025-05')).not.toContain('/menus');
    expect(paths('2025-05')).toContain('/channelConfig');
    expect(paths('2025-07')).not.toContain('/channelConfig');
    expect(paths('2025-07')).toContain(
      '/documents/{documentId}/latestPublication/renditions/{renditionHandles}',
    );
    expect(paths('2025-09')).not.toContain(
      '/documents/{documentId}/latestPublication/renditions/{renditionHandles}',
    );
    // What api-spec §4.3 and §9 say another route replaces is deprecated where it is still served.
    const deprecated = (label: string) =>
      operationsOf(documents.get(label)!).filter((operation) => {
        const [method, path] = operation.split(' ') as [string, string];
        return documents.get(label)!.paths[path]![method.toLowerCase()]!.deprecated === true;
      });
    expect(deprecated('v1')).toEqual(
      [
        'GET /channels/{channelHandle}',
        'GET /project',
        'GET /channelConfig',
        // Their HEADs too: the same answers without the body.
        'HEAD /channels/{channelHandle}',
        'HEAD /project',
        'HEAD /channelConfig',
        'POST /channelConfig',
        'POST /legacy-planner/element',
        'PUT /legacy-planner/element',
        'PUT /legacy-planner/element/{documentId}',
        'DELETE /legacy-planner/element/{documentId}',
        'POST /legacy-planner-integration/oauth/token',
        'POST /legacy-planner-integration/statuses',
        'PUT /legacy-planner-integration/publication',
        'PUT /legacy-planner-integration/publication/{documentId}',
        'DELETE /legacy-planner-integration/publication/{documentId}',
      ].sort(),
    );
    expect(deprecated('2025-05')).toEqual([
      'GET /channelConfig',
      'GET /channels/{channelHandle}',
      'GET /project',
      'HEAD /channelConfig',
      'HEAD /channels/{channelHandle}',
      'HEAD /project',
      'POST /channelConfig',
    ]);
    expect(deprecated('2025-07')).toEqual([]);
    expect(documents.get('2026-03')!.info.description).toContain('Not in this version');
    expect(JSON.stringify(documents.get('2026-03'))).not.toContain('x-broadsheet-versions": {');
  });

  it.each(ALL_VERSION_LABELS)(
    'when %s describes a route that reads a body, then it lists the 408, 413 and 415 every body may get',
    (label) => {
      const missing = Object.entries(documents.get(label)!.paths).flatMap(([path, operations]) =>
        Object.entries(operations)
          .filter(([, operation]) => operation.requestBody !== undefined)
          .flatMap(([method, operation]) =>
            ['408', '413', '415']
              .filter((status) => !Object.hasOwn(operation.responses as Schema, status))
              .map((status) => `${method.toUpperCase()} ${path} ${status}`),
          ),
      );
      expect(missing).toEqual([]);
    },
  );

  it.each(ALL_VERSION_LABELS)(
    'when %s describes a route that takes a token, then it lists the 503 DatabaseUnavailable with Retry-After every Postgres read may get',
    (label) => {
      const problems = Object.entries(documents.get(label)!.paths).flatMap(([path, operations]) =>
        Object.entries(operations)
          // A token is checked against its API client in Postgres, before the route reads anything else.
          .filter(([, operation]) => operation.security !== undefined)
          .flatMap(([method, operation]) => {
            const unavailable = (operation.responses as Record<string, Schema>)['503'];
            const ok =
              unavailable !== undefined &&
              String(unavailable.description).includes('DatabaseUnavailable') &&
              Object.hasOwn(unavailable.headers ?? {}, 'Retry-After');
            return ok ? [] : [`${method.toUpperCase()} ${path}`];
          }),
      );
      expect(problems).toEqual([]);
      // Searches keep saying that Elasticsearch being away is a 503 too.
      const search = documents.get(label)!.paths['/publications/search']?.get?.responses as
        Record<string, Schema> | undefined;
      if (search) expect(String(search['503']!.description)).toContain('SearchUnavailable');
      // What reads or writes media bytes says that the object store being away is a 503 too.
      for (const [path, method] of [
        ['/mediaLibrary/serve-image/{key}', 'get'],
        ['/mediaLibrary/uploads', 'post'],
      ] as const) {
        const responses = documents.get(label)!.paths[path]?.[method]?.responses as
          Record<string, Schema> | undefined;
        if (responses) expect(String(responses['503']!.description)).toContain('StorageUnavailable');
      }
    },
  );

  it('when a list is described, then it is a bare array up to 2025-11 and {results} from 2026-01', () => {
    const categories = (label: string) =>
      documents.get(label)!.paths['/categories']!.get as {
        responses: { 200: { content: { 'application/json': { schema: Schema } } } };
      };
    const schema = (label: string) => categories(label).responses[200].content['application/json'].schema;
    expect(schema('2025-11')).toMatchObject({ type: 'array' });
    expect(schema('2025-11').oneOf).toBeUndefined();
    expect(schema('2026-01')).toMatchObject({ type: 'object', required: ['results'] });
    const items = [expect.objectContaining({ id: 'news' }), expect.objectContaining({ id: 'local' })];
    expect(schema('2025-11').examples).toEqual([items]);
    expect(schema('2026-01').examples).toEqual([{ results: items }]);
  });

  it('when parameters are version-only, then each version lists just its own', () => {
    const queryNames = (label: string, path: string) =>
      ((documents.get(label)!.paths[path]!.get!.parameters ?? []) as { name: string; in: string }[])
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => parameter.name);
    expect(queryNames('2025-07', '/documents/{documentId}/latestPublication')).toContain('renditions');
    expect(queryNames('2025-09', '/documents/{documentId}/latestPublication')).not.toContain('renditions');
    expect(queryNames('2025-11', '/publications/search')).not.toContain('after');
    expect(queryNames('2026-01', '/publications/search')).toContain('after');
    const mediaReferences = '/mediaLibrary/{id}/incomingMediaReferences';
    expect(queryNames('2025-11', mediaReferences)).not.toContain('after');
    expect(queryNames('2026-01', mediaReferences)).toContain('after');
  });

  it('when api-spec names the default of ignoreComponentConditions or of the commands preserveUpdatedAt, then the description names it too', () => {
    // api-spec §4.8, §4.9, §4.14, §4.15: ignoreComponentConditions "default false"; §4.11: preserveUpdatedAt too.
    for (const label of ALL_VERSION_LABELS) {
      const described: { operation: string; schema: Schema }[] = [];
      for (const [path, operations] of Object.entries(documents.get(label)!.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          const parameters = (operation.parameters ?? []) as { name: string; in: string; schema: Schema }[];
          for (const parameter of parameters) {
            if (parameter.in === 'query' && parameter.name === 'ignoreComponentConditions') {
              described.push({ operation: `${method.toUpperCase()} ${path}`, schema: parameter.schema });
            }
          }
        }
      }
      expect(described.map(({ operation }) => operation)).toEqual(
        expect.arrayContaining([
          'GET /documents/latestPublications',
          'GET /publications/search',
          'GET /documents/{documentId}/latestDraft',
          'GET /documents/{documentId}/latestPublication',
          'GET /document-lists/{id}',
        ]),
      );
      for (const { operation, schema } of described) {
        expect({ label, operation, default: schema.default }).toEqual({ label, operation, default: false });
      }
    }
    const commandsBody = (
      documents.get('2026-03')!.paths['/documents/{documentId}/commands']!.patch as {
        requestBody: { content: { 'application/json': { schema: Schema } } };
      }
    ).requestBody.content['application/json'].schema as { properties: Record<string, Schema> };
    expect(commandsBody.properties.preserveUpdatedAt).toMatchObject({ type: 'boolean', default: false });
    // The composition body's ignoreComponentConditions (§4.4 supports the conditions; supplement §6 takes them
    // in the body) has the "default false" api-spec gives it wherever it names it.
    for (const label of ALL_VERSION_LABELS) {
      const composition = documents.get(label)!.paths['/composition/{documentId}']?.post as
        { requestBody: { content: { 'application/json': { schema: Schema } } } } | undefined;
      if (composition === undefined) continue;
      const body = composition.requestBody.content['application/json'].schema as {
        properties: Record<string, Schema>;
      };
      expect({ label, schema: body.properties.ignoreComponentConditions }).toMatchObject({
        label,
        schema: { type: 'boolean', default: false },
      });
    }
  });

  it('when the commands body is described, then each version lists the operations it accepts', () => {
    const body = (label: string) =>
      JSON.stringify(
        (
          documents.get(label)!.paths['/documents/{documentId}/commands']!.patch as {
            requestBody: { content: { 'application/json': { schema: Schema } } };
          }
        ).requestBody.content['application/json'].schema,
      );
    expect(body('2025-05')).toContain('"const":"publish"');
    expect(body('2025-05')).not.toContain('"const":"setEmbargo"');
    expect(body('2025-07')).toContain('"const":"setEmbargo"');
  });

  it('when the media patch body is described, then each version takes what its route takes', () => {
    const accepts = (label: string, body: unknown) => {
      const document = documents.get(label)!;
      const patch = document.paths['/mediaLibrary/{id}']!.patch as {
        requestBody: { content: { 'application/json': { schema: Schema } } };
      };
      return validatorFor(document, patch.requestBody.content['application/json'].schema)(body);
    };
    const unrevoke = { patches: [{ operation: 'unrevokeAsset' }] };
    const note = { patches: [{ operation: 'revokeAsset', note: 'rights expired' }] };
    const preserve = { preserveUpdatedAt: true, patches: [{ operation: 'revokeAsset' }] };
    expect([unrevoke, note, preserve].map((body) => accepts('2025-11', body))).toEqual([false, false, false]);
    expect([unrevoke, note, preserve].map((body) => accepts('2026-01', body))).toEqual([true, true, false]);
    expect([unrevoke, note, preserve].map((body) => accepts('2026-03', body))).toEqual([true, true, true]);
  });

  it.each(ALL_VERSION_LABELS)(
    'when %s has examples, then every one validates against its schema',
    (label) => {
      const document = documents.get(label)!;
      const examples = examplesOf(document);
      expect(examples.length).toBeGreaterThan(20);
      const invalid = examples.flatMap(({ where, schema, example }) => {
        const validate = validatorFor(document, schema);
        return validate(example) ? [] : [{ where, errors: validate.errors }];
      });
      expect(invalid).toEqual([]);
    },
  );

  it('when the app answers, then each answer has the status asked for and validates against the schema its version describes', () => {
    const problems = answers.flatMap((answer): Schema[] => {
      const where = `${answer.label} ${answer.operation} (${answer.url}) ${answer.status}`;
      if (answer.status !== answer.expected) return [{ where, expected: answer.expected, body: answer.body }];
      const described = describedAnswer(documents.get(answer.label)!, answer.operation, answer.status);
      if (!described) return [{ where, problem: 'no JSON answer described for this status' }];
      if (!answer.contentType.startsWith('application/json')) return [{ where, problem: answer.contentType }];
      const validate = validatorFor(documents.get(answer.label)!, described.schema);
      return validate(answer.body) ? [] : [{ where, errors: validate.errors, body: answer.body }];
    });
    expect(problems).toEqual([]);
    expect(answers.length).toBeGreaterThan(100);
  });

  it("when the app answers an error, then the example its operation describes for that status is worded like it (the same error_details keys; a 400's name)", () => {
    const problems = answers
      .filter((answer) => answer.status >= 400 && answer.status === answer.expected)
      .flatMap((answer): Schema[] => {
        const [method, path] = answer.operation.split(' ') as [string, string];
        const operation = documents.get(answer.label)!.paths[path]?.[method.toLowerCase()];
        const described = (
          operation?.responses as Record<string, { content?: Record<string, { example?: Schema }> }>
        )[String(answer.status)]?.content?.['application/json']?.example;
        const real = (answer.body as { error_details: Schema }).error_details;
        const example = described?.error_details as Schema | undefined;
        const alike =
          example !== undefined &&
          (answer.status === 400
            ? example.name === real.name
            : JSON.stringify(Object.keys(example).sort()) === JSON.stringify(Object.keys(real).sort()) &&
              example.name === real.name);
        return alike
          ? []
          : [{ where: `${answer.label} ${answer.operation} ${answer.status}`, example, real }];
      });
    expect(problems).toEqual([]);
    const statuses = new Set(
      answers.filter((answer) => answer.expected >= 400).map((answer) => answer.expected),
    );
    expect([...statuses].sort()).toEqual([400, 401, 403, 404, 409, 413, 415]);
  });

  it('when a document view is asked for without fields, then it has the fields its version describes as the default', () => {
    const views = [
      'GET /documents/{documentId}/latestPublication',
      'GET /documents/{documentId}/latestDraft',
      'GET /documents/latestPublications',
    ];
    const checked = answers
      .filter((answer) => views.includes(answer.operation) && !/fields=|renditions=/.test(answer.url))
      .filter((answer) => answer.status === 200)
      .map((answer) => {
        const [method, path] = answer.operation.split(' ') as [string, string];
        const parameters = documents.get(answer.label)!.paths[path]![method.toLowerCase()]!.parameters as {
          name: string;
          description?: string;
        }[];
        const text = parameters.find((parameter) => parameter.name === 'fields')?.description ?? '';
        const [, later, older] = /default ([a-z,]+) \(v1: ([a-z,]+)\)/.exec(text) ?? [];
        const described = (answer.label === 'v1' ? older : later)?.split(',').sort();
        const body = answer.body as Schema | Schema[];
        const view = Array.isArray(body)
          ? body[0]
          : Array.isArray(body.results)
            ? (body.results[0] as Schema)
            : body;
        return {
          where: `${answer.label} ${answer.operation}`,
          described,
          answered: Object.keys(view!).sort(),
        };
      });
    expect(
      checked.filter(({ described, answered }) => JSON.stringify(described) !== JSON.stringify(answered)),
    ).toEqual([]);
    expect(new Set(checked.map(({ where }) => where.split(' ')[0]))).toEqual(
      new Set(['v1', '2025-03', '2026-03']),
    );
    expect(checked.length).toBeGreaterThanOrEqual(9);
  });

  it.each(ALL_VERSION_LABELS)(
    'when %s is walked, then every JSON answer schema it describes was held to a real answer',
    (label) => {
      const held = new Set(
        answers
          .filter((answer) => answer.status === answer.expected)
          .map((answer) => {
            const described = describedAnswer(documents.get(answer.label)!, answer.operation, answer.status);
            return `${answer.operation} ${answer.status} ${described?.text}`;
          }),
      );
      const unheld = jsonAnswersOf(documents.get(label)!).filter(
        ({ operation, status, text }) => !held.has(`${operation} ${status} ${text}`),
      );
      expect(unheld.map(({ operation, status }) => `${operation} ${status}`)).toEqual([]);
    },
  );

  it('when an answer is changed, then the described schemas notice (they are not open where the route is not)', () => {
    const document = documents.get('2026-03')!;
    const check = (operation: string, body: unknown) =>
      validatorFor(document, describedAnswer(document, operation, 200)!.schema)(body);
    const real = answers.find(
      (answer) =>
        answer.label === '2026-03' && answer.operation === 'GET /documents/{documentId}/latestPublication',
    )!.body as { systemdata: Schema };
    expect(check('GET /documents/{documentId}/latestPublication', real)).toBe(true);
    expect(
      check('GET /documents/{documentId}/latestPublication', {
        ...real,
        systemdata: { ...real.systemdata, documentId: '7' },
      }),
    ).toBe(false);
    expect(check('GET /documents/{documentId}/latestPublication', { ...real, renditions: [] })).toBe(false);
    expect(check('GET /documents/latestPublications', [real])).toBe(false);
    expect(check('GET /documents/latestPublications', { results: [real] })).toBe(true);
    expect(check('GET /publications/search', { results: [real] })).toBe(false);
    expect(check('GET /health', { status: 'ok', extra: true })).toBe(false);
  });

  it('when an example is wrong, then the check notices (the validator resolves component references)', () => {
    const document = documents.get('2026-03')!;
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const validate = ajv.compile({
      $ref: '#/components/schemas/Error',
      components: document.components,
    });
    expect(validate({ status: 404, error: 'Not Found', error_details: {} })).toBe(true);
    expect(validate({ status: '404', error: 'Not Found' })).toBe(false);
  });
});
