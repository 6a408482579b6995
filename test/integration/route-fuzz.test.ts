import { STATUS_CODES } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { Client } from 'undici';
import { Readable } from 'node:stream';
import { ALL_VERSION_LABELS, ApiVersion } from '../../src/domain/api-versions';
import { solidPng } from '../../src/demo/png';
import { OPERATIONS } from '../../src/domain/document-commands/schema';
import { listRoutes, pathParamNames, routeExistsIn, type RouteEntry } from '../../src/http/route-table';
import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument, indexNow } from '../helpers/documents';
import { PROTOTYPE_NAMES } from '../helpers/hostile-input';
import { createApiClient } from '../../src/commands/api-clients';
import type { Content } from '../../src/domain/content';
import { ALL_SCOPES, createTestProject, READ, tokenFor, TEST_DESIGN } from '../helpers/factories';

/**
 * A property-based fuzz test over every route the mounted app has (read from its router, so routes added
 * later are covered without touching this file): hostile path parameters, query strings, headers and
 * bodies, with a token that has every scope and without. Whatever comes, the answer is never a 5xx, every
 * error is the spec's envelope, every status a route answers is one its version's OpenAPI description lists for
 * it (the edge's aside, which the description's info names), and the process still answers health afterwards.
 *
 * Seeded, so a run is repeatable: FUZZ_SEED picks another seed (the failure message prints the one used),
 * FUZZ_RUNS the number of requests.
 */
/**
 * Content as imports up to 2025-11 store it (as sent): names that are no text, records that are no objects,
 * items that are no components, containers that are no lists. Every read, render and command must step over it.
 */
const JUNK_CONTENT = [
  { id: 'j1', component: { nested: 'object' }, identifier: 5, content: null, styles: 'none' },
  { id: 'j2', identifier: ['x.y'], content: 'text', conditions: 'soon' },
  {
    id: 'j3',
    component: 'container',
    containers: { main: [null, 5, 'x', { id: 'c1', component: 'paragraph' }], side: { x: 1 }, more: 'text' },
  },
  { id: 'j4', component: 'paragraph', content: { text: { x: 1 }, img: { url: 5 }, inc: { service: 5 } } },
] as unknown as Content;

/** The media library entry the fuzzed project has (imported in beforeAll), for mediaLibrary/{id} routes. */
const FUZZ_MEDIA_ID = 'fuzz-image';

const SEED = Number(process.env.FUZZ_SEED ?? 20_260_808);
const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);
/** The list reads' own property: a tenth of the runs, at least 300. */
const READ_RUNS = Math.max(300, Math.round(RUNS / 10));

let app: TestApp;
let client: Client;
let routes: RouteEntry[];
/** Query parameter names the OpenAPI description lists, by route path in OpenAPI form, and all of them. */
let knownQuery: Map<string, string[]>;
let allQuery: string[];
const valid: {
  documentId: string;
  /** A published document whose content is stored as imports up to 2025-11 keep it: not quite a tree. */
  junkDocumentId: string;
  publicationId: number;
  channelHandle: string;
  tokens: Map<string, string>;
  /** HTTP Basic credentials of a planner client with a secret (planner-integration/oauth/token). */
  basic: string;
} = {
  documentId: '1',
  junkDocumentId: '1',
  publicationId: 1,
  channelHandle: 'web',
  tokens: new Map(),
  basic: '',
};

