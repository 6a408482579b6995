import Ajv2020 from 'ajv/dist/2020';
import { ALL_VERSION_LABELS, ApiVersion } from '../../src/domain/api-versions';
import { listRoutes, routeExistsIn, type RouteEntry } from '../../src/http/route-table';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * The OpenAPI description of each API version: exactly the routes that version has mounted, every example in
 * it valid against the schema next to it, and the version differences (list shapes, version-only parameters).
 */
type Schema = Record<string, unknown>;
interface OpenApi {
  openapi: string;
  info: { version: string; description: string };
  servers: { url: string }[];
  components: { schemas: Record<string, Schema> };
  paths: Record<string, Record<string, Schema>>;
}

let app: TestApp;
let routes: RouteEntry[];
const documents = new Map<string, OpenApi>();

beforeAll(async () => {
  app = await startTestApp();
  routes = listRoutes(app.app.router);
  for (const label of ALL_VERSION_LABELS) {
    const response = await fetch(`${app.url}/api/${label}/openapi.json`);
    expect(response.status).toBe(200);
    documents.set(label, (await response.json()) as OpenApi);
  }
});
afterAll(async () => {
  await app.close();
});

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

describe('the OpenAPI description of each API version', () => {
  it.each(ALL_VERSION_LABELS)(
    'when %s is asked for, then it describes exactly the routes that version has, each with its method',
    (label) => {
      const document = documents.get(label)!;
      expect(document.openapi).toBe('3.1.0');
      expect(document.info.version).toBe(label);
      expect(document.servers).toEqual([{ url: `/api/${label}` }]);
      expect(operationsOf(document)).toEqual(mountedIn(label));
    },
  );

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
    expect(documents.get('2026-03')!.info.description).toContain('Not in this version');
    expect(JSON.stringify(documents.get('2026-03'))).not.toContain('x-broadsheet-versions": {');
  });

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

  it.each(ALL_VERSION_LABELS)(
    'when %s has examples, then every one validates against its schema',
    (label) => {
      const document = documents.get(label)!;
      const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
      const examples = examplesOf(document);
      expect(examples.length).toBeGreaterThan(20);
      const invalid = examples.flatMap(({ where, schema, example }) => {
        const validate = ajv.compile({ ...schema, components: document.components });
        return validate(example) ? [] : [{ where, errors: validate.errors }];
      });
      expect(invalid).toEqual([]);
    },
  );

  it('when health answers, then the answers validate against the response schemas each version describes', async () => {
    for (const label of ['v1', '2026-03']) {
      const document = documents.get(label)!;
      const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
      for (const path of ['/health', '/health/ready']) {
        const response = await fetch(`${app.url}/api/${label}${path}`);
        expect(response.status).toBe(200);
        const described = document.paths[path]!.get as {
          responses: { 200: { content: { 'application/json': { schema: Schema } } } };
        };
        const validate = ajv.compile({
          ...described.responses[200].content['application/json'].schema,
          components: document.components,
        });
        expect(validate(await response.json())).toBe(true);
        expect(validate({ status: 'ok', extra: true })).toBe(false);
      }
    }
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
