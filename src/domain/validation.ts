import { z } from 'zod';
import { AppError } from './errors';

/** The key of an issue that concerns the whole input rather than one field of it. */
const ROOT_KEY = 'body';

/**
 * Turns zod issues into the spec's 400 `error_details`: one key per offending path, segments joined by '.'
 * (`commands.0.operation`), the first issue of a path wins. An unknown field gets its own key, so the
 * client sees `commands.0.foo: "is not allowed"` rather than a complaint about the whole command.
 * `prefix` is prepended to every path and names issues at the root (default `body`).
 */
export function zodIssuesToPaths(
  issues: readonly z.core.$ZodIssue[],
  prefix?: string,
): Record<string, string> {
  // A Map, then fromEntries (which defines own properties): a key is the client's, and assigning
  // `byPath['__proto__']` on a plain object would drop the very key the client has to fix.
  const byPath = new Map<string, string>();
  const add = (path: readonly PropertyKey[], message: string) => {
    const segments = [...(prefix === undefined ? [] : [prefix]), ...path.map((segment) => String(segment))];
    const key = segments.length > 0 ? segments.join('.') : ROOT_KEY;
    if (!byPath.has(key)) byPath.set(key, message);
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add([...issue.path, key], 'is not allowed');
    } else {
      add(issue.path, issue.message);
    }
  }
  return Object.fromEntries(byPath);
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
      return issue.format === 'datetime'
        ? 'must be an ISO 8601 date-time with a time zone, e.g. 2025-01-31T12:00:00Z'
        : `must be a valid ${issue.format}`;
    case 'invalid_value':
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

/** Parses `input` or throws the spec's 400 with one key per offending path (see `zodIssuesToPaths`). */
export function parseOrThrow<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  prefix?: string,
): z.output<Schema> {
  const result = schema.safeParse(input, { error: readableIssueMessage });
  if (!result.success) throw AppError.validation(zodIssuesToPaths(result.error.issues, prefix));
  return result.data;
}
