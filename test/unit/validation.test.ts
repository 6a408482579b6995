import { z } from 'zod';
import { AppError } from '../../src/domain/errors';
import { MAX_SHOWN_CHARACTERS } from '../../src/domain/shown-input';
import {
  issuesToPaths,
  parseOrThrow,
  readableIssueMessage,
  zodIssuesToPaths,
} from '../../src/domain/validation';

const issuesOf = (schema: z.ZodType, input: unknown) => {
  const result = schema.safeParse(input, { error: readableIssueMessage });
  if (result.success) throw new Error('expected the input to be invalid');
  return result.error.issues;
};

describe('zodIssuesToPaths', () => {
  it('when issues sit at nested paths, then each gets one key with its segments joined by dots', () => {
    const schema = z.object({ commands: z.array(z.object({ operation: z.string() })) });
    expect(zodIssuesToPaths(issuesOf(schema, { commands: [{ operation: 'x' }, {}] }))).toEqual({
      'commands.1.operation': 'is required',
    });
  });

  it('when the root itself is invalid, then the key is body, or the prefix when one is given', () => {
    const schema = z.object({ a: z.string() });
    expect(zodIssuesToPaths(issuesOf(schema, null))).toEqual({ body: 'must be an object' });
    expect(zodIssuesToPaths(issuesOf(schema, null), 'query')).toEqual({ query: 'must be an object' });
    expect(zodIssuesToPaths(issuesOf(schema, { a: 1 }), 'query')).toEqual({ 'query.a': 'must be a string' });
  });

  it('when an unknown key is named __proto__, then it is reported like any other key', () => {
    const schema = z.strictObject({ a: z.string() });
    const byPath = zodIssuesToPaths(issuesOf(schema, JSON.parse('{"a":"x","__proto__":1}')));
    expect(Object.keys(byPath)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(byPath, '__proto__')?.value).toBe('is not allowed');
    expect(JSON.stringify(AppError.validation(byPath).details)).toBe(
      '{"name":"ValidationError","__proto__":"is not allowed"}',
    );
  });

  it('when an object has unknown keys, then each unknown key gets its own path', () => {
    const schema = z.strictObject({ a: z.string() });
    expect(zodIssuesToPaths(issuesOf(schema, { a: 'x', b: 1, c: 2 }))).toEqual({
      b: 'is not allowed',
      c: 'is not allowed',
    });
  });

  it('when an unknown key is longer than a message shows, then its path shows it cut, as messages cut input', () => {
    // A key of 10,000 characters came back whole as the error key: the 400 was as long as the body sent.
    const schema = z.object({ commands: z.array(z.strictObject({ a: z.string() })) });
    const key = `${'k'.repeat(MAX_SHOWN_CHARACTERS)}${'x'.repeat(9_900)}`;
    const byPath = zodIssuesToPaths(issuesOf(schema, { commands: [{ a: 'x', [key]: 1 }] }));
    expect(byPath).toEqual({
      [`commands.0.${'k'.repeat(MAX_SHOWN_CHARACTERS)}… (10000 characters)`]: 'is not allowed',
    });
    // Short keys, the names a schema has, stay as they are.
    expect(issuesToPaths([{ path: ['a', 0, 'b'], message: 'm' }])).toEqual({ 'a.0.b': 'm' });
  });

  it('when a path has several issues, then the first one wins', () => {
    const schema = z.object({ a: z.string().min(3).regex(/^x/, { message: 'must start with x' }) });
    expect(zodIssuesToPaths(issuesOf(schema, { a: 'y' }))).toEqual({
      a: 'must be at least 3 characters long',
    });
  });
});

