import fc from 'fast-check';
import {
  DOCUMENT_LIMITS,
  MAX_BODY_DEPTH,
  findBodyProblem,
  findDocumentProblem,
  findJsonProblem,
  formatJsonPath,
} from '../../src/domain/json-limits';
import { MAX_SHOWN_CHARACTERS } from '../../src/domain/shown-input';
import { nestedArrays } from '../helpers/json';

/** The obvious recursive measure, to check the walk against on values small enough for the stack. */
function referenceDepth(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Object.values(value);
  return 1 + children.reduce<number>((max, child) => Math.max(max, referenceDepth(child)), 0);
}

describe('findJsonProblem', () => {
  describe('when a value nests at most the limit', () => {
    it.each([
      ['a scalar', 'text', 0],
      ['an empty object', {}, 1],
      ['[[1]]', [[1]], 2],
      ['objects in arrays', { a: [{ b: [] }] }, 4],
    ])('then %s passes a limit equal to its depth', (_label, value, depth) => {
      expect(findJsonProblem(value, Math.max(depth, 1))).toBeUndefined();
    });
  });

  describe('when a value nests one level more than the limit', () => {
    it('then the path names the first container beyond it', () => {
      expect(findJsonProblem({ a: [1, { b: [[]] }] }, 3)).toEqual({
        path: ['a', 1, 'b'],
        kind: 'depth',
        message: 'is nested more than 3 levels deep',
      });
    });

    it('then a sibling container that closed earlier does not leave its segment in the path', () => {
      const value = { first: [[1], { x: [2] }], second: { deep: [[[0]]] } };
      expect(findJsonProblem(value, 4)?.path).toEqual(['second', 'deep', 0, 0]);
    });
  });

  describe('when JSON nests far beyond what recursion survives', () => {
    it('then 200,000 nested arrays are measured without a stack overflow and the path stops at the limit', () => {
      const problem = findJsonProblem(nestedArrays(200_000), MAX_BODY_DEPTH);
      expect(problem?.kind).toBe('depth');
      expect(problem?.path).toEqual(Array(MAX_BODY_DEPTH).fill(0));
    });

    it('then text parsed by JSON.parse nested 5,000 deep is refused too', () => {
      const text = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
      expect(findJsonProblem(JSON.parse(text), 100)?.path).toHaveLength(100);
    });
  });

  describe('when keys or strings cannot be stored as sent', () => {
    it('then a __proto__ key kept as an own property by JSON.parse is named by its path', () => {
      const value: unknown = JSON.parse('{"value":{"ok":1,"list":[{"__proto__":{"x":1}}]}}');
      expect(findJsonProblem(value, 10)).toEqual({
        path: ['value', 'list', 0, '__proto__'],
        kind: 'key',
        message: "'__proto__' is not allowed as a key",
      });
    });

    it('then keys that merely look like prototype names are fine', () => {
      expect(findJsonProblem(JSON.parse('{"constructor":1,"prototype":{"toString":2}}'), 10)).toBeUndefined();
    });

    it.each([
      [
        'a NUL in a string',
        { a: ['x\u0000y'] },
        ['a', 0],
        'string',
        'must not contain the NUL character (U+0000)',
      ],
      [
        'a NUL in a key',
        { 'k\u0000': 1 },
        ['k\u0000'],
        'key',
        'the key must not contain the NUL character (U+0000)',
      ],
      [
        'a lone high surrogate',
        { a: 'x\uD800' },
        ['a'],
        'string',
        'must be valid Unicode: it contains an unpaired surrogate',
      ],
      [
        'a lone low surrogate',
        ['\uDC00x'],
        [0],
        'string',
        'must be valid Unicode: it contains an unpaired surrogate',
      ],
      ['a NUL at the root', '\u0000', [], 'string', 'must not contain the NUL character (U+0000)'],
      [
        'a number beyond a double (1e400 read by JSON.parse)',
        JSON.parse('{"a":[1,-1e400]}') as unknown,
        ['a', 1],
        'number',
        'must be a number of at most 1.7976931348623157e+308 in size, the largest JSON number that can be kept',
      ],
    ])('then %s is a problem at its path', (_label, value, path, kind, message) => {
      expect(findJsonProblem(value, 10)).toEqual({ path, kind, message });
    });

    it('then a surrogate pair (an emoji) is fine', () => {
      expect(findJsonProblem({ 'ü😀': 'text 😀 and ü' }, 10)).toBeUndefined();
    });
  });

  describe('when any JSON value is walked', () => {
    it('then it is refused for its depth exactly when the recursive measure exceeds the limit', () => {
      fc.assert(
        fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 1, max: 9 }), (value, limit) => {
          const tooDeep = referenceDepth(value) > limit;
          const problem = findJsonProblem(value, limit);
          if (problem?.kind === 'depth') expect(tooDeep).toBe(true);
          // Without key or string problems (generated keys include __proto__), depth is the only one left.
          if (findJsonProblem(value, 1000) === undefined) expect(problem !== undefined).toBe(tooDeep);
        }),
        { seed: 8, numRuns: 2000 },
      );
    });
  });
});

