import { shownPath } from './shown-input';

/**
 * Bounds on parsed JSON, checked by one walk without recursion, so a value nested thousands of levels deep is
 * measured without using the stack that validation, cloning and serialising it would overflow.
 *
 * Besides depth, the walk refuses what Postgres or JavaScript would silently lose or refuse later:
 * - a `__proto__` key: JSON.parse keeps it as an own property, but copying the object (validation does)
 *   assigns it as the prototype instead, so the key vanished without a word;
 * - U+0000 in a string or key: Postgres jsonb cannot store it (SQLSTATE 22P05);
 * - an unpaired UTF-16 surrogate: not Unicode, and jsonb refuses it too (22P02);
 * - a number too large for a double (`1e400`): JSON.parse reads it as Infinity, which JSON.stringify writes
 *   as null, so a value stored "as sent" (a planner element's or publication record's own keys) became null.
 */

/** Where a value sits: object keys and array indices from the root. */
export type JsonPath = (string | number)[];

export interface JsonProblem {
  path: JsonPath;
  /** `depth`: nested too deep; `key`, `string` or `number`: a key or value that cannot be kept as sent. */
  kind: 'depth' | 'key' | 'string' | 'number';
  message: string;
}

/**
 * Request bodies. Real content nests about 10 levels (a component inside a container inside a component adds
 * 3), and the deepest body wraps a document in 3 more (`documents.0.content`, `commands.0.value`): 100 leaves
 * room for every document the document limits below allow, and is far from what overflows the stack.
 */
export const MAX_BODY_DEPTH = 100;

/**
 * A document's metadata and content as stored and indexed. The magazine example's deepest content nests 10
 * levels (two containers deep) and its deepest metadata 6; its largest content serialises to 33 kB and its
 * largest metadata to 3 kB. 64 levels is some 20 nested containers; the sizes leave a factor of 60 and more.
 */
export const DOCUMENT_LIMITS = {
  metadata: { maxDepth: 64, maxBytes: 512 * 1024 },
  content: { maxDepth: 64, maxBytes: 2 * 1024 * 1024 },
} as const;

export type DocumentPart = keyof typeof DOCUMENT_LIMITS;

const RESERVED_KEY = '__proto__';
// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const NON_FINITE_MESSAGE = `must be a number of at most ${Number.MAX_VALUE} in size, the largest JSON number that can be kept`;

function stringProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode: it contains an unpaired surrogate';
  return undefined;
}

function keyProblem(key: string): string | undefined {
  if (key === RESERVED_KEY) return `'${RESERVED_KEY}' is not allowed as a key`;
  const problem = stringProblem(key);
  return problem === undefined ? undefined : `the key ${problem}`;
}

interface Frame {
  container: object;
  /** An object's own keys; undefined for an array. */
  keys: string[] | undefined;
  next: number;
}

/**
 * The first problem of a parsed JSON value in document order, or undefined: nesting deeper than `maxDepth`
 * (the root object or array is level 1, so `[[1]]` nests 2 deep), a `__proto__` key, a string or key
 * with U+0000 or an unpaired surrogate, or a number beyond a double (Infinity). Walks with its own stack:
 * its memory is the depth, never the size.
 * `depthOnly`: for JSON that is never stored (a query parameter's), only the depth is judged.
 * `keysOnly`: for a body whose values are read, never stored (re-enrich's ids), strings and numbers pass; the
 * depth and the keys are judged.
 */
