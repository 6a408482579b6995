import { ALL_VERSION_LABELS, ApiVersion } from '../../src/domain/api-versions';
import { listRoutes, pathParamNames, routeExistsIn, type RouteEntry } from '../../src/http/route-table';
import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument } from '../helpers/documents';
import { ALL_SCOPES, createTestProject, TEST_DESIGN, tokenFor } from '../helpers/factories';

/**
 * The parameters each version's OpenAPI description lists for a route, held to what the route itself
 * accepts: every query parameter the route's zod schema takes is described, and no other (asked of the running
 * app, so a description generated from another schema than the route parses with is caught), every
 * integer parameter's bounds are the route's, and the parameters described as lists take every list form.
 */
interface Parameter {
  name: string;
  in: string;
  required: boolean;
  description?: string;
  allowEmptyValue?: boolean;
  style?: string;
  explode?: boolean;
  schema: {
    type?: string;
    minimum?: number;
    maximum?: number;
    maxItems?: number;
    items?: { pattern?: string; enum?: string[] };
  };
}
type OpenApi = { paths: Record<string, Record<string, { parameters?: Parameter[] }>> };

/** A name no route takes: a route that does not refuse it does not check its query at all. */
const PROBE = 'notAParameter';

let app: TestApp;
let token: string;
let documentId: number;
let routes: RouteEntry[];
const documents = new Map<string, OpenApi>();

beforeAll(async () => {
  app = await startTestApp();
  const { projectId } = await createTestProject(app.ctx);
  token = (await tokenFor(app.ctx, projectId, ALL_SCOPES)).token;
  ({ documentId } = await createPublishedDocument(app.ctx, projectId, { metadata: { title: 'Probed' } }));
  routes = listRoutes(app.app.router);
  for (const label of ALL_VERSION_LABELS) {
    documents.set(label, (await (await fetch(`${app.url}/api/${label}/openapi.json`)).json()) as OpenApi);
  }
});
afterAll(async () => {
  await app.close();
});

const openApiPath = (route: RouteEntry) =>
  route.path.replace(/^\/api\/:apiVersion/, '').replace(/[:*](\w+)/g, '{$1}');

const parametersOf = (label: string, route: RouteEntry): Parameter[] =>
  documents.get(label)!.paths[openApiPath(route)]?.[route.method.toLowerCase()]?.parameters ?? [];

/** Path parameters that get a request past the route's own parsing of them. */
function pathValue(route: RouteEntry, name: string, label: string): string {
  const values: Record<string, string> = {
    apiVersion: label,
    documentId: String(documentId),
    // A media library entry's id, or a document list's.
    id: route.path.includes('/document-lists/') ? '1' : 'probe-media',
    channelHandle: 'web',
    categoryId: 'news',
    designVersion: TEST_DESIGN.version,
    renditionHandles: 'web',
    key: 'probe/image.png',
    asset: 'docs.js',
  };
  const value = values[name];
  if (value === undefined) throw new Error(`No value to send as the path parameter ${name}`);
  return value;
}

/** The route's URL in a version, path parameters filled in (`overrides` by name), with a query string. */
function urlOf(route: RouteEntry, label: string, query: string, overrides: Record<string, string> = {}) {
  let path = route.path;
  for (const name of pathParamNames(route.path)) {
    path = path.replace(new RegExp(`[:*]${name}\\b`), () => overrides[name] ?? pathValue(route, name, label));
  }
  return `${app.url}${path}${query === '' ? '' : `?${query}`}`;
}

async function send(
  route: RouteEntry,
  url: string,
): Promise<{ status: number; details: Record<string, string> }> {
  const withBody = ['POST', 'PUT', 'PATCH'].includes(route.method);
  const response = await fetch(url, {
    method: route.method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(withBody && { 'content-type': 'application/json' }),
    },
    ...(withBody && { body: '{}' }),
  });
  const text = await response.text();
  const parsed = (response.headers.get('content-type') ?? '').startsWith('application/json')
    ? (JSON.parse(text) as { error_details?: Record<string, string> })
    : {};
  return { status: response.status, details: parsed.error_details ?? {} };
}

