import { randomBytes, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { ALL_VERSION_LABELS } from '../../src/domain/api-versions';
import { createApiClient, revokeApiClient, signClientToken } from '../../src/commands/api-clients';
import { SCOPES } from '../../src/domain/scopes';
import { listRoutes, pathParamNames, type RouteEntry } from '../../src/http/route-table';
import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument, indexNow } from '../helpers/documents';
import { ALL_SCOPES, createTestProject, tokenFor, TEST_DESIGN } from '../helpers/factories';

/**
 * The auth matrix: every route the mounted app has (read from its router, so a route added later is in the
 * matrix without touching this file) × every way a credential can be wrong. What each route requires is read
 * from the OpenAPI description the app serves (its `security`), so the matrix checks the documented answer:
 *
 *   no token, garbage, forged signature, expired, revoked client → 401 with the reason in `access_token`;
 *   a real token of the project lacking the route's scope → 403;
 *   a token of another project with every scope → 404 for that project's document, and never its data.
 *
 * Routes without security in the description (health, the description itself) answer whatever is sent.
 */

interface Operation {
  security?: Record<string, string[]>[];
  responses?: Record<string, { headers?: Record<string, { description?: string }> }>;
}

/** What the route's description says its answer of `status` sends as WWW-Authenticate, or undefined. */
function describedChallenge(route: RouteEntry, status: number): string | undefined {
  const operation = description[openApiPath(route)]?.[route.method.toLowerCase()];
  return operation?.responses?.[String(status)]?.headers?.['WWW-Authenticate']?.description;
}

let app: TestApp;
let routes: RouteEntry[];
let description: Record<string, Record<string, Operation>>;

/** Project A owns the data; project B is the other project whose token must never see it. */
const a = {
  projectId: 0,
  documentId: 0,
  publicationId: 0,
  /** A string that is only in project A's document, so any answer that carries it leaked A's data. */
  marker: `only-in-a-${randomBytes(6).toString('hex')}`,
  handle: '',
  allScopes: '',
};
const b = { projectId: 0, allScopes: '' };
const bad: Record<'garbage' | 'forged' | 'expired' | 'revoked', string> = {
  garbage: '',
  forged: '',
  expired: '',
  revoked: '',
};

const INTEGRATIONS = {
  enrichment: { enabled: true, url: 'http://127.0.0.1:9/enrich' },
  planner: { elements: { enabled: true }, integration: { enabled: true } },
};

beforeAll(async () => {
  app = await startTestApp();
  const projectA = await createTestProject(app.ctx, { config: INTEGRATIONS });
  const projectB = await createTestProject(app.ctx, { config: INTEGRATIONS });
  a.projectId = projectA.projectId;
  b.projectId = projectB.projectId;
  const handles = await app.ctx.pool.query<{ id: number; handle: string }>(
    'SELECT id, handle FROM projects WHERE id = $1',
    [a.projectId],
  );
  a.handle = handles.rows[0]?.handle ?? '';
  const published = await createPublishedDocument(app.ctx, a.projectId, {
    metadata: { title: a.marker, flag: a.marker, summary: a.marker },
    content: [{ id: 'c1', identifier: `${TEST_DESIGN.name}.paragraph`, content: { text: a.marker } }],
    design: { name: TEST_DESIGN.name, version: TEST_DESIGN.version },
  });
  a.documentId = published.documentId;
  a.publicationId = published.publicationId;
  await indexNow(app.ctx, a.projectId, [a.documentId]);
  a.allScopes = (await tokenFor(app.ctx, a.projectId, ALL_SCOPES)).token;
  b.allScopes = (await tokenFor(app.ctx, b.projectId, ALL_SCOPES)).token;

  const secret = app.ctx.config.auth.jwtSecret;
  const channelId = Number(
    JSON.parse(Buffer.from(a.allScopes.split('.')[1] ?? '', 'base64url').toString()).channelId,
  );
  bad.garbage = 'not-a-jwt';
  // A real client of the project, its token signed with a key that is not the server's.
  const real = await createApiClient(app.ctx.pool, secret, {
    projectId: a.projectId,
    name: 'forged',
    scopes: ALL_SCOPES,
  });
  bad.forged = signClientToken(randomBytes(32).toString('hex'), {
    projectId: a.projectId,
    channelId,
    scopes: ALL_SCOPES,
    name: 'forged',
    clientId: real.client.id,
  });
  // Signed by the server, for a real client, but its exp is in the past.
  bad.expired = jwt.sign(
    {
      projectId: a.projectId,
      channelId,
      scope: ALL_SCOPES.join(' '),
      name: 'expired',
      type: 'client',
      exp: Math.floor(Date.now() / 1000) - 60,
    },
    secret,
    { algorithm: 'HS256', jwtid: real.client.id },
  );
  const revoked = await createApiClient(app.ctx.pool, secret, {
    projectId: a.projectId,
    name: 'revoked',
    scopes: ALL_SCOPES,
  });
  // Used once before the revocation, so a cached verification must not let it through afterwards.
  expect((await send('GET', '/api/2026-03/design', revoked.token)).status).toBe(200);
  await revokeApiClient(app.ctx.pool, revoked.client.id);
  bad.revoked = revoked.token;

  routes = listRoutes(app.app.router);
  // Each version's document describes the routes of that version: together they describe every route.
  description = {};
  for (const version of ALL_VERSION_LABELS) {
    const { paths } = (await (await fetch(`${app.url}/api/${version}/openapi.json`)).json()) as {
      paths: typeof description;
    };
    for (const [path, operations] of Object.entries(paths)) {
      description[path] = { ...description[path], ...operations };
    }
  }
});