export function findJsonProblem(
  root: unknown,
  maxDepth: number,
  { depthOnly = false, keysOnly = false }: { depthOnly?: boolean; keysOnly?: boolean } = {},
): JsonProblem | undefined {
  const valuesJudged = !depthOnly && !keysOnly;
  const stack: Frame[] = [];
  // Invariant: path holds one segment per open frame except the root's.
  const path: JsonPath = [];

  const enter = (value: unknown): JsonProblem | undefined => {
    if (typeof value === 'string') {
      if (!valuesJudged) return undefined;
      const message = stringProblem(value);
      return message === undefined ? undefined : { path: [...path], kind: 'string', message };
    }
    if (typeof value === 'number') {
      if (!valuesJudged || Number.isFinite(value)) return undefined;
      return { path: [...path], kind: 'number', message: NON_FINITE_MESSAGE };
    }
    if (typeof value !== 'object' || value === null) return undefined;
    if (stack.length >= maxDepth) {
      return {
        path: [...path],
        kind: 'depth',
        message: `is nested more than ${maxDepth} levels deep`,
      };
    }
    if (Array.isArray(value)) {
      stack.push({ container: value, keys: undefined, next: 0 });
      return undefined;
    }
    const keys = Object.keys(value);
    for (const key of depthOnly ? [] : keys) {
      const message = keyProblem(key);
      if (message !== undefined) return { path: [...path, key], kind: 'key', message };
    }
    stack.push({ container: value, keys, next: 0 });
    return undefined;
  };

  let problem = enter(root);
  while (problem === undefined && stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const length = frame.keys?.length ?? (frame.container as unknown[]).length;
    if (frame.next >= length) {
      stack.pop();
      if (stack.length > 0) path.pop();
      continue;
    }
    const segment = frame.keys ? frame.keys[frame.next]! : frame.next;
    frame.next += 1;
    const child = (frame.container as Record<string | number, unknown>)[segment];
    const depthBefore = stack.length;
    path.push(segment);
    problem = enter(child);
    // A container child keeps its segment until its frame is done; anything else gives it back now.
    if (stack.length === depthBefore) path.pop();
  }
  return problem;
}

/**
 * A path as the spec's 400s key it: segments joined by '.', each cut like any input a message repeats
 * (shownPath), under `root` (`body`, `metadata`, ...).
 */
export function formatJsonPath(path: JsonPath, root?: string): string {
  const segments = root === undefined ? path : [root, ...path];
  // A NUL in a key would end up raw in the answer's error key; show it escaped instead.
  return segments.length === 0 ? 'body' : shownPath(segments).replaceAll('\u0000', '\\u0000');
}

/**
 * The problem of a request body, keyed by its path from the body's root (`body` for the root itself).
 * `keysOnly`: the body's strings and numbers are read, never stored (see findJsonProblem).
 */
export function findBodyProblem(
  body: unknown,
  { keysOnly = false }: { keysOnly?: boolean } = {},
): { key: string; message: string } | undefined {
  const problem = findJsonProblem(body, MAX_BODY_DEPTH, { keysOnly });
  if (problem === undefined) return undefined;
  return {
    key: formatJsonPath(problem.path),
    message:
      problem.kind === 'depth'
        ? `${problem.message}; objects and arrays in a request body may nest at most ${MAX_BODY_DEPTH} levels`
        : problem.message,
  };
}

/** What is wrong with one part of a document (metadata or content) as it would be stored. */
export interface DocumentPartProblem {
  part: DocumentPart;
  /** From the document: `metadata.deep.0.0`, `content.2.containers.main`, or just the part for its size. */
  path: JsonPath;
  message: string;
}

const KIB = 1024;
const formatBytes = (bytes: number): string => `${bytes.toLocaleString('en-US')} bytes`;
/** A limit with its round figure: `2,097,152 bytes (2 MiB)`. */
const formatLimit = (bytes: number): string =>
  `${formatBytes(bytes)} (${bytes >= KIB * KIB ? `${bytes / KIB / KIB} MiB` : `${bytes / KIB} KiB`})`;

/**
 * Checks a document's metadata and content against DOCUMENT_LIMITS, at write time: depth and the other
 * problems of findJsonProblem first, then the size of each part serialised as JSON (UTF-8 bytes).
 */
export function findDocumentProblem(
  document: { metadata: unknown; content: unknown },
  parts: readonly DocumentPart[] = ['metadata', 'content'],
): DocumentPartProblem | undefined {
  for (const part of parts) {
    const limits = DOCUMENT_LIMITS[part];
    const value = document[part];
    const problem = findJsonProblem(value, limits.maxDepth);
    if (problem !== undefined) {
      return {
        part,
        path: [part, ...problem.path],
        message:
          problem.kind === 'depth'
            ? `${problem.message}; objects and arrays in a document's ${part} may nest at most ${limits.maxDepth} levels`
            : problem.message,
      };
    }
    const bytes = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
    if (bytes > limits.maxBytes) {
      return {
        part,
        path: [part],
        message: `is ${formatBytes(bytes)} as JSON; a document's ${part} may be at most ${formatLimit(limits.maxBytes)}`,
      };
    }
  }
  return undefined;
}