describe('formatJsonPath', () => {
  it('when a path is formatted, then segments join with dots under the root, and the root alone is body', () => {
    expect(formatJsonPath(['commands', 0, 'value'])).toBe('commands.0.value');
    expect(formatJsonPath([0], 'documents')).toBe('documents.0');
    expect(formatJsonPath([])).toBe('body');
    expect(formatJsonPath(['a\u0000b'])).toBe('a\\u0000b');
    // A client's key of 10,000 characters is cut like any input a message repeats; the names around it are not.
    const key = `${'k'.repeat(MAX_SHOWN_CHARACTERS)}\u0000${'x'.repeat(9_899)}`;
    expect(formatJsonPath(['metadata', key, 0])).toBe(
      `metadata.${'k'.repeat(MAX_SHOWN_CHARACTERS)}… (10000 characters).0`,
    );
  });
});

describe('findBodyProblem', () => {
  it('when a PATCH commands value nests 5,000 arrays, then the key is the path and the message names the limit', () => {
    const problem = findBodyProblem({
      commands: [{ operation: 'setMetadataProperty', value: nestedArrays(5000) }],
    });
    expect(problem?.key).toBe(
      ['commands', 0, 'value', ...Array<number>(MAX_BODY_DEPTH - 3).fill(0)].join('.'),
    );
    expect(problem?.message).toBe(
      `is nested more than ${MAX_BODY_DEPTH} levels deep; objects and arrays in a request body may nest at most ${MAX_BODY_DEPTH} levels`,
    );
  });

  it('when the body is fine, then there is no problem', () => {
    expect(findBodyProblem({ commands: [{ operation: 'publish' }] })).toBeUndefined();
    expect(findBodyProblem(undefined)).toBeUndefined();
  });

  it('when only keys are judged (a body whose values are never stored), then its strings and numbers pass but keys and depth do not', () => {
    const ids = JSON.parse('{"doc_ids":["\\ud800","1\\u0000",1e400]}') as unknown;
    expect(findBodyProblem(ids)).toEqual({
      key: 'doc_ids.0',
      message: 'must be valid Unicode: it contains an unpaired surrogate',
    });
    expect(findBodyProblem(ids, { keysOnly: true })).toBeUndefined();
    expect(findBodyProblem(JSON.parse('{"\\ud800":1}'), { keysOnly: true })?.message).toMatch(
      /the key must be valid Unicode/,
    );
    expect(findBodyProblem({ doc_ids: nestedArrays(5000) }, { keysOnly: true })?.message).toMatch(
      /nested more than/,
    );
  });
});

describe('findDocumentProblem', () => {
  const limit = DOCUMENT_LIMITS.metadata.maxDepth;

  it('when metadata nests exactly the limit, then it passes; one more level is named with the part', () => {
    expect(findDocumentProblem({ metadata: { deep: nestedArrays(limit - 1) }, content: [] })).toBeUndefined();
    const problem = findDocumentProblem({ metadata: { deep: nestedArrays(limit) }, content: [] });
    expect(problem?.part).toBe('metadata');
    expect(problem?.path).toEqual(['metadata', 'deep', ...Array<number>(limit - 1).fill(0)]);
    expect(problem?.message).toBe(
      `is nested more than ${limit} levels deep; objects and arrays in a document's metadata may nest at most ${limit} levels`,
    );
  });

  it('when content is larger than its limit, then the problem is its size at the path content', () => {
    const text = 'x'.repeat(DOCUMENT_LIMITS.content.maxBytes);
    const problem = findDocumentProblem({ metadata: {}, content: [{ id: 'a', content: { text } }] });
    expect(problem).toEqual({
      part: 'content',
      path: ['content'],
      message: "is 2,097,186 bytes as JSON; a document's content may be at most 2,097,152 bytes (2 MiB)",
    });
  });

  it('when metadata is larger than its limit counted in UTF-8 bytes, then it is refused', () => {
    const text = 'ü'.repeat(DOCUMENT_LIMITS.metadata.maxBytes / 2);
    expect(findDocumentProblem({ metadata: { text }, content: [] })?.message).toBe(
      "is 524,299 bytes as JSON; a document's metadata may be at most 524,288 bytes (512 KiB)",
    );
  });

  it('when the magazine-like content nests containers two deep, then it is far inside the limits', () => {
    const image = { id: 'i', identifier: 'd.image', content: { image: { url: 'u', crop: { x: 1 } } } };
    const gallery = { id: 'g', identifier: 'd.gallery', containers: { items: [image] } };
    const content = [{ id: 'r', identifier: 'd.root', containers: { main: [gallery] } }];
    expect(referenceDepth(content)).toBe(11);
    expect(findDocumentProblem({ metadata: { title: 'T' }, content })).toBeUndefined();
  });
});