afterAll(async () => {
  await app.close();
});

// ---- requests ----------------------------------------------------------------------------------------------

interface Answer {
  status: number;
  text: string;
  /** The WWW-Authenticate header, null when none. */
  challenge: string | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

async function send(
  method: string,
  path: string,
  token?: string,
  body?: unknown,
  authorization?: string,
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (authorization !== undefined) headers.authorization = authorization;
  else if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${app.url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, text, challenge: response.headers.get('www-authenticate'), body: parsed };
}

function paramValue(name: string): string {
  switch (name) {
    case 'documentId':
      return String(a.documentId);
    case 'channelHandle':
      return 'web';
    case 'designVersion':
      return TEST_DESIGN.version;
    case 'categoryId':
      return 'news';
    case 'renditionHandles':
      return 'web';
    default:
      return 'x';
  }
}

function concretePath(route: RouteEntry, version: string): string {
  let path = route.path.replace(':apiVersion', version);
  for (const name of pathParamNames(route.path)) {
    if (name !== 'apiVersion') path = path.replace(new RegExp(`[:*]${name}\\b`), paramValue(name));
  }
  return path;
}

/**
 * A body that gets past the route's own validation to the project's document, so that another project's
 * token meets the 404 of a document it cannot see, not a 400 about the body.
 */
function bodyFor(route: RouteEntry): unknown {
  if (!['POST', 'PUT', 'PATCH'].includes(route.method)) return undefined;
  const path = route.path;
  if (path.endsWith('/commands'))
    return { commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'taken over' }] };
  if (path.endsWith('/addDeliveryStatus'))
    return { publicationId: a.publicationId, deliveryHandle: 'print', status: 'success' };
  if (/\/element\/:documentId$/.test(path)) return { id: 'el-1', title: 'taken over' };
  if (/\/publication\/:documentId$/.test(path)) return { id: 'el-1', status: 'planned' };
  if (path.endsWith('/publication')) return { documentId: a.documentId, id: 'el-1' };
  if (path.endsWith('/statuses')) return { documentIds: [a.documentId] };
  if (path.endsWith('/element')) return { id: `el-${randomUUID()}`, documentId: a.documentId };
  if (path.endsWith('/re-enrich')) return { doc_ids: [a.documentId] };
  if (path.endsWith('/import/documents'))
    return { systemName: 'matrix', documents: [{ id: `m-${randomUUID()}`, contentType: 'page' }] };
  return {};
}

const openApiPath = (route: RouteEntry) =>
  route.path.replace(/^\/api\/:apiVersion/, '').replace(/[:*](\w+)/g, '{$1}');

