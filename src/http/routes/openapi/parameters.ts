import { z } from 'zod';
import { ApiVersion, VERSION_LABELS, type VersionLabel } from '../../../domain/api-versions';
import type { VersionRange } from '../../middleware/api-version';
import { inVersions } from './per-version';

type Schema = Record<string, unknown>;

/** What `parametersOf` made of each schema, as path or query parameters. */
export type Converted = Map<z.ZodType, { path?: Schema[]; query?: Schema[] }>;

/** The zod schema a route parses its query or path parameters with: one for every version, or one per version. */
export type ParamsSchema = z.ZodType | ((version: ApiVersion) => z.ZodType);

/**
 * The OpenAPI parameters of a route, generated from the zod schemas it parses `req.params` and `req.query`
 * with (one parameter per top-level key), so the description says exactly what the route accepts: a key the
 * schema has is described, one it does not is not, and a key a version refuses (`z.never()`, e.g. `after`
 * before 2026-01) is described only in the versions that take it. A parameter that differs by version is
 * described once per variant, each marked with the versions that have it (`inVersions`).
 *
 * `converted` keeps what a schema gave, so that a schema the versions or several routes share (one not built
 * per version, `documentIdParams`) is converted once; pass one Map for a whole description.
 */
export function parametersOf(
  sources: { path?: ParamsSchema; query?: ParamsSchema },
  converted: Converted = new Map(),
): Schema[] {
  const variants = new Map<string, { parameter: Schema; labels: VersionLabel[] }>();
  const describe = (source: ParamsSchema, where: 'path' | 'query', version: ApiVersion) => {
    const schema = resolveSource(source, version);
    const known = converted.get(schema) ?? {};
    const parameters = known[where] ?? parametersFrom(schema, where);
    converted.set(schema, { ...known, [where]: parameters });
    return parameters;
  };
  for (const label of VERSION_LABELS) {
    const version = ApiVersion.parse(label)!;
    const parameters = [
      ...(sources.path ? describe(sources.path, 'path', version) : []),
      ...(sources.query ? describe(sources.query, 'query', version) : []),
    ];
    for (const parameter of parameters) {
      const text = JSON.stringify(parameter);
      const known = variants.get(text);
      if (known) known.labels.push(label);
      else variants.set(text, { parameter, labels: [label] });
    }
  }
  return [...variants.values()].flatMap(({ parameter, labels }) =>
    labels.length === VERSION_LABELS.length
      ? [parameter]
      : rangesOf(labels).map((range) => inVersions(range, parameter)),
  );
}

/** Consecutive runs of versions as ranges: [2025-03, 2025-05, 2025-07] is `{to: '2025-07'}`. */
function rangesOf(labels: readonly VersionLabel[]): VersionRange[] {
  const ranges: VersionRange[] = [];
  let run: VersionLabel[] = [];
  const close = () => {
    if (run.length === 0) return;
    const from = run[0]!;
    const to = run.at(-1)!;
    ranges.push({
      ...(from !== VERSION_LABELS[0] && { from }),
      ...(to !== VERSION_LABELS.at(-1) && { to }),
    });
    run = [];
  };
  for (const label of VERSION_LABELS) {
    if (labels.includes(label)) run.push(label);
    else close();
  }
  close();
  return ranges;
}

const resolveSource = (source: ParamsSchema, version: ApiVersion): z.ZodType =>
  typeof source === 'function' ? source(version) : source;

/**
 * The object under a schema's refinements and transforms (`z.strictObject({...}).transform(...)` is a pipe
 * whose input is the object): the keys a client sends.
 */
export function objectOf(schema: z.ZodType): z.ZodObject {
  let current: z.core.$ZodType = schema;
  while (current._zod.def.type === 'pipe') current = (current as z.ZodPipe).in;
  if (current._zod.def.type !== 'object') {
    throw new Error(`A parameters schema must be a zod object, not ${current._zod.def.type}`);
  }
  return current as z.ZodObject;
}

/** The keys of a query (or path) schema's object a client may send: those it does not refuse whatever is sent. */
function acceptedKeys(object: z.ZodObject): string[] {
  return Object.entries(object.shape)
    .filter(([, schema]) => !refusesEverything(schema as z.ZodType))
    .map(([name]) => name);
}

/** `z.never()`, optional or not: a key kept in the schema only to say which versions take it. */
function refusesEverything(schema: z.ZodType): boolean {
  let current: z.core.$ZodType = schema;
  while (current._zod.def.type === 'optional' || current._zod.def.type === 'default') {
    current = (current as z.ZodOptional).unwrap();
  }
  return current._zod.def.type === 'never';
}