describe('readableIssueMessage', () => {
  const messageFor = (schema: z.ZodType, input: unknown) => zodIssuesToPaths(issuesOf(schema, input)).body;

  it.each<[string, z.ZodType, unknown, string]>([
    ['an integer', z.number().int(), 1.5, 'must be an integer'],
    ['a maximum', z.number().max(100), 101, 'must be <= 100'],
    ['an exclusive minimum', z.number().gt(0), 0, 'must be > 0'],
    ['a minimum item count', z.array(z.string()).min(1), [], 'must have at least 1 item'],
    ['a maximum item count', z.array(z.string()).max(2), ['a', 'b', 'c'], 'must have at most 2 items'],
    ['a non-empty string', z.string().min(1), '', 'must not be empty'],
    ['an enum', z.enum(['a', 'b']), 'c', "must be one of 'a', 'b'"],
    ['a literal', z.literal('a'), 'c', "must be 'a'"],

    [
      'a date-time',
      z.iso.datetime({ offset: true }),
      '2025-01-01',
      'must be an ISO 8601 date-time with a time zone, e.g. 2025-01-31T12:00:00Z',
    ],
    [
      'a date-time at hour 24',
      z.iso.datetime({ offset: true }),
      '2018-03-07T24:00:00.000Z',
      'must be an ISO 8601 date-time with a time zone and an hour from 00 to 23: write the end of a day as 00:00 of the next day, e.g. 2018-03-08T00:00:00Z for 2018-03-07T24:00:00Z',
    ],
    ['a union', z.union([z.string(), z.number()]), true, 'has an invalid value'],
    ['a refinement', z.string().refine((s) => s === 'x', { message: 'must be x' }), 'y', 'must be x'],
  ])('when %s fails, then the message reads like the spec', (_label, schema, input, message) => {
    expect(messageFor(schema, input)).toBe(message);
  });

  it('when an enum or a literal is missing, then it is required, with what it takes', () => {
    const schema = z.object({ status: z.enum(['a', 'b']), kind: z.literal('x'), text: z.string() });
    expect(zodIssuesToPaths(issuesOf(schema, {}))).toEqual({
      status: "is required: one of 'a', 'b'",
      kind: "is required: 'x'",
      text: 'is required',
    });
  });

  it('when a schema sets its own message, then that message is kept', () => {
    expect(messageFor(z.string({ error: 'custom words' }), 1)).toBe('custom words');
  });

  it('when a string limit meets emoji, then it counts characters (code points), as its message says', () => {
    // The request schemas' .min()/.max()/.length() rely on zod counting code points (zod#6441, in 4.6.7): a
    // zod that counted UTF-16 code units refused 101 emoji under a limit of 200 characters.
    const emoji = '\u{1F4F0}';
    expect(z.string().max(200).safeParse(emoji.repeat(200)).success).toBe(true);
    expect(messageFor(z.string().max(200), emoji.repeat(201))).toBe('must be at most 200 characters long');
    expect(messageFor(z.string().min(3), emoji.repeat(2))).toBe('must be at least 3 characters long');
    expect(z.string().trim().min(1).max(2).safeParse(` ${emoji}${emoji} `).success).toBe(true);
    expect(z.string().length(2).safeParse(`${emoji}${emoji}`).success).toBe(true);
  });
});

describe('parseOrThrow', () => {
  it('when the input is valid, then it returns the parsed output', () => {
    expect(parseOrThrow(z.object({ n: z.coerce.number() }), { n: '3' })).toEqual({ n: 3 });
  });

  it('when the input is invalid, then it throws a 400 ValidationError keyed by path', () => {
    let thrown: unknown;
    try {
      parseOrThrow(z.object({ limit: z.number().max(100) }), { limit: 101 });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({
      status: 400,
      details: { name: 'ValidationError', limit: 'must be <= 100' },
    });
  });
});

describe('AppError.validation', () => {
  it('when an offending path is named name or message, then name stays ValidationError and message names the path', () => {
    const schema = z.strictObject({ name: z.string().min(1), limit: z.number().max(100) });
    const details = AppError.validation(zodIssuesToPaths(issuesOf(schema, { name: '', limit: 101 }))).details;
    expect(details).toEqual({
      name: 'ValidationError',
      message: 'name: must not be empty',
      limit: 'must be <= 100',
    });
    expect(AppError.validation({ message: 'must be a string', name: 'is not allowed' }).details).toEqual({
      name: 'ValidationError',
      message: 'message: must be a string; name: is not allowed',
    });
  });

  it('when a body has hundreds of thousands of unknown keys, then each is named in the 400, not a 500', () => {
    // The paths were spread as the arguments of one push(): past some 130,000 that threw a RangeError.
    const byPath = Object.fromEntries(
      Array.from({ length: 150_000 }, (_, index) => [`k${index}`, 'is not allowed']),
    );
    const details = AppError.validation(byPath).details;
    expect(Object.keys(details).length).toBe(150_001);
    expect([details.name, details.k0, details.k149999]).toEqual([
      'ValidationError',
      'is not allowed',
      'is not allowed',
    ]);
  });
});