/** The scopes the description says the route needs, `basic` for a client-credential login, or none. */
function security(route: RouteEntry): { scheme: 'bearer' | 'basic' | 'none'; scopes: string[] } {
  const operation = description[openApiPath(route)]?.[route.method.toLowerCase()];
  const first = operation?.security?.[0];
  if (!first) return { scheme: 'none', scopes: [] };
  if (first.basic) return { scheme: 'basic', scopes: [] };
  return { scheme: 'bearer', scopes: first.bearer ?? [] };
}

/** The newest version the route exists in: in the others, the unknown-route 404 (naming the url) answers. */
async function versionOf(route: RouteEntry): Promise<string> {
  for (const version of [...ALL_VERSION_LABELS].reverse()) {
    const answer = await send(route.method, concretePath(route, version), undefined, bodyFor(route));
    const unknownRoute = answer.status === 404 && answer.body?.error_details?.url !== undefined;
    if (!unknownRoute) return version;
  }
  throw new Error(`${route.method} ${route.path} answers the unknown-route 404 in every version`);
}

const unauthorized = (message: string) => ({
  status: 401,
  body: { status: 401, error: 'Unauthorized', error_details: { access_token: message } },
});
/** RFC 6750 §3: a missing token's challenge has no error; a token that cannot be used is invalid_token. */
const MISSING_CHALLENGE = 'Bearer';
const invalidTokenChallenge = (message: string) =>
  `Bearer error="invalid_token", error_description="${message}"`;
/** RFC 6750 §3.1: a token without the route's scopes is told which ones the route needs. */
const insufficientScope = (scopes: string[]) =>
  `Bearer error="insufficient_scope", error_description="The request requires higher privileges", scope="${scopes.join(' ')}"`;
const forbidden = {
  status: 403,
  body: {
    status: 403,
    error: 'Forbidden',
    error_details: { access_token: 'The request requires higher privileges' },
  },
};

const shape = (answer: Answer) => ({ status: answer.status, body: answer.body as unknown });

// ---- the matrix --------------------------------------------------------------------------------------------