/** Whether a 400 refuses a query key as one the route (or this version of it) does not take. */
const refusesKey = (message: string | undefined) =>
  message !== undefined &&
  (message === 'is not allowed' || message.startsWith('is not available in API version'));

/**
 * What a 400 says of one query key: its own key, or, for a key spelled like the envelope's `name` or
 * `message`, its part of `message` (`name: is not allowed`; see validationDetails).
 */
function problemOf(details: Record<string, string>, key: string): string | undefined {
  if (key !== 'name' && key !== 'message') return details[key];
  const prefix = `${key}: `;
  return details.message
    ?.split('; ')
    .find((part) => part.startsWith(prefix))
    ?.slice(prefix.length);
}

/** Every (route, version) the app has. */
const mounted = () =>
  routes.flatMap((route) =>
    ALL_VERSION_LABELS.filter((label) => routeExistsIn(route, ApiVersion.parse(label)!)).map((label) => ({
      route,
      label,
    })),
  );

describe('the parameters the OpenAPI description lists', () => {
  it("when every query parameter any route describes is sent to each route, then the ones it takes are exactly the ones its version's description lists", async () => {
    const candidates = [
      ...new Set(
        [...documents.values()].flatMap((document) =>
          Object.values(document.paths).flatMap((operations) =>
            Object.values(operations).flatMap((operation) =>
              (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
            ),
          ),
        ),
      ),
    ];
    expect(candidates).toEqual(expect.arrayContaining(['limit', 'offset', 'after', 'id.gt', 'fields']));
    const query = [...candidates, PROBE].map((name) => `${encodeURIComponent(name)}=1`).join('&');
    const mismatches: unknown[] = [];
    const unchecked: string[] = [];
    for (const { route, label } of mounted()) {
      const described = parametersOf(label, route)
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => parameter.name)
        .sort();
      const { status, details } = await send(route, urlOf(route, label, query));
      if (status !== 400 || !refusesKey(details[PROBE])) {
        // A route that does not read its query: it must describe none.
        unchecked.push(`${route.method} ${openApiPath(route)}`);
        if (described.length > 0) mismatches.push({ label, route: route.path, status, described, details });
        continue;
      }
      const accepted = candidates.filter((name) => !refusesKey(problemOf(details, name))).sort();
      if (JSON.stringify(accepted) !== JSON.stringify(described)) {
        mismatches.push({ label, route: `${route.method} ${route.path}`, accepted, described });
      }
    }
    expect(mismatches).toEqual([]);
    // Every route of the API checks its query, writes included (POST addDeliveryStatus?x=1 and import/documents
    // answered 200, the parameter ignored); only these do not: health probes, the docs page and the OpenAPI
    // document, and the planner's OAuth token endpoint, which must ignore parameters it does not know (RFC 6749
    // §3.2).
    expect([...new Set(unchecked)].sort()).toEqual([
      'GET /docs',
      'GET /docs/{asset}',
      'GET /health',
      'GET /health/ready',
      'GET /openapi.json',
      'POST /legacy-planner-integration/oauth/token',
      'POST /planner-integration/oauth/token',
    ]);
  }, 120_000);

  it('when a query parameter is sent twice, or in brackets, then a route that takes one value says so by name, not "must be a string"', async () => {
    const problems: unknown[] = [];
    let checked = 0;
    for (const { route, label } of mounted()) {
      for (const parameter of parametersOf(label, route).filter((p) => p.in === 'query')) {
        // A list parameter is described as an array: the next test holds it to that.
        if (parameter.schema.type === 'array') continue;
        const name = encodeURIComponent(parameter.name);
        for (const [query, expected] of [
          [`${name}=1&${name}=1`, 'must be given once'],
          [`${name}[a]=1`, `must be a single value (${parameter.name}=…), not ${parameter.name}[…]`],
        ] as const) {
          const { status, details } = await send(route, urlOf(route, label, query));
          const said = problemOf(details, parameter.name);
          if (status !== 400 || said !== expected) {
            problems.push({ label, route: `${route.method} ${route.path}`, query, status, said });
          }
          checked += 1;
        }
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  }, 180_000);

  it('when a parameter is described as a list (an array, style form, explode), then every form of it is answered as its comma list, and nested brackets are refused by name', async () => {
    const problems: unknown[] = [];
    const lists = new Set<string>();
    for (const { route, label } of mounted()) {
      for (const parameter of parametersOf(label, route).filter((p) => p.in === 'query')) {
        if (parameter.schema.type !== 'array') continue;
        lists.add(parameter.name);
        const name = encodeURIComponent(parameter.name);
        const where = { label, route: `${route.method} ${route.path}`, parameter: parameter.name };
        if (
          parameter.style !== 'form' ||
          parameter.explode !== true ||
          !parameter.description?.includes(`${parameter.name}=a,b`)
        ) {
          problems.push({ ...where, described: parameter });
        }
        // `1` is no value of some lists (fields, documentTypes): then each form is the comma list's 400.
        const comma = await send(route, urlOf(route, label, `${name}=1,1`));
        const expected = { status: comma.status, said: problemOf(comma.details, parameter.name) };
        for (const query of [
          `${name}=1&${name}=1`,
          `${name}[]=1&${name}[]=1`,
          `${name}%5B0%5D=1&${name}%5B1%5D=1`,
        ]) {
          const { status, details } = await send(route, urlOf(route, label, query));
          const answer = { status, said: problemOf(details, parameter.name) };
          if (JSON.stringify(answer) !== JSON.stringify(expected)) {
            problems.push({ ...where, query, answer, expected });
          }
        }
        const nested = await send(route, urlOf(route, label, `${name}[a][b]=1`));
        const said = problemOf(nested.details, parameter.name);
        if (nested.status !== 400 || said === undefined || said === 'must be given once') {
          problems.push({ ...where, query: `${name}[a][b]=1`, status: nested.status, said });
        }
      }
    }
    expect(problems).toEqual([]);
    expect([...lists].sort()).toEqual([
      'categories',
      'contentTypes',
      'documentTypes',
      'fields',
      'id',
      'ids',
      'languages',
      'renditions',
      'sort',
    ]);
  }, 180_000);

  it('when a list parameter is described with at most maxItems items, then the route takes that many and refuses one more by name', async () => {
    const problems: unknown[] = [];
    const capped = new Set<string>();
    for (const { route, label } of mounted()) {
      for (const parameter of parametersOf(label, route).filter((p) => p.in === 'query')) {
        const { type, maxItems, items } = parameter.schema;
        if (type !== 'array' || maxItems === undefined) continue;
        capped.add(parameter.name);
        // Items the parameter's pattern takes: digits for ids, letters and digits otherwise.
        const item = (index: number) => (items?.pattern === '^\\d+$' ? String(index + 1) : `m${index}`);
        const list = (count: number) => Array.from({ length: count }, (_, index) => item(index)).join(',');
        const name = encodeURIComponent(parameter.name);
        const at = await send(route, urlOf(route, label, `${name}=${list(maxItems)}`));
        const over = await send(route, urlOf(route, label, `${name}=${list(maxItems + 1)}`));
        const said = problemOf(over.details, parameter.name);
        if (
          problemOf(at.details, parameter.name) !== undefined ||
          over.status !== 400 ||
          said === undefined
        ) {
          problems.push({ label, route: route.path, parameter: parameter.name, at, over });
        }
      }
    }
    expect(problems).toEqual([]);
    // The lists a route caps (latestPublications' id, mediaLibrary's ids) say so.
    expect([...capped].sort()).toEqual(['id', 'ids']);
  }, 120_000);

  it('when a list parameter names the values its items may take, then the route takes each of them alone, and refuses any other by name', async () => {
    const problems: unknown[] = [];
    const enumerated = new Set<string>();
    for (const { route, label } of mounted()) {
      for (const parameter of parametersOf(label, route).filter((p) => p.in === 'query')) {
        const values = parameter.schema.items?.enum;
        if (parameter.schema.type !== 'array' || values === undefined) continue;
        enumerated.add(parameter.name);
        const name = encodeURIComponent(parameter.name);
        for (const value of values) {
          const { status, details } = await send(route, urlOf(route, label, `${name}=${value}`));
          if (problemOf(details, parameter.name) !== undefined) {
            problems.push({ label, route: route.path, parameter: parameter.name, value, status, details });
          }
        }
        const other = await send(route, urlOf(route, label, `${name}=notAValue`));
        if (other.status !== 400 || problemOf(other.details, parameter.name) === undefined) {
          problems.push({
            label,
            route: route.path,
            parameter: parameter.name,
            value: 'notAValue',
            ...other,
          });
        }
      }
    }
    expect(problems).toEqual([]);
    // The lists of a closed vocabulary (the views' and lists' fields, document types) name it.
    expect([...enumerated].sort()).toEqual(['documentTypes', 'fields']);
  }, 120_000);

  it('when a yes/no parameter is described, then it names every form the route takes (true, false, 1, 0, the name alone), and the route refuses another by name', async () => {
    const problems: unknown[] = [];
    const booleans = new Set<string>();
    for (const { route, label } of mounted()) {
      for (const parameter of parametersOf(label, route).filter((p) => p.in === 'query')) {
        if (parameter.schema.type !== 'boolean') continue;
        booleans.add(parameter.name);
        const name = encodeURIComponent(parameter.name);
        const where = { label, route: route.path, parameter: parameter.name };
        if (
          parameter.allowEmptyValue !== true ||
          !parameter.description?.includes(`${parameter.name} alone`)
        ) {
          problems.push({ ...where, described: parameter });
        }
        for (const query of [`${name}=true`, `${name}=false`, `${name}=1`, `${name}=0`, name]) {
          const { status, details } = await send(route, urlOf(route, label, query));
          if (problemOf(details, parameter.name) !== undefined)
            problems.push({ ...where, query, status, details });
        }
        const other = await send(route, urlOf(route, label, `${name}=yes`));
        if (other.status !== 400 || problemOf(other.details, parameter.name) === undefined) {
          problems.push({ ...where, query: `${name}=yes`, ...other });
        }
      }
    }
    expect(problems).toEqual([]);
    expect([...booleans].sort()).toEqual([
      'homepage',
      'ignoreComponentConditions',
      'inheritMetadata',
      'reverse',
    ]);
  }, 120_000);

  it('when an integer parameter is sent just outside its described bounds, then the route refuses it by name, and takes it at them', async () => {
    const problems: unknown[] = [];
    let checked = 0;
    for (const { route, label } of mounted()) {
      for (const parameter of parametersOf(label, route)) {
        const { type, minimum, maximum } = parameter.schema;
        if (type !== 'integer') continue;
        expect({ name: parameter.name, minimum, maximum }).toEqual({
          name: parameter.name,
          minimum: expect.any(Number),
          maximum: expect.any(Number),
        });
        for (const [value, refused] of [
          [BigInt(minimum!) - 1n, true],
          [BigInt(maximum!) + 1n, true],
          [BigInt(minimum!), false],
          [BigInt(maximum!), false],
        ] as const) {
          const url =
            parameter.in === 'path'
              ? urlOf(route, label, '', { [parameter.name]: String(value) })
              : urlOf(route, label, `${encodeURIComponent(parameter.name)}=${value}`);
          const { status, details } = await send(route, url);
          const named = parameter.name in details;
          if (named !== refused || (refused && status !== 400)) {
            problems.push({
              label,
              route: route.path,
              parameter: parameter.name,
              value: String(value),
              status,
              details,
            });
          }
          checked += 1;
        }
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  }, 180_000);
});
