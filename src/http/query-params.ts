import { parse as parseQs } from 'qs';
import { z } from 'zod';
import {
  conditionRequestOf,
  parseIsoDateTime,
  type ConditionQuery,
  type ConditionRequest,
} from '../domain/component-conditions';
import { isRecord } from '../domain/content';
import type { ViewField } from '../domain/document-view';
import { AppError } from '../domain/errors';
import { plusLostHint } from '../domain/plus-as-space';
import { quoted } from '../domain/shown-input';
import {
  fromCheck,
  invalid,
  readableIssueMessage,
  under,
  valid,
  zodIssuesToPaths,
  type Checked,
} from '../domain/validation';

/**
 * zod pieces for query strings and path parameters, shared by every route schema so that the same parameter
 * is parsed, and its 400 worded, the same way everywhere. The OpenAPI description of a route's parameters is
 * generated from these (src/http/routes/openapi/parameters.ts): a piece that parses text into another type
 * says with `.meta()` what a client sends, where zod's conversion cannot tell (a transform into a number).
 */
export const VIEW_FIELDS = ['systemdata', 'metadata', 'content', 'references'] as const;
export const DOCUMENT_TYPES = ['article', 'page', 'data-record'] as const;

/** The query of a route that takes no parameters: any parameter sent is a 400 naming it. */
export const noQueryParams = z.strictObject({});

/**
 * A yes/no query parameter: `true` or `false`, `1` or `0`, or the name alone (`?reverse&limit=2`, read as ''),
 * which is how the vendor's reference writes its examples and what existing sync tools and exporters send.
 */
export const queryBoolean = z
  .enum(['true', 'false', '1', '0', ''], {
    message: "must be 'true' or 'false' ('1' or '0'; the name alone means true)",
  })
  .transform((v) => v !== 'false' && v !== '0')
  .meta({ type: 'boolean' });

/**
 * The items of a list parameter, in each form clients send one: a comma list (`x=a,b`), repeated (`x=a&x=b`:
 * URLSearchParams.append, Python requests), with empty brackets (`x[]=a&x[]=b`: axios) or indexed
 * (`x[0]=a&x[1]=b`: qs with indices, the vendor's node SDK). The query parser reads the last three as an
 * array, or, past 20 items, as an object keyed by index, and merges a mix of forms into one: every value is
 * still split at its commas and trimmed, so `x=a,b&x[]=c` is a, b, c. An empty item is refused in every form,
 * duplicates are kept (as in the comma form), and so is the order: by index where indices were given. What is
 * not a list of texts (`x[a]=1`, `x[0][a]=1`, an index sent twice) is refused. `of` names the items.
 */
export function queryListItems(value: unknown, of?: string): Checked<string[]> {
  const list = `a comma separated list${of === undefined ? '' : ` of ${of}`}`;
  let parts: unknown[] | undefined;
  if (typeof value === 'string') parts = [value];
  else if (Array.isArray(value)) parts = value;
  else if (
    typeof value === 'object' &&
    value !== null &&
    Object.keys(value).every((key) => /^\d+$/.test(key))
  ) {
    parts = Object.entries(value)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([, item]) => item as unknown);
  }
  if (parts === undefined || !parts.every((part): part is string => typeof part === 'string')) {
    return invalid([
      { path: [], message: `must be ${list}, or one item per repeat: x=a&x=b, x[]=a&x[]=b or x[0]=a&x[1]=b` },
    ]);
  }
  const items = parts.flatMap((part) => part.split(',')).map((item) => item.trim());
  if (items.length === 0 || items.includes('')) {
    return invalid([{ path: [], message: `must be ${list} without empty items` }]);
  }
  return valid(items);
}

/**
 * A list parameter in any of its forms (queryListItems) as its items. The description declares it an array
 * of `style: form, explode: true` (src/http/routes/openapi/parameters.ts), which names the repeated form.
 */
export const queryList = (of?: string) =>
  z
    .unknown()
    .transform(fromCheck((value: unknown) => queryListItems(value, of)))
    .meta({ type: 'array', items: { type: 'string' } });

export const commaList = queryList();