beforeAll(async () => {
  app = await startTestApp();
  client = new Client(app.url);
  // Every integration on, so that requests get past the configuration checks into the commands; the
  // enrichment URL refuses connections, so jobs a fuzzed re-enrich queues fail fast wherever they run.
  const { projectId } = await createTestProject(app.ctx, {
    config: {
      enrichment: { enabled: true, url: 'http://127.0.0.1:9/enrich' },
      planner: { elements: { enabled: true }, integration: { enabled: true } },
    },
  });
  const published = await createPublishedDocument(app.ctx, projectId, {
    metadata: { title: 'Fuzzed', flag: 'x', priority: 3 },
    content: [
      { id: 'c1', identifier: `${TEST_DESIGN.name}.paragraph`, content: { text: 'Hello &amp; bye' } },
    ],
  });
  valid.documentId = String(published.documentId);
  const junk = await createPublishedDocument(app.ctx, projectId, {
    metadata: { title: 'Junk', publishDate: '2024-05-01T00:00:00+18:30', category: 'c'.repeat(40_000) },
    content: JUNK_CONTENT,
  });
  valid.junkDocumentId = String(junk.documentId);
  // Searchable: over an empty index Elasticsearch answers a query without parsing its values.
  await indexNow(app.ctx, projectId, [published.documentId, junk.documentId]);
  const png = solidPng(4, 4, [10, 20, 30]);
  const upload = await app.ctx.commands.uploadMedia(projectId, {
    body: Readable.from([png]),
    contentType: 'image/png',
    contentLength: png.length,
    filename: 'fuzz.png',
  });
  const imported = await app.ctx.commands.importMedia(
    projectId,
    [
      {
        ok: true,
        entry: {
          id: FUZZ_MEDIA_ID,
          mediaType: 'image',
          asset: { uploadId: upload.uploadId },
          metadata: {},
          translations: [],
        },
      },
    ],
    { baseUrl: app.url, version: ApiVersion.latest() },
  );
  expect(imported[0]).toMatchObject({ ok: true });
  valid.publicationId = published.publicationId;
  const channel = await app.ctx.pool.query<{ handle: string }>(
    'SELECT handle FROM channels WHERE project_id = $1 LIMIT 1',
    [projectId],
  );
  valid.channelHandle = channel.rows[0]?.handle ?? 'web';
  valid.tokens.set('every scope', (await tokenFor(app.ctx, projectId, ALL_SCOPES)).token);
  valid.tokens.set('read', (await tokenFor(app.ctx, projectId, READ)).token);
  const planner = await createApiClient(app.ctx.pool, app.ctx.config.auth.jwtSecret, {
    projectId,
    name: 'fuzzed planning tool',
    scopes: ['planner'],
    withSecret: true,
  });
  valid.basic = `Basic ${Buffer.from(`${planner.client.id}:${planner.secret}`).toString('base64')}`;

  routes = listRoutes(app.app.router);
  // Each version describes its own routes and parameters: the query names of a path are those of every version.
  knownQuery = new Map();
  for (const label of ALL_VERSION_LABELS) {
    const openapi = (await (await fetch(`${app.url}/api/${label}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
    };
    for (const [path, operations] of Object.entries(openapi.paths)) {
      const names = Object.values(operations).flatMap((operation) =>
        (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
      );
      knownQuery.set(path, [...new Set([...(knownQuery.get(path) ?? []), ...names])]);
    }
  }
  allQuery = [...new Set([...knownQuery.values()].flat())];
});
afterAll(async () => {
  await client.close();
  await app.close();
});

// ---- what a request is made of -------------------------------------------------------------------------

/** Any text as percent-encoded UTF-8 (a lone surrogate becomes U+FFFD, as a browser would send it). */
const percentEncode = (text: string): string =>
  encodeURIComponent(Buffer.from(text, 'utf8').toString('utf8'));

/** Weighted choices: mostly what gets a request deep into a route, now and then what should stop it early. */
const often = <T>(usual: fc.Arbitrary<T>, weight: number, unusual: fc.Arbitrary<T>) =>
  fc.oneof({ weight, arbitrary: usual }, { weight: 1, arbitrary: unusual });

const JUNK_ENCODINGS = ['%', '%F', '%FF', '%E0%A4%A', '%C0%AF', '%ZZ', '%%', '100%', '%u0041', '%00', 'a%00'];
const HUGE_NUMBERS = [
  '9007199254740992',
  '9999999999999999',
  '1'.padEnd(31, '0'),
  '-1',
  '0',
  '00',
  '1e5',
  '1.5',
];

const hostileSegment = fc.oneof(
  fc.constantFrom(...JUNK_ENCODINGS, ...HUGE_NUMBERS, ...PROTOTYPE_NAMES),
  fc.constantFrom('%2F', 'a/b', '%2e%2e', '..', '.', '', 'latestPublications', 'x'.repeat(3000), '0x1F'),
  fc.string({ unit: 'grapheme', maxLength: 20 }).map(percentEncode),
  fc.string({ unit: 'binary', maxLength: 12 }).map(percentEncode),
  fc.stringMatching(/^[!$&'()*+,;=:@~A-Za-z0-9._-]{0,12}$/),
  fc.bigInt({ min: 0n, max: 10n ** 25n }).map(String),
);

function validSegment(name: string): fc.Arbitrary<string> {
  switch (name) {
    case 'apiVersion':
      return fc.constantFrom(...ALL_VERSION_LABELS);
    case 'documentId':
      return fc.oneof(
        { weight: 3, arbitrary: fc.constant(null).map(() => valid.documentId) },
        { weight: 1, arbitrary: fc.constant(null).map(() => valid.junkDocumentId) },
      );
    case 'channelHandle':
      return fc.constant(valid.channelHandle);
    case 'designVersion':
      return fc.constant(TEST_DESIGN.version);
    case 'renditionHandles':
      return fc.constantFrom('web', 'html,web', 'web,');
    case 'id':
      return fc.constantFrom(FUZZ_MEDIA_ID, 'unknown-media');
    case 'categoryId':
      // The project's categories (buildProjectConfig), so the read gets as far as the category's documents.
      return fc.constantFrom('news', 'politics', 'sport', 'nope');
    default:
      return fc.string({ maxLength: 10 }).map(percentEncode);
  }
}

/** Mostly valid values, so the request gets past routing and auth into the route's own checks. */
const pathParam = (name: string) =>
  fc.oneof(
    { weight: name === 'apiVersion' ? 17 : 3, arbitrary: validSegment(name) },
    { weight: name === 'apiVersion' ? 3 : 2, arbitrary: hostileSegment },
  );

/** Values a search accepts, some at the edge of what Elasticsearch takes, so requests get that far. */
const SEARCH_VALUES = [
  '[{"key":"metadata.flag","term":"x"}]',
  '{"key":"metadata.priority","range":{"gt":-2147483648,"lte":2147483647}}',
  '{"key":"metadata.score","range":{"gte":1.7976931348623157e308}}',
  '{"or":[{"key":"documentId","term":9007199254740991},{"not":{"key":"metadata.breaking","exists":true}}]}',
  '{"key":"statistics.componentCount.paragraph","term":1}',
  '{"key":"metadata.publishDate","range":{"lt":"9999-12-31T23:59:59Z"}}',
  '{"key":"metadata.summary","term":"\\u0000 * ? ~ \\" AND OR"}',
  '-metadata.priority,metadata.flag',
  'relevance,-visiblePublicationDate',
  '"unbalanced quote',
  '*:* OR title:(a',
  // Offsets past ±18:00 Elasticsearch cannot read (isIsoDate must refuse them first).
  '{"key":"metadata.publishDate","range":{"gte":"2024-05-01T00:00:00+18:30"}}',
  '[[[[[[[[[[[[[[[[[[[[[[[[{"key":"documentId","term":1}]]]]]]]]]]]]]]]]]]]]]]]',
];

/** Dates at the ends of what a Date, Postgres and Elasticsearch hold: years 0 and 10000 in UTC, odd offsets. */
const EDGE_DATES = [
  '9999-12-31T23:59:59-18:00',
  '0000-01-01T00:00:00+18:00',
  '2024-05-01T00:00:00+18:30',
  '9999-12-31T23:59:59.999Z',
];

/** Sent raw (brackets need no escaping in a query string): thousands of levels fit the 16 KB request line. */
const DEEP_JSON = ['['.repeat(4000) + ']'.repeat(4000), `${'{"not":'.repeat(1500)}1${'}'.repeat(1500)}`];

const queryValue = fc.oneof(
  fc.constantFrom(
    '',
    'true',
    'false',
    '0',
    '1',
    '100',
    '101',
    '10001',
    '1e309',
    'null',
    '[]',
    '{}',
    '{"',
    ',',
  ),
  fc.constantFrom(...JUNK_ENCODINGS, ...HUGE_NUMBERS, ...PROTOTYPE_NAMES, 'a,,b', '2025-02-30T00:00:00Z'),
  fc.constantFrom('systemdata,metadata', 'id', 'relevance', '-relevance', '-sortDate', 'article', 'web'),
  fc.constantFrom(...SEARCH_VALUES).map(percentEncode),
  fc.constantFrom(...EDGE_DATES).map(percentEncode),
  fc.constantFrom(...DEEP_JSON),
  fc.jsonValue({ maxDepth: 4 }).map((value) => percentEncode(JSON.stringify(value) ?? 'null')),
  fc.string({ unit: 'grapheme', maxLength: 30 }).map(percentEncode),
  fc.stringMatching(/^[A-Za-z0-9,.:_-]{0,20}$/),
  fc.integer().map(String),
);

function queryString(known: readonly string[]): fc.Arbitrary<string> {
  const key = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...(known.length > 0 ? known : allQuery)) },
    { weight: 1, arbitrary: fc.constantFrom(...allQuery) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '__proto__[x]',
        'a[b]',
        'a[]',
        'limit[0]',
        'id[gt]',
        '',
        '%00',
        '%FF',
        'a%00b',
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 10 }).map(percentEncode) },
  );
  return fc
    .array(
      key.chain((name) => fc.tuple(fc.constant(name), valueOf(name))),
      { maxLength: 6 },
    )
    .map((pairs) => pairs.map(([name, value]) => `${name}=${value}`).join('&'));
}

/**
 * Values made for the parameter they are sent as (by name, whichever route takes it): filter expressions,
 * dates at the edges of what a date holds, sorts, pages, ids past 2^53. A request reaches its read (the
 * Elasticsearch or Postgres query it builds) only when every parameter it carries is valid, which values
 * drawn for any name seldom are.
 */
function ownValue(name: string): fc.Arbitrary<string> | undefined {
  if (name === 'filters') {
    return fc.oneof(fc.constantFrom(...SEARCH_VALUES).map(percentEncode), fc.constantFrom(...DEEP_JSON));
  }
  if (/^(publishedAt|createdAt)\./.test(name)) {
    return fc.constantFrom(...EDGE_DATES, '2025-01-01', '2025-01-01T00:00:00Z').map(percentEncode);
  }
  if (/^id(\.|$)/.test(name)) return fc.constantFrom(...HUGE_NUMBERS, '9007199254740991', valid.documentId);
  if (name === 'componentConditions') {
    return fc
      .record(
        { dateTime: fc.constantFrom(...EDGE_DATES), brand: fc.constantFrom('ch', 'de') },
        { requiredKeys: [] },
      )
      .map((conditions) => percentEncode(JSON.stringify(conditions)));
  }
  const values = OWN_VALUES.get(name);
  return values && fc.constantFrom(...values).map(percentEncode);
}

/** ownValue's lists, in a Map: the names drawn include __proto__ and constructor. */
const OWN_VALUES = new Map<string, string[]>(
  Object.entries({
    sort: ['-metadata.priority,metadata.flag', 'metadata.publishDate', '-metadata.score', 'contentType'],
    limit: ['0', '1', '2', '100'],
    offset: ['0', '1', '9999', '10000'],
    fields: ['id', 'systemdata', 'metadata,content', 'references'],
    reverse: ['true', 'false'],
    homepage: ['true', 'false'],
    ignoreComponentConditions: ['true', 'false'],
    contentTypes: ['regular', 'page,regular'],
    documentTypes: ['article', 'page,data-record'],
    categories: ['news', 'sport,politics'],
    languages: ['en', 'de,en'],
    search: ['fuzzed', 'hello "bye now"', '"', 'a b c d e f g h i j'],
  }),
);

/** Half the time a value made for the parameter's name (ownValue), else any value. */
function valueOf(name: string): fc.Arbitrary<string> {
  const own = ownValue(name);
  return own === undefined ? queryValue : fc.oneof(own, queryValue);
}

const BODY_KEYS = [
  ...['commands', 'operation', 'propertyName', 'value', 'oldValue', 'componentId', 'directiveName'],
  ...['conditionName', 'version', 'preconditions', 'type', 'preserveUpdatedAt', 'systemName', 'documents'],
  ...['id', 'contentType', 'metadata', 'content', 'flags', 'publishControl', 'documentId', 'projectConfig'],
  'channelConfig',
  ...['plan', 'settings', 'handle', 'publicationId', 'deliveryHandle', 'status', 'message', 'userChoices'],
  ...['doc_ids', 'documentIds', 'title', 'description', 'grant_type', 'scope'],
  ...['fields', 'preload', 'renderOptions', 'renderDirectiveInfo', 'resolveIncludes', 'componentConditions'],
  'ignoreComponentConditions',
  ...['mediaLibraryEntries', 'mediaType', 'asset', 'url', 'uploadId', 'filename', 'patches', 'note'],
  ...['externalId', 'translations', 'locale'],
  ...PROTOTYPE_NAMES,
];

const { json: jsonish } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 2 }),
    fc.dictionary(fc.constantFrom(...BODY_KEYS), tie('json'), { maxKeys: 5 }),
    fc.array(tie('json'), { maxLength: 4 }),
    fc.constantFrom(...OPERATIONS, 'bogus', ...PROTOTYPE_NAMES),
  ),
}));

const nameLike = fc.oneof(
  fc.constantFrom('title', 'flag', 'priority', 'text', 'c1', 'brands', 'dateTime', ...PROTOTYPE_NAMES, ''),
  fc.constantFrom('j1', 'j2', 'j3', 'j4', 'img', 'inc'),
  fc.string({ maxLength: 8 }),
);
const dateLike = fc.constantFrom(
  '2099-01-01T00:00:00Z',
  '2000-01-01T00:00:00Z',
  '2099-02-30T00:00:00Z',
  'soon',
  ...EDGE_DATES,
);

/** Each operation with the keys it takes, holding hostile values; and a soup of any keys for the rest. */
const command = fc.oneof(
  fc.record({ operation: fc.constant('setMetadataProperty'), propertyName: nameLike, value: jsonish }),
  fc.record({
    operation: fc.constant('setEditableDirective'),
    componentId: nameLike,
    directiveName: nameLike,
    value: fc.oneof(fc.string({ maxLength: 20 }), jsonish),
  }),
  fc.record({ operation: fc.constantFrom('publish', 'unpublish', 'removeEmbargo') }),
  fc.record({ operation: fc.constant('removeComponent'), componentId: nameLike }),
  fc.record({
    operation: fc.constant('setComponentCondition'),
    componentId: nameLike,
    conditionName: fc.constantFrom('dateTime', 'brands', 'constructor'),
    value: fc.oneof(jsonish, fc.record({ gte: dateLike }), fc.constant(['ch'])),
  }),
  fc.record(
    {
      operation: fc.constantFrom(
        'setComponentStyle',
        'setStyleDirective',
        'setLinkDirective',
        'setIncludeDirective',
      ),
      componentId: nameLike,
      directiveName: nameLike,
      propertyName: nameLike,
      value: jsonish,
      oldValue: jsonish,
    },
    { requiredKeys: ['operation', 'componentId', 'directiveName', 'value'] },
  ),
  fc.record({ operation: fc.constant('setEmbargo'), reason: fc.string({ maxLength: 8 }), until: dateLike }),
  fc.record({ operation: fc.constantFrom('addPublishSchedule', 'addUnpublishSchedule'), date: dateLike }),
  fc.record({ operation: fc.constantFrom('cancelPublishSchedule', 'cancelUnpublishSchedule') }),
  fc.dictionary(fc.constantFrom(...BODY_KEYS), jsonish, { maxKeys: 4 }),
);

const toJson = (value: unknown): string => JSON.stringify(value) ?? 'null';

const commandsBody = fc
  .record(
    {
      commands: fc.array(command, { minLength: 1, maxLength: 2 }),
      version: often(fc.nat(3), 2, fc.oneof(fc.integer(), jsonish)),
      preconditions: often(
        fc.array(
          fc.record({
            type: fc.constantFrom('isPublished', 'isPublishedAndHasNoChanges'),
            value: fc.boolean(),
          }),
        ),
        2,
        jsonish,
      ),
      preserveUpdatedAt: often(fc.constant(undefined), 4, fc.boolean()),
    },
    { requiredKeys: ['commands'] },
  )
  .map(toJson);

const importBody = fc
  .record({
    systemName: often(fc.string({ minLength: 1, maxLength: 10 }), 3, jsonish),
    documents: fc.array(
      fc.record(
        {
          id: nameLike,
          contentType: fc.constantFrom('regular', 'page', 'nope'),
          metadata: often(fc.dictionary(nameLike, jsonish, { maxKeys: 4 }), 3, jsonish),
          content: often(fc.array(fc.dictionary(nameLike, jsonish, { maxKeys: 4 })), 3, jsonish),
          flags: fc.record({ autoPublish: fc.boolean(), unpublish: fc.boolean() }, { requiredKeys: [] }),
        },
        { requiredKeys: ['id', 'contentType'] },
      ),
      { minLength: 1, maxLength: 3 },
    ),
  })
  .map(toJson);

/** URLs an import may be sent: none reaches anything (no private addresses are allowed here), all are refused. */
const downloadUrl = fc.oneof(
  fc.constantFrom(
    'http://127.0.0.1:9/a.png',
    'https://[::1]/x.jpg',
    'http://169.254.169.254/latest/meta-data',
    'file:///etc/passwd',
    'ftp://127.0.0.1/a.png',
    'http://user:pw@127.0.0.1/a.png',
    'javascript:alert(1)',
    '',
  ),
  jsonish,
);

const mediaImportBody = fc
  .record(
    {
      mediaLibraryEntries: often(
        fc.array(
          fc.record(
            {
              id: often(fc.constantFrom(FUZZ_MEDIA_ID, 'new-one', 'bad id', ''), 3, jsonish),
              systemName: fc.string({ maxLength: 8 }),
              externalId: fc.string({ maxLength: 8 }),
              mediaType: fc.constantFrom('image', 'video', 'file', 'sound'),
              asset: often(
                fc.record(
                  {
                    url: downloadUrl,
                    uploadId: fc.oneof(fc.uuid(), jsonish),
                    filename: fc.oneof(
                      fc.constantFrom('../../x.png', 'a\\b.png'),
                      fc.string({ maxLength: 8 }),
                    ),
                  },
                  { requiredKeys: [] },
                ),
                4,
                jsonish,
              ),
              metadata: often(fc.dictionary(nameLike, jsonish, { maxKeys: 3 }), 3, jsonish),
              translations: jsonish,
            },
            { requiredKeys: ['mediaType', 'asset'] },
          ),
          { minLength: 1, maxLength: 3 },
        ),
        4,
        jsonish,
      ),
    },
    { requiredKeys: [] },
  )
  .map(toJson);

const mediaPatchBody = fc
  .record(
    {
      preserveUpdatedAt: often(fc.boolean(), 3, jsonish),
      patches: often(
        fc.array(
          fc.oneof(
            fc.record(
              {
                operation: fc.constant('revokeAsset'),
                note: often(fc.string({ maxLength: 210 }), 3, jsonish),
              },
              { requiredKeys: ['operation'] },
            ),
            fc.record({ operation: fc.constant('unrevokeAsset') }),
            fc.record({ operation: fc.constant('setMetadata'), metadata: jsonish }),
            fc.record({ operation: fc.constant('setTranslations'), translations: jsonish }),
            fc.dictionary(fc.constantFrom(...BODY_KEYS), jsonish, { maxKeys: 3 }),
          ),
          { minLength: 1, maxLength: 3 },
        ),
        4,
        jsonish,
      ),
    },
    { requiredKeys: [] },
  )
  .map(toJson);

/** Under either key the config routes accept (channelConfig is what existing clients send), now and then both. */
const planFlag = often(fc.constant(true), 3, jsonish);
const configBody = fc
  .oneof(
    {
      weight: 4,
      arbitrary: fc.record({ plan: planFlag, projectConfig: jsonish }, { requiredKeys: ['projectConfig'] }),
    },
    {
      weight: 4,
      arbitrary: fc.record({ plan: planFlag, channelConfig: jsonish }, { requiredKeys: ['channelConfig'] }),
    },
    { weight: 1, arbitrary: fc.record({ plan: planFlag, projectConfig: jsonish, channelConfig: jsonish }) },
  )
  .map(toJson);

/** The fuzzed project's document (read when a value is drawn: it exists only once beforeAll ran), or not. */
const documentIdLike = () =>
  fc.oneof(
    fc.constant(null).map(() => Number(valid.documentId)),
    fc.constant(null).map(() => valid.documentId),
    fc.constantFrom(0, -1, 1.5, 2 ** 53, '9007199254740993', '', 'x', null),
    jsonish,
  );

const reEnrichBody = fc
  .record({ doc_ids: often(fc.array(documentIdLike(), { maxLength: 5 }), 4, jsonish) }, { requiredKeys: [] })
  .map(toJson);

/** A planning tool's element: the fields the API reads, hostile now and then, and keys of the tool's own. */
const elementBody = fc
  .record(
    {
      id: often(fc.oneof(fc.string({ maxLength: 12 }), fc.nat()), 4, jsonish),
      title: often(fc.oneof(fc.string({ maxLength: 20 }), fc.constant(null)), 3, jsonish),
      description: often(fc.string({ maxLength: 20 }), 3, jsonish),
      metadata: often(fc.dictionary(nameLike, jsonish, { maxKeys: 3 }), 3, jsonish),
      documentId: documentIdLike(),
      assignments: jsonish,
    },
    { requiredKeys: [] },
  )
  .map(toJson);

const statusesBody = fc
  .record(
    { documentIds: often(fc.array(documentIdLike(), { maxLength: 5 }), 4, jsonish) },
    { requiredKeys: [] },
  )
  .map(toJson);

const publicationBody = fc
  .record(
    { documentId: documentIdLike(), id: jsonish, status: often(fc.string({ maxLength: 10 }), 3, jsonish) },
    { requiredKeys: [] },
  )
  .map(toJson);

/** POST composition/{documentId}: every key of §4.4 and the conditions, valid mostly, hostile now and then. */
const compositionBody = fc
  .record(
    {
      fields: often(
        fc.array(fc.constantFrom('systemdata', 'metadata', 'content', 'html', 'includes', 'design', 'x')),
        4,
        jsonish,
      ),
      metadata: often(
        fc.record({ preload: fc.dictionary(nameLike, often(fc.boolean(), 4, jsonish), { maxKeys: 3 }) }),
        3,
        jsonish,
      ),
      renderOptions: often(fc.record({ renderDirectiveInfo: fc.boolean() }), 3, jsonish),
      resolveIncludes: often(fc.boolean(), 3, jsonish),
      ignoreComponentConditions: often(fc.boolean(), 3, jsonish),
      componentConditions: fc.oneof(
        fc.record({ dateTime: dateLike, brand: fc.constantFrom('ch', 'de', '') }, { requiredKeys: [] }),
        fc.constantFrom('{"brand":"de"}', '{not json', '[]'),
        jsonish,
      ),
    },
    { requiredKeys: [] },
  )
  .map(toJson);

const tokenRequestBody = fc.oneof(
  fc.constantFrom('grant_type=client_credentials', 'grant_type=client_credentials&scope=planner', 'scope=x'),
  fc.record({ grant_type: often(fc.constant('client_credentials'), 3, jsonish), scope: jsonish }).map(toJson),
);

const malformedBody = fc.oneof(
  fc.constantFrom('{', '[1,]', 'nul', '{"a":1}}', "{'a':1}", '', '\u0000', '{"commands":[{"op'),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
);

/** Bodies shaped like the route's own (so they get deep into validation and commands), or anything else. */
function bodyFor(route: RouteEntry): fc.Arbitrary<string | undefined> {
  const deliveryBody = fc
    .record(
      {
        publicationId: often(fc.constant(valid.publicationId), 2, fc.oneof(fc.integer(), jsonish)),
        deliveryHandle: fc.string({ maxLength: 10 }),
        status: fc.constantFrom('success', 'failed', 'in-progress', 'aborted', 'bogus'),
        message: fc.string({ maxLength: 20 }),
        userChoices: often(fc.constant(undefined), 3, jsonish),
      },
      { requiredKeys: ['publicationId', 'deliveryHandle', 'status'] },
    )
    .map(toJson);
  const own = route.path.endsWith('/commands')
    ? commandsBody
    : route.path.endsWith('/import/documents')
      ? importBody
      : route.path.endsWith('/addDeliveryStatus')
        ? deliveryBody
        : route.path.endsWith('/projectConfig') || route.path.endsWith('/channelConfig')
          ? configBody
          : route.path.endsWith('/re-enrich')
            ? reEnrichBody
            : /\/element(\/|$)/.test(route.path)
              ? elementBody
              : route.path.endsWith('/statuses')
                ? statusesBody
                : /\/publication(\/|$)/.test(route.path)
                  ? publicationBody
                  : route.path.endsWith('/oauth/token')
                    ? tokenRequestBody
                    : route.path.includes('/composition/')
                      ? compositionBody
                      : route.path.endsWith('/import/mediaLibrary')
                        ? mediaImportBody
                        : route.path.endsWith('/mediaLibrary/:id')
                          ? mediaPatchBody
                          : fc.constant(undefined);
  return fc.oneof(
    { weight: 6, arbitrary: own },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: jsonish.map(toJson) },
    { weight: 1, arbitrary: fc.oneof(commandsBody, importBody, deliveryBody, configBody) },
    { weight: 1, arbitrary: malformedBody },
  );
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=bogus',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/merge-patch+json',
  '*/*',
  'garbage',
  ';;;',
];
const CONTENT_ENCODINGS = ['gzip', 'deflate', 'br', 'identity', 'compress', 'gzip, gzip', 'zstd', 'GZIP'];
const EXTRA_HEADERS = [
  'accept',
  'accept-encoding',
  'if-none-match',
  'if-match',
  'x-request-id',
  'origin',
  'cookie',
];

const headers = fc.record({
  auth: often(fc.constant('every scope'), 7, fc.constantFrom('none', 'read', 'garbage', 'basic')),
  contentType: often(
    fc.constant<string | undefined>('application/json'),
    3,
    fc.constantFrom<string | undefined>(undefined, ...CONTENT_TYPES),
  ),
  contentEncoding: often(
    fc.constant<string | undefined>(undefined),
    4,
    fc.constantFrom<string | undefined>(...CONTENT_ENCODINGS),
  ),
  /** Whether a body labelled gzip, deflate or br really is. */
  encoded: fc.boolean(),
  padding: often(fc.constant(0), 19, fc.constantFrom(8 * 1024, 17 * 1024, 40 * 1024)),
  extra: fc.dictionary(fc.constantFrom(...EXTRA_HEADERS), fc.stringMatching(/^[\x21-\x7e]{0,40}$/), {
    maxKeys: 3,
  }),
});

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  /**
   * The operation the request is sure to reach when it reaches a route (`GET /documents/{documentId}`): set
   * when it is sent with the route's own method and every path parameter is one segment (no `/`, not empty,
   * `.` or `..`), so that no other route can take it.
   */
  operation?: string;
}

/**
 * What the edge answers before any route, whichever route a request is for, and the description's info names
 * once for all: a malformed URL or body (400, a body sent even to a GET is parsed), a body too large (413) or not
 * JSON (415), an Expect (417), headers over 16 KB (431).
 */
const EDGE_STATUSES = new Set([400, 413, 415, 417, 431]);

/** What each operation answered, by version: `<label> <operation>` → status → one request that got it. */
const answeredStatuses = new Map<string, Map<number, string>>();

/** Notes the status of an answer to a request that names its operation, in a version it exists in. */
function noteStatus(request: FuzzRequest, answer: { status: number; text: string }): void {
  if (request.operation === undefined) return;
  const label = /^\/api\/([^/?]+)\//.exec(request.path)?.[1] ?? '';
  const version = ApiVersion.parse(label);
  const route = routes.find(
    (entry) =>
      `${entry.method} ${entry.path.replace(/^\/api\/:apiVersion/, '').replace(/[:*](\w+)/g, '{$1}')}` ===
      request.operation,
  );
  if (!version || !route || !routeExistsIn(route, version)) return;
  const key = `${label} ${request.operation}`;
  const statuses = answeredStatuses.get(key) ?? new Map<number, string>();
  if (!statuses.has(answer.status)) {
    statuses.set(
      answer.status,
      `${request.method} ${request.path.slice(0, 200)}: ${answer.text.slice(0, 200)}`,
    );
  }
  answeredStatuses.set(key, statuses);
}

function requestFor(route: RouteEntry): fc.Arbitrary<FuzzRequest> {
  const names = pathParamNames(route.path);
  const openApiPath = route.path.replace(/^\/api\/:apiVersion/, '').replace(/[:*](\w+)/g, '{$1}');
  const known = knownQuery.get(openApiPath) ?? [];
  return fc
    .record({
      params: fc.tuple(...names.map((name) => pathParam(name))),
      query: fc.option(queryString(known), { nil: undefined, freq: 4 }),
      method: often(fc.constant(route.method), 12, fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE')),
      headers,
      body: bodyFor(route),
    })
    .map(({ params, query, method, headers: h, body: text }) => {
      let path = route.path;
      names.forEach((name, index) => {
        path = path.replace(new RegExp(`[:*]${name}\\b`), () => params[index] ?? '');
      });
      const sent: Record<string, string> = { ...h.extra };
      const token = valid.tokens.get(h.auth);
      if (token) sent.authorization = `Bearer ${token}`;
      if (h.auth === 'garbage') sent.authorization = 'Bearer not.a.token';
      if (h.auth === 'basic') sent.authorization = valid.basic;
      if (h.contentType) sent['content-type'] = h.contentType;
      if (h.padding > 0) sent['x-padding'] = 'p'.repeat(h.padding);
      let bytes: Buffer | undefined = text === undefined ? undefined : Buffer.from(text, 'utf8');
      if (h.contentEncoding) {
        sent['content-encoding'] = h.contentEncoding;
        if (bytes && h.encoded) bytes = compress(h.contentEncoding, bytes);
      }
      const oneSegmentEach = names.every(
        (name, index) =>
          name === 'apiVersion' ||
          name === 'key' ||
          (!['', '.', '..'].includes(params[index] ?? '') && !(params[index] ?? '').includes('/')),
      );
      return {
        method,
        path: query === undefined ? path : `${path}?${query}`,
        headers: sent,
        body: bytes,
        ...(method === route.method && oneSegmentEach && { operation: `${route.method} ${openApiPath}` }),
      };
    });
}

/**
 * The list reads (Elasticsearch and Postgres queries over ranges, filters, sorts and dates), with a token
 * that may read and a query of their own parameters, each once, with values made for it: what gets a
 * request past validation and into the query it builds, where a value the query cannot take is a 5xx.
 */
function readRequestFor(route: RouteEntry): fc.Arbitrary<FuzzRequest> {
  const names = pathParamNames(route.path);
  const openApiPath = route.path.replace(/^\/api\/:apiVersion/, '').replace(/[:*](\w+)/g, '{$1}');
  const known = knownQuery.get(openApiPath) ?? [];
  const pairs = fc.shuffledSubarray(known, { maxLength: 4 }).chain((keys) =>
    fc.tuple(
      ...keys.map((name) => {
        const own = ownValue(name);
        const value = own === undefined ? queryValue : fc.oneof({ weight: 9, arbitrary: own }, queryValue);
        return fc.tuple(fc.constant(name), value);
      }),
    ),
  );
  return fc
    .record({ params: fc.tuple(...names.map((name) => validSegment(name))), pairs })
    .map(({ params, pairs: query }) => {
      let path = route.path;
      names.forEach((name, index) => {
        path = path.replace(new RegExp(`[:*]${name}\\b`), () => params[index] ?? '');
      });
      const search = query.map(([name, value]) => `${name}=${value}`).join('&');
      return {
        method: 'GET',
        path: search === '' ? path : `${path}?${search}`,
        headers: { authorization: `Bearer ${valid.tokens.get('every scope')}` },
        body: undefined,
      };
    });
}

function compress(encoding: string, bytes: Buffer): Buffer {
  if (encoding === 'gzip') return gzipSync(bytes);
  if (encoding === 'deflate') return deflateSync(bytes);
  if (encoding === 'br') return brotliCompressSync(bytes);
  return bytes;
}

// ---- what must hold --------------------------------------------------------------------------------------

async function send(request: FuzzRequest): Promise<{ status: number; contentType: string; text: string }> {
  const response = await client.request({
    method: request.method,
    path: request.path,
    headers: request.headers,
    body: request.body,
  });
  const text = await response.body.text();
  const contentType = response.headers['content-type'];
  return { status: response.statusCode, contentType: String(contentType ?? ''), text };
}

function checkAnswer(request: FuzzRequest, answer: { status: number; contentType: string; text: string }) {
  const shown = () =>
    `${request.method} ${request.path.slice(0, 300)} (${JSON.stringify(Object.keys(request.headers))}) ` +
    `answered ${answer.status}: ${answer.text.slice(0, 300)}`;
  if (answer.status >= 500) throw new Error(`a 5xx: ${shown()}`);
  if (answer.status < 400) return;
  if (!answer.contentType.startsWith('application/json')) throw new Error(`not JSON: ${shown()}`);
  const parsed = JSON.parse(answer.text) as { status?: unknown; error?: unknown; error_details?: unknown };
  const details = parsed.error_details;
  const isEnvelope =
    parsed.status === answer.status &&
    parsed.error === STATUS_CODES[answer.status] &&
    typeof details === 'object' &&
    details !== null &&
    !Array.isArray(details) &&
    Object.keys(parsed).length === 3;
  if (!isEnvelope) throw new Error(`not the envelope: ${shown()}`);
}

describe('every route, fuzzed', () => {
  it('when the routes are read from the app, then they are all there, under /api/:apiVersion', () => {
    const paths = routes.map((route) => `${route.method} ${route.path}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'GET /api/:apiVersion/health',
        'GET /api/:apiVersion/documents/latestPublications',
        'PATCH /api/:apiVersion/documents/:documentId/commands',
        'POST /api/:apiVersion/import/documents',
        'GET /api/:apiVersion/publicationEvents/:channelHandle',
      ]),
    );
  });

  it('when the routes are read from the app, then the OpenAPI description of each version they exist in has each of them with its method', async () => {
    const undescribed: { version: string; method: string; path: string }[] = [];
    for (const version of ALL_VERSION_LABELS) {
      const openapi = (await (await fetch(`${app.url}/api/${version}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, unknown>>;
      };
      undescribed.push(
        ...routes
          .filter((route) => routeExistsIn(route, ApiVersion.parse(version)!))
          .map((route) => ({
            version,
            method: route.method.toLowerCase(),
            path: route.path.replace(/^\/api\/:apiVersion/, '').replace(/[:*](\w+)/g, '{$1}'),
          }))
          .filter(({ method, path }) => openapi.paths[path]?.[method] === undefined),
      );
    }
    expect(undescribed).toEqual([]);
  });

  it('when any route that reads a body gets a text body with every scope, then 415 in the envelope', async () => {
    const bodyRoutes = routes.filter((route) => ['POST', 'PUT', 'PATCH'].includes(route.method));
    expect(bodyRoutes.length).toBeGreaterThan(0);
    for (const route of bodyRoutes) {
      // The newest version the route exists in: before it, every other version answers the unknown-route 404.
      let answered: { version: string; status: number } | undefined;
      for (const version of [...ALL_VERSION_LABELS].reverse()) {
        const request: FuzzRequest = {
          method: route.method,
          path: route.path
            .replace(':apiVersion', version)
            .replace(/[:*](\w+)/g, (_all, name: string) => (name === 'documentId' ? valid.documentId : 'x')),
          headers: {
            authorization: `Bearer ${valid.tokens.get('every scope')}`,
            'content-type': 'text/plain',
          },
          body: Buffer.from('{}'),
        };
        const answer = await send(request);
        checkAnswer(request, answer);
        const details = (JSON.parse(answer.text) as { error_details?: object }).error_details ?? {};
        const unknownRoute = answer.status === 404 && 'url' in details;
        if (!unknownRoute) {
          answered = { version, status: answer.status };
          break;
        }
      }
      expect({ route: `${route.method} ${route.path}`, answered }).toEqual({
        route: `${route.method} ${route.path}`,
        answered: { version: expect.any(String), status: 415 },
      });
    }
  });

  it(`when ${RUNS} hostile requests hit every route, then never a 5xx, every error is the envelope, every status is one its operation's description lists, and health still answers`, async () => {
    const request = fc.oneof(...routes.map((route) => requestFor(route)));
    try {
      await fc.assert(
        fc.asyncProperty(request, async (sent) => {
          const answer = await send(sent);
          checkAnswer(sent, answer);
          noteStatus(sent, answer);
        }),
        { seed: SEED, numRuns: RUNS },
      );
    } catch (error) {
      throw new Error(
        `${(error as Error).message}\n\nReproduce with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} ` +
          'npx jest --selectProjects integration --runTestsByPath test/integration/route-fuzz.test.ts',
        { cause: error },
      );
    }
    const health = await send({ method: 'GET', path: '/api/2026-03/health', headers: {}, body: undefined });
    expect(health).toEqual({
      status: 200,
      contentType: expect.stringMatching(/^application\/json/),
      text: '{"status":"ok"}',
    });
    // Every status an operation answered is one its version's OpenAPI description lists for it.
    type Description = { paths: Record<string, Record<string, { responses: object }>> };
    const descriptions = new Map<string, Description>();
    for (const label of ALL_VERSION_LABELS) {
      const response = await fetch(`${app.url}/api/${label}/openapi.json`);
      descriptions.set(label, (await response.json()) as Description);
    }
    const undescribed = [...answeredStatuses].flatMap(([key, statuses]) => {
      const [label = '', method = '', path = ''] = key.split(' ');
      const responses = descriptions.get(label)?.paths[path]?.[method.toLowerCase()]?.responses ?? {};
      return [...statuses]
        .filter(([status]) => !EDGE_STATUSES.has(status) && !Object.hasOwn(responses, String(status)))
        .map(([status, example]) => `${key} ${status} (${example})`);
    });
    expect(undescribed).toEqual([]);
    expect(answeredStatuses.size).toBeGreaterThan(50);
  }, 300_000);

  it(`when ${READ_RUNS} well-formed queries with values at the edges hit the list reads, then never a 5xx and every error is the envelope`, async () => {
    const reads = routes.filter(
      (route) =>
        route.method === 'GET' &&
        /\/(publications\/search|documents\/latestPublications|publicationEvents(\/:channelHandle)?)$/.test(
          route.path,
        ),
    );
    expect(reads.length).toBe(4);
    try {
      await fc.assert(
        fc.asyncProperty(fc.oneof(...reads.map((route) => readRequestFor(route))), async (sent) =>
          checkAnswer(sent, await send(sent)),
        ),
        { seed: SEED, numRuns: READ_RUNS },
      );
    } catch (error) {
      throw new Error(
        `${(error as Error).message}\n\nReproduce with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} ` +
          'npx jest --selectProjects integration --runTestsByPath test/integration/route-fuzz.test.ts',
        { cause: error },
      );
    }
  }, 300_000);
});