const SCALAR_TYPES = ['integer', 'number', 'boolean', 'string'];
const isScalar = (value: unknown) => ['string', 'number', 'boolean'].includes(typeof value);
const isDefault = (value: unknown) => isScalar(value) || (Array.isArray(value) && value.every(isScalar));

/**
 * What a client sends as a parameter, described. A query value is text, but what it means is what the
 * schema parses it into: `integerParam(0, 100)` reads a string and gives an integer of 0..100, which is what
 * OpenAPI says with `{type: 'integer', minimum: 0, maximum: 100}`. So a parameter is described from the
 * schema's output when that is a plain value (a scalar type or an enum), and from its input otherwise (a
 * list parameter, parsed into a set of fields, is sent as a list of texts); pieces whose output conversion cannot tell (a
 * transform into a number, a date) say it with `.meta()` (src/http/query-params.ts). A default is kept when
 * it is a value (or list of values) a client could send; descriptions (`.describe()`) become the parameter's. A list parameter
 * (`{type: 'array'}`, src/http/query-params.ts queryList) is `style: form, explode: true`, its other forms
 * named in its description.
 */
function parametersFrom(schema: z.ZodType, where: 'path' | 'query'): Schema[] {
  const object = objectOf(schema);
  const input = convert(object, 'input');
  const output = convert(object, 'output');
  const inputProperties = (input.properties ?? {}) as Record<string, Schema>;
  const outputProperties = (output.properties ?? {}) as Record<string, Schema>;
  const required = new Set((input.required ?? []) as string[]);
  return acceptedKeys(object).map((name) => {
    const sent = inputProperties[name] ?? {};
    const parsed = outputProperties[name] ?? {};
    const plain =
      SCALAR_TYPES.includes(parsed.type as string) ||
      (Array.isArray(parsed.enum) && parsed.enum.every(isScalar)) ||
      isScalar(parsed.const);
    // Not plain: the input's schema, with what the output adds about the value (its description, default).
    const chosen = plain
      ? parsed
      : { ...sent, ...('description' in parsed && { description: parsed.description }) };
    const { default: _sentDefault, description, ...schema } = chosen;
    const fallback = parsed.default;
    const list = schema.type === 'array';
    // A yes/no query parameter (queryBoolean) takes more than OpenAPI's true and false: its description says which.
    const yesNo = where === 'query' && schema.type === 'boolean';
    const forms = list ? listForms(name) : yesNo ? booleanForms(name) : undefined;
    const said =
      forms === undefined
        ? description
        : typeof description === 'string'
          ? `${description}; ${forms}`
          : forms;
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(typeof said === 'string' && { description: said }),
      // A list parameter (queryList): each item its own `name=…` is what OpenAPI calls form, exploded.
      ...(list && { style: 'form', explode: true }),
      // `?reverse` alone is true.
      ...(yesNo && { allowEmptyValue: true }),
      schema: { ...schema, ...(isDefault(fallback) && { default: fallback }) },
    };
  });
}

/** The values queryBoolean reads, besides OpenAPI's true and false. */
const booleanForms = (name: string) => `true or false, also 1 or 0, or ${name} alone for true`;

/** The forms of a list parameter that queryListItems reads, the comma list among them. */
const listForms = (name: string) =>
  `sent as ${name}=a,b, ${name}=a&${name}=b, ${name}[]=a&${name}[]=b or ${name}[0]=a&${name}[1]=b`;

function convert(schema: z.ZodType, io: 'input' | 'output'): Schema {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Schema;
  if (json.$defs) throw new Error('A parameter schema may not have shared components (.meta({ id }))');
  return json;
}

/**
 * Refuses a description whose operations' path parameters are not exactly the `{names}` of their paths (a
 * route given another route's params schema), so such a slip fails the description's build (a 500 on
 * openapi.json, which `openapi.test.ts` asks for in every version) instead of misleading a client. A path parameter described once per version (variants marked with their versions) counts once.
 */
export function checkPathParameters<T extends Schema>(document: T): T {
  const paths = document.paths as Record<string, Record<string, { parameters?: Schema[] }>>;
  for (const [path, operations] of Object.entries(paths)) {
    const names = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
    for (const [method, operation] of Object.entries(operations)) {
      const described = [
        ...new Set(
          (operation.parameters ?? [])
            .filter((parameter) => parameter.in === 'path')
            .map((parameter) => String(parameter.name)),
        ),
      ].sort();
      if (JSON.stringify(described) !== JSON.stringify(names)) {
        throw new Error(
          `${method.toUpperCase()} ${path} describes the path parameters ${described.join(', ') || 'none'}`,
        );
      }
    }
  }
  return document;
}