describe('the auth matrix over every mounted route', () => {
  it('when the routes are read from the app, then every one is described, and only health, the description and its reference page need no credentials', () => {
    expect(routes.length).toBeGreaterThan(30);
    const undescribed = routes.filter(
      (route) => !description[openApiPath(route)]?.[route.method.toLowerCase()],
    );
    expect(undescribed).toEqual([]);
    const open = routes.filter((route) => security(route).scheme === 'none').map((route) => route.path);
    // The reference page and its files are as public as the description they render.
    expect(open.sort()).toEqual([
      '/api/:apiVersion/docs',
      '/api/:apiVersion/docs/:asset',
      '/api/:apiVersion/health',
      '/api/:apiVersion/health/ready',
      '/api/:apiVersion/openapi.json',
    ]);
    // Every bearer route names the scope it needs, so that "wrong scope" below means something.
    const scopeless = routes.filter((route) => {
      const { scheme, scopes } = security(route);
      return scheme === 'bearer' && scopes.length === 0;
    });
    expect(scopeless).toEqual([]);
  });

  it('when a bearer route gets no token, garbage, a forged signature, an expired or a revoked token, then 401 naming why, with its RFC 6750 challenge, which the description names', async () => {
    const failures: unknown[] = [];
    for (const route of routes.filter((entry) => security(entry).scheme === 'bearer')) {
      const version = await versionOf(route);
      const path = concretePath(route, version);
      const body = bodyFor(route);
      const cases: [string, string | undefined, ReturnType<typeof unauthorized>][] = [
        ['no token', undefined, unauthorized('The access token is missing.')],
        ['garbage', bad.garbage, unauthorized('The access token is invalid.')],
        ['forged signature', bad.forged, unauthorized('The access token is invalid.')],
        ['expired', bad.expired, unauthorized('The access token expired.')],
        ['revoked client', bad.revoked, unauthorized('The access token was revoked.')],
      ];
      for (const [name, token, expected] of cases) {
        const sent = await send(route.method, path, token, body);
        const answer = { ...shape(sent), challenge: sent.challenge };
        const message = expected.body.error_details.access_token;
        const challenge = token === undefined ? MISSING_CHALLENGE : invalidTokenChallenge(message);
        if (JSON.stringify(answer) !== JSON.stringify({ ...expected, challenge }))
          failures.push({ route: `${route.method} ${path}`, credential: name, answer });
      }
      // Credentials that are not a bearer token at all (Basic): invalid, not a way around the token.
      const sent = await send(route.method, path, undefined, body, 'Basic Zm9vOmJhcg==');
      const basic = { ...shape(sent), challenge: sent.challenge };
      const invalid = 'The access token is invalid.';
      if (
        JSON.stringify(basic) !==
        JSON.stringify({ ...unauthorized(invalid), challenge: invalidTokenChallenge(invalid) })
      )
        failures.push({ route: `${route.method} ${path}`, credential: 'basic', answer: basic });
      // The description names the challenge its 401 sends.
      if (!describedChallenge(route, 401)?.includes('Bearer error="invalid_token"'))
        failures.push({ route: `${route.method} ${path}`, described: describedChallenge(route, 401) });
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it("when a bearer route gets a real token of the project without the route's scope, then 403 with the insufficient_scope challenge naming the scopes, as the description says", async () => {
    const failures: unknown[] = [];
    const tokens = new Map<string, string>();
    for (const route of routes.filter((entry) => security(entry).scheme === 'bearer')) {
      const needed = security(route).scopes;
      // Every scope but the ones the route needs; and for routes needing two, each one alone.
      const lacking = [
        SCOPES.filter((scope) => !needed.includes(scope)),
        ...(needed.length > 1 ? needed.map((s) => [s]) : []),
      ];
      const version = await versionOf(route);
      const path = concretePath(route, version);
      for (const scopes of lacking) {
        const key = scopes.join(' ');
        if (!tokens.has(key)) tokens.set(key, (await tokenFor(app.ctx, a.projectId, scopes)).token);
        const sent = await send(route.method, path, tokens.get(key), bodyFor(route));
        const answer = { ...shape(sent), challenge: sent.challenge };
        if (JSON.stringify(answer) !== JSON.stringify({ ...forbidden, challenge: insufficientScope(needed) }))
          failures.push({ route: `${route.method} ${path}`, scopes, answer });
      }
      // The description names the challenge its 403 sends, with the scopes the route needs.
      const described = describedChallenge(route, 403);
      if (
        !described?.includes('error="insufficient_scope"') ||
        !described.includes(`scope="${needed.join(' ')}"`)
      )
        failures.push({ route: `${route.method} ${path}`, described });
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it("when a bearer route gets another project's token with every scope, then the project's document is a 404 and its data never shows", async () => {
    const failures: unknown[] = [];
    for (const route of routes.filter((entry) => security(entry).scheme === 'bearer')) {
      const version = await versionOf(route);
      const path = concretePath(route, version);
      const answer = await send(route.method, path, b.allScopes, bodyFor(route));
      const where = `${route.method} ${path}`;
      if (answer.status >= 500) failures.push({ route: where, answer: shape(answer) });
      if (answer.text.includes(a.marker) || (a.handle !== '' && answer.text.includes(a.handle)))
        failures.push({ route: where, leaked: answer.text.slice(0, 300) });
      const namesTheDocument = pathParamNames(route.path).includes('documentId');
      if (namesTheDocument && answer.status !== 404)
        failures.push({ route: where, expected: 404, answer: shape(answer) });
      if (namesTheDocument && answer.body?.error !== 'Not Found')
        failures.push({ route: where, expected: 'the envelope', answer: shape(answer) });
    }
    expect(failures).toEqual([]);
    // And nothing the other project sent changed the project's document.
    const draft = await send('GET', `/api/2026-03/documents/${a.documentId}/latestDraft`, a.allScopes);
    expect(draft.status).toBe(200);
    expect(draft.text).toContain(a.marker);
    expect(draft.text).not.toContain('taken over');
  }, 120_000);

  it("when the reads naming the project's document get its own token, then they answer it (so the other project's 404 is the project boundary)", async () => {
    const reads = routes.filter(
      (route) =>
        security(route).scheme === 'bearer' &&
        pathParamNames(route.path).includes('documentId') &&
        (route.method === 'GET' || route.path.includes('/composition/')),
    );
    expect(reads.length).toBeGreaterThan(3);
    for (const route of reads) {
      const path = concretePath(route, await versionOf(route));
      const answer = await send(route.method, path, a.allScopes, bodyFor(route));
      // Incoming references answer about other documents (none point at this one here): a 200 is the proof.
      const aboutTheDocument = !/\/incoming\w+References$/.test(route.path);
      expect({ path, status: answer.status, own: answer.text.includes(a.marker) }).toEqual({
        path,
        status: 200,
        own: aboutTheDocument,
      });
    }
  });

  it("when searches and lists are asked with the other project's token, then they answer without the project's document", async () => {
    // The project's own token sees its document, so the searches below would find it if they leaked.
    const own = await send('GET', `/api/2026-03/publications/search?search=${a.marker}`, a.allScopes);
    expect(own.status).toBe(200);
    expect(own.text).toContain(a.marker);
    for (const path of [
      `/api/2026-03/publications/search?search=${a.marker}`,
      `/api/2026-03/publications/search?filters=${encodeURIComponent(JSON.stringify([{ key: 'documentId', term: a.documentId }]))}`,
      `/api/2026-03/documents/latestPublications?id=${a.documentId}`,
      `/api/2026-03/publicationEvents`,
      `/api/2025-03/documents/${a.documentId}/latestPublication`,
    ]) {
      const answer = await send('GET', path, b.allScopes);
      expect({ path, status: answer.status < 500, leaked: answer.text.includes(a.marker) }).toEqual({
        path,
        status: true,
        leaked: false,
      });
    }
  });

  it('when a client-credential login gets no, garbage, wrong or revoked credentials, then 401 with the Basic challenge the description names', async () => {
    const logins = routes.filter((route) => security(route).scheme === 'basic');
    expect(logins.length).toBeGreaterThan(0);
    const secret = app.ctx.config.auth.jwtSecret;
    const planner = await createApiClient(app.ctx.pool, secret, {
      projectId: a.projectId,
      name: 'planning tool',
      scopes: ['planner'],
      withSecret: true,
    });
    const revoked = await createApiClient(app.ctx.pool, secret, {
      projectId: a.projectId,
      name: 'revoked planning tool',
      scopes: ['planner'],
      withSecret: true,
    });
    await revokeApiClient(app.ctx.pool, revoked.client.id);
    const basic = (id: string, pass: string) => `Basic ${Buffer.from(`${id}:${pass}`).toString('base64')}`;
    for (const route of logins) {
      const path = concretePath(route, await versionOf(route));
      expect({ path, described: describedChallenge(route, 401) }).toEqual({
        path,
        described: expect.stringContaining('Basic realm='),
      });
      const good = await send(
        route.method,
        path,
        undefined,
        { grant_type: 'client_credentials' },
        basic(planner.client.id, planner.secret ?? ''),
      );
      expect({ path, status: good.status }).toEqual({ path, status: 200 });
      for (const [name, authorization] of [
        ['none', undefined],
        ['garbage', 'Basic !!!'],
        ['a bearer token', `Bearer ${a.allScopes}`],
        ['wrong secret', basic(planner.client.id, 'not-the-secret')],
        ['unknown client', basic(randomUUID(), planner.secret ?? '')],
        ['revoked client', basic(revoked.client.id, revoked.secret ?? '')],
      ] as const) {
        const response = await fetch(`${app.url}${path}`, {
          method: route.method,
          headers: {
            'content-type': 'application/json',
            ...(authorization === undefined ? {} : { authorization }),
          },
          body: JSON.stringify({ grant_type: 'client_credentials' }),
        });
        const body = (await response.json()) as { status: number; error: string };
        expect({
          path,
          name,
          status: response.status,
          error: body.error,
          challenge: response.headers.get('www-authenticate'),
        }).toEqual({
          path,
          name,
          status: 401,
          error: 'Unauthorized',
          challenge: expect.stringContaining('Basic'),
        });
      }
    }
  });

  it('when the open routes get any credential, then they answer as without one', async () => {
    for (const route of routes.filter((entry) => security(entry).scheme === 'none')) {
      const path = concretePath(route, '2026-03');
      const plain = await send(route.method, path);
      for (const token of [bad.garbage, bad.forged, bad.expired, bad.revoked, b.allScopes]) {
        const answer = await send(route.method, path, token);
        expect({ path, status: answer.status }).toEqual({ path, status: plain.status });
      }
    }
  });
});