/**
 * A parameter whose contract names a default (`fields`, `limit`, `offset`): sent empty (`fields=`), it means
 * that default, as a blank `sort=` and `componentConditions=` do. A filter has no default to fall back to, so an empty one
 * (`contentTypes=`) stays a 400 (queryListItems), as does an empty item (`fields=,`, `fields[]=`).
 */
export const emptyMeansDefault = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema);

/**
 * The bounds are checked first, on a value held within the doubles: the bound is what a client sent too many
 * digits needs to hear, not that 1e19 is past 2^53 or that 1e400 (Infinity) is no number.
 */
export const integerParam = (min: number, max: number) =>
  z
    .string()
    .regex(/^-?\d+$/, { message: 'must be an integer' })
    .transform((digits) => Math.min(Math.max(Number(digits), -Number.MAX_VALUE), Number.MAX_VALUE))
    .pipe(z.number().min(min).max(max).int());

/**
 * Ids are bigint in Postgres and numbers here: beyond Number.MAX_SAFE_INTEGER a number is only the nearest
 * double (9999999999999999 reads as 10000000000000000), so such an id would name another document.
 */
const EXACT_ID_MESSAGE = `must be at most ${Number.MAX_SAFE_INTEGER}, the largest id this API can read exactly`;
const isExactId = (digits: string): boolean => Number.isSafeInteger(Number(digits));

const idNumber = (pattern: RegExp, message: string) =>
  z.string().regex(pattern, { message }).refine(isExactId, { message: EXACT_ID_MESSAGE }).transform(Number);

/** A non-negative id (documents, events) as a number: the bounds of id ranges. */
export const idParam = idNumber(/^\d+$/, 'must be a non-negative integer id').meta({
  type: 'integer',
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
});

/** A positive document id sent as text: in a path, or as the string form of an id in a body. */
const documentIdDigits = idNumber(/^[1-9]\d*$/, 'must be a positive integer');

/** `{documentId}` of every documents/{documentId}/... route. */
export const documentIdParam = documentIdDigits.meta({
  type: 'integer',
  minimum: 1,
  maximum: Number.MAX_SAFE_INTEGER,
});

/**
 * A document id in a JSON body: a number or a string of digits (clients send both), refused beyond
 * Number.MAX_SAFE_INTEGER in either form, where a number would name another row.
 */
export const documentIdValue = z.union(
  [z.number().int().positive().max(Number.MAX_SAFE_INTEGER), documentIdDigits],
  {
    error: (issue) =>
      issue.code === 'invalid_union' && issue.input !== undefined
        ? `must be a positive integer document id (a number or a string of digits) up to ${Number.MAX_SAFE_INTEGER}`
        : undefined,
  },
);

/** A comma separated list of at most `maxItems` non-negative ids. */
export const idListParam = (maxItems: number) =>
  commaList
    .refine((items) => items.every((item) => /^\d+$/.test(item)), {
      message: 'must be a document id or a comma separated list of document ids',
    })
    .refine((items) => items.every(isExactId), { message: `each id ${EXACT_ID_MESSAGE}` })
    .refine((items) => items.length <= maxItems, { message: `must list at most ${maxItems} ids` })
    .transform((items) => items.map(Number))
    .meta({ type: 'array', items: { type: 'string', pattern: '^\\d+$' }, maxItems });

const DATE_TIME_MESSAGE = 'must be an ISO 8601 date-time, e.g. 2025-01-31T12:00:00Z';

/**
 * A query string reads `+` as a space, so `…T10:00:00+01:00` sent unencoded arrives as `…T10:00:00 01:00`:
 * the 400 says so, or a client looking at the date-time it sent sees nothing wrong with it.
 */
function dateTimeProblem(value: string): string {
  const lost = dateTimePlusHint(value);
  return lost === undefined ? DATE_TIME_MESSAGE : `${DATE_TIME_MESSAGE}; ${lost}`;
}

/** plusLostHint of a date-time as the date-time parameters and componentConditions read one. */
const dateTimePlusHint = (value: string): string | undefined =>
  plusLostHint(value, (withPlus) => parseIsoDateTime(withPlus) !== undefined);

