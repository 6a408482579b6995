import { z } from 'zod';
import { AppError } from './errors';
import { shownPath } from './shown-input';

/** The key of an issue that concerns the whole input rather than one field of it. */
const ROOT_KEY = 'body';

/** One problem with an input: where it is (path segments inside the value checked) and what is wrong. */
export interface Issue {
  path: readonly PropertyKey[];
  message: string;
}

/**
 * What a domain check of an input gives back: the typed value, or every problem it found. Checks report; they
 * do not throw the 400 themselves. At the edge a zod transform turns the issues into zod issues
 * (`fromCheck`), elsewhere `valueOrThrow` turns them into the spec's 400: the same keys and wording either way.
 */
export type Checked<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

export const valid = <T>(value: T): Checked<T> => ({ ok: true, value });
export const invalid = (issues: Issue[]): { ok: false; issues: Issue[] } => ({ ok: false, issues });

/** The same outcome with its issues moved under `key`: for a check of one field run on the whole input. */
export function under<T>(key: PropertyKey, checked: Checked<T>): Checked<T> {
  if (checked.ok) return checked;
  return invalid(checked.issues.map((issue) => ({ path: [key, ...issue.path], message: issue.message })));
}

/** Several checks at once: every value, or the issues of all that failed. */
export function checkAll<T extends Record<string, unknown>>(checks: {
  [K in keyof T]: Checked<T[K]>;
}): Checked<T> {
  const issues: Issue[] = [];
  const values: Partial<T> = {};
  for (const key of Object.keys(checks) as (keyof T)[]) {
    const checked = checks[key];
    if (checked.ok) values[key] = checked.value;
    else issues.push(...checked.issues);
  }
  return issues.length > 0 ? invalid(issues) : valid(values as T);
}

/**
 * Turns issues into the spec's 400 `error_details`: one key per offending path, segments joined by '.'
 * (`commands.0.operation`) and each cut like any input a message repeats (shownPath: a client's key may be a
 * megabyte long), the first issue of a path wins. `prefix` is prepended to every path and names
 * issues at the root (default `body`).
 */
export function issuesToPaths(issues: readonly Issue[], prefix?: string): Record<string, string> {
  // A Map, then fromEntries (which defines own properties): a key is the client's, and assigning
  // `byPath['__proto__']` on a plain object would drop the very key the client has to fix.
  const byPath = new Map<string, string>();
  for (const issue of issues) {
    const segments = prefix === undefined ? issue.path : [prefix, ...issue.path];
    const key = segments.length > 0 ? shownPath(segments) : ROOT_KEY;
    if (!byPath.has(key)) byPath.set(key, issue.message);
  }
  return Object.fromEntries(byPath);
}

/**
 * Zod's issues as ours. An unknown field gets its own path, so the client sees `commands.0.foo: "is not allowed"`;
 * `unknownField` may word it otherwise (a field GET answers but a write does not take: read-only).
 */
export function fromZodIssues(
  issues: readonly z.core.$ZodIssue[],
  unknownField?: (path: readonly PropertyKey[], key: string) => string | undefined,
): Issue[] {
  return issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({
          path: [...issue.path, key],
          message: unknownField?.(issue.path, key) ?? 'is not allowed',
        }))
      : [{ path: issue.path, message: issue.message }],
  );
}

/** `issuesToPaths` for zod issues (see fromZodIssues). */
export function zodIssuesToPaths(
  issues: readonly z.core.$ZodIssue[],
  prefix?: string,
): Record<string, string> {
  return issuesToPaths(fromZodIssues(issues), prefix);
}

/** The checked value, or the spec's 400 with one key per issue (see `issuesToPaths`). */
export function valueOrThrow<T>(checked: Checked<T>, prefix?: string): T {
  if (!checked.ok) throw AppError.validation(issuesToPaths(checked.issues, prefix));
  return checked.value;
}

/**
 * A zod transform that runs a domain check: its issues become zod issues at their paths below the value, so a
 * route schema reports them like any other parameter problem.
 */
export function fromCheck<I, O>(check: (input: I) => Checked<O>) {
  return (input: I, ctx: z.RefinementCtx<I>): O => {
    const checked = check(input);
    if (checked.ok) return checked.value;
    for (const issue of checked.issues) {
      ctx.addIssue({ code: 'custom', message: issue.message, path: [...issue.path], input });
    }
    return z.NEVER;
  };
}

const quote = (value: unknown): string => (typeof value === 'string' ? `'${value}'` : String(value));
const oneOf = (values: readonly unknown[]): string =>
  values.length === 1 ? `must be ${quote(values[0])}` : `must be one of ${values.map(quote).join(', ')}`;
const withArticle = (noun: string): string => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

const TYPE_NAMES: Record<string, string> = { int: 'integer', record: 'object', never: '' };

/**
 * A zod error map that words messages the way the spec's examples do (`must be <= 100`, `must be one of ...`).
 * Messages a schema sets itself take precedence over it; anything it does not know falls back to zod's wording.
 */
export const readableIssueMessage: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return 'is required';
      const expected = TYPE_NAMES[issue.expected] ?? issue.expected;
      return expected === '' ? 'is not allowed' : `must be ${withArticle(expected)}`;
    }
    case 'too_small':
    case 'too_big': {
      const limit = Number(issue.code === 'too_small' ? issue.minimum : issue.maximum);
      const atLeast = issue.code === 'too_small';
      if (issue.origin === 'array' || issue.origin === 'set') {
        return `must have ${atLeast ? 'at least' : 'at most'} ${limit} item${limit === 1 ? '' : 's'}`;
      }
      if (issue.origin === 'string') {
        if (atLeast && limit === 1) return 'must not be empty';
        return `must be ${atLeast ? 'at least' : 'at most'} ${limit} characters long`;
      }
      const inclusive = issue.inclusive !== false;
      return `must be ${atLeast ? '>' : '<'}${inclusive ? '=' : ''} ${limit}`;
    }
    case 'invalid_format':
      if (issue.format !== 'datetime') return `must be a valid ${issue.format}`;
      // ISO 8601's end of the day, which archives hold (2018-03-07T24:00:00.000Z): it is ISO 8601, so the
      // plain message read as if the value were fine.
      if (typeof issue.input === 'string' && /T24:/.test(issue.input))
        return 'must be an ISO 8601 date-time with a time zone and an hour from 00 to 23: write the end of a day as 00:00 of the next day, e.g. 2018-03-08T00:00:00Z for 2018-03-07T24:00:00Z';
      return 'must be an ISO 8601 date-time with a time zone, e.g. 2025-01-31T12:00:00Z';
    case 'invalid_value':
      // A missing field is told as missing, as every other kind's is, and with what it takes.
      if (issue.input === undefined) {
        return `is required: ${issue.values.length === 1 ? quote(issue.values[0]) : `one of ${issue.values.map(quote).join(', ')}`}`;
      }
      return oneOf(issue.values);
    case 'invalid_union':
      if (issue.input === undefined) return 'is required';
      if (issue.note === 'No matching discriminator' && Array.isArray(issue.options))
        return oneOf(issue.options);
      return 'has an invalid value';
    case 'unrecognized_keys':
      return 'is not allowed';
    default:
      return undefined;
  }
};

/** Parses `input` or throws the spec's 400 with one key per offending path (see `issuesToPaths`). */
export function parseOrThrow<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  prefix?: string,
): z.output<Schema> {
  const result = schema.safeParse(input, { error: readableIssueMessage });
  if (!result.success) throw AppError.validation(zodIssuesToPaths(result.error.issues, prefix));
  return result.data;
}