const dateTime = (options: { roundUp: boolean }) =>
  z
    .string()
    .transform((value, ctx) => {
      const parsed = parseIsoDateTime(value, options);
      if (parsed === undefined) {
        ctx.addIssue({ code: 'custom', message: dateTimeProblem(value) });
        return z.NEVER;
      }
      return parsed;
    })
    .meta({ type: 'string', format: 'date-time' });

/** A date-time without an offset is read as UTC, so answers never depend on the server's zone. */
export const dateTimeParam = dateTime({ roundUp: false });

/**
 * The `gte` and `lt` bounds of a range over instants stored at millisecond precision (an event's createdAt,
 * lastPublicationDate): digits past the millisecond round up, since `createdAt.gte=…00.3641Z` must leave out
 * what was stored at …00.364Z, and `createdAt.lt=…00.3641Z` keep it. (`gt` and `lte` truncate: dateTimeParam.)
 */
export const dateTimeRoundingUpParam = dateTime({ roundUp: true });

const isViewField = (item: string): item is ViewField => (VIEW_FIELDS as readonly string[]).includes(item);

/** View fields as a set, or undefined when an item is none: `fields` here, and next to `id` in search's. */
export const viewFieldsOf = (items: readonly string[]): ViewField[] | undefined =>
  items.every(isViewField) ? [...new Set(items)] : undefined;

/** How a list parameter whose items are each one of `values` is described (parametersOf). */
export const listOfValues = (values: readonly string[]) => ({
  type: 'array',
  items: { type: 'string', enum: [...values] },
});

export const viewFields = commaList
  .refine((items) => viewFieldsOf(items) !== undefined, {
    message: `must be a comma separated list of ${VIEW_FIELDS.join(', ')}`,
  })
  .transform((items) => viewFieldsOf(items)!)
  .meta({ ...listOfValues(VIEW_FIELDS), description: `comma separated: ${VIEW_FIELDS.join(', ')}` });

export const documentTypesList = commaList
  .refine((items) => items.every((item) => (DOCUMENT_TYPES as readonly string[]).includes(item)), {
    message: `must be a comma separated list of ${DOCUMENT_TYPES.join(', ')}`,
  })
  .meta({ ...listOfValues(DOCUMENT_TYPES), description: `comma separated: ${DOCUMENT_TYPES.join(', ')}` });

/** Issues of a value of the wrong kind: what a parameter sent twice, or in brackets, gets from its schema. */
const WRONG_KIND = new Set(['invalid_type', 'invalid_value', 'invalid_union']);

/**
 * parseOrThrow for `req.query`. The query parser reads a parameter sent twice (`limit=1&limit=2`) as an array
 * and one in brackets (`limit[a]=1`) as an object (`limit[]=1`: an array of one, sent once); where the schema
 * wants one value, the 400 says which of the two it was rather
 * than `must be a string` (or the parameter's own wording of a bad value). A list parameter (queryList), which
 * takes those forms, words its own problems with custom issues, which are left alone.
 */
export function parseQueryOrThrow<Schema extends z.ZodType>(
  schema: Schema,
  query: unknown,
): z.output<Schema> {
  const result = schema.safeParse(query, { error: readableIssueMessage });
  if (result.success) return result.data;
  const sent = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const issues = result.error.issues.map((issue) => {
    const name = issue.path.length === 1 ? issue.path[0] : undefined;
    if (typeof name !== 'string' || !WRONG_KIND.has(issue.code) || !Object.hasOwn(sent, name)) return issue;
    const value = sent[name];
    // One item: sent once, in the brackets of a list (`limit[]=1`, `limit[0]=1`), not twice.
    if (Array.isArray(value) && value.length !== 1) return { ...issue, message: 'must be given once' };
    if (typeof value === 'object' && value !== null) {
      return { ...issue, message: `must be a single value (${name}=…), not ${name}[…]` };
    }
    return issue;
  });
  throw AppError.validation(zodIssuesToPaths(issues));
}

/**
 * The app's query parser: Express's `extended` one (qs, prototype keys allowed as Express has them), without
 * qs' limit of 1,000 parameters, past which it drops the rest unsaid: `id=1&…&id=1001` would have been read as
 * 1,000 ids instead of refused as one too many (queryListItems), and a parameter past the 1,000th ignored.
 * The request line is bounded by the server's header limit (16 KB), which bounds the parameters.
 *
 * A name or value that does not percent-decode (bytes that are not UTF-8, such as a Latin-1 `%E9`; a `%` without
 * two hex digits after it) is a 400 naming the parameter, as such a path segment is. qs kept the whole text
 * undecoded instead, its good escapes too (`caf%C3%A9%E9` searched for those 12 characters), and the answer
 * looked like one for what the client sent. Thrown from here, where req.query is first read: a route that reads
 * no query (health, openapi.json) never sees it, the cached hot reads only on a cache miss.
 */
export const parseQueryString = (text: string): Record<string, unknown> => {
  // qs decodes each parameter's name, then its values: the name a value belongs to.
  let name = '';
  return parseQs(text, {
    allowPrototypes: true,
    parameterLimit: Infinity,
    decoder(encoded: string, _decoder, _charset, type: 'key' | 'value') {
      const spaced = encoded.includes('+') ? encoded.replaceAll('+', ' ') : encoded;
      if (!spaced.includes('%')) {
        if (type === 'key') name = topLevelName(spaced);
        return spaced;
      }
      let decoded: string;
      try {
        decoded = decodeURIComponent(spaced);
      } catch {
        throw AppError.validation({
          [type === 'key' ? topLevelName(encoded) : name]:
            `must be percent-encoded UTF-8: ${quoted(encoded)} does not decode (send a % itself as %25)`,
        });
      }
      if (type === 'key') name = topLevelName(decoded);
      return decoded;
    },
  });
};

/** The parameter a query key belongs to: `filters` of `filters[0][key]`. */
const topLevelName = (key: string): string => {
  const bracket = key.indexOf('[');
  return bracket > 0 ? key.slice(0, bracket) : key;
};

/** The query string of a request URL as sent (without the `?`), e.g. to key a cache of parsed queries. */
export function rawQueryString(url: string): string {
  const at = url.indexOf('?');
  return at < 0 ? '' : url.slice(at + 1);
}

/**
 * ignoreComponentConditions and componentConditions (supplement §6), which every read that applies component
 * conditions accepts; a schema with them ends in `.transform(fromCheck(withConditions))`.
 */
export const conditionParams = {
  ignoreComponentConditions: queryBoolean
    .default(false)
    .describe('keep every component regardless of its conditions'),
  componentConditions: z
    .string()
    .optional()
    .describe('JSON object {dateTime?: ISO date-time, brand?: string}; default now and the default brand'),
};

export type WithConditions<Q> = Omit<Q, keyof ConditionQuery> & { conditions: ConditionRequest | null };

/** The pair read into `conditions` (null: ignore them), a problem keyed componentConditions. */
export function withConditions<Q extends ConditionQuery>(query: Q): Checked<WithConditions<Q>> {
  const { ignoreComponentConditions, componentConditions, ...rest } = query;
  const conditions = conditionRequestOf({ ignoreComponentConditions, componentConditions });
  if (conditions.ok) return valid({ ...rest, conditions: conditions.value });
  const lost = componentConditions === undefined ? undefined : dateTimePlusLost(componentConditions);
  return under(
    'componentConditions',
    lost === undefined
      ? conditions
      : invalid(
          conditions.issues.map((issue) =>
            issue.message.startsWith('dateTime ')
              ? { ...issue, message: `${issue.message}; ${lost}` }
              : issue,
          ),
        ),
  );
}

/**
 * plusLostHint of the dateTime of a componentConditions, undefined when it has none to give: the JSON is sent
 * in the query string too, where `{"dateTime":"…T10:00:00+01:00"}` written unencoded arrives as
 * `…T10:00:00 01:00`, and the 400 called it no ISO 8601 date-time though the client sees one in what it sent.
 */
function dateTimePlusLost(raw: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const dateTime = isRecord(parsed) ? parsed.dateTime : undefined;
  return typeof dateTime === 'string' ? dateTimePlusHint(dateTime) : undefined;
}
