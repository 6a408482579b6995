import { constants, isUtf8 } from 'node:buffer';
import { readFile } from 'node:fs/promises';

const { MAX_STRING_LENGTH } = constants;

/** What went wrong opening or reading a file, said plainly (fs's `EISDIR: illegal operation ...` named no file). */
function readProblem(error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    case 'ERR_STRING_TOO_LONG':
      return `it is too large: more than ${MAX_STRING_LENGTH} characters of text`;
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

/** The line (1-based) of the first byte sequence that is not UTF-8: a newline byte is never inside a character. */
function firstLineNotUtf8(bytes: Buffer): number {
  let line = 1;
  let start = 0;
  for (;;) {
    const end = bytes.indexOf(0x0a, start);
    if (!isUtf8(bytes.subarray(start, end === -1 ? bytes.length : end))) return line;
    if (end === -1) return line;
    start = end + 1;
    line += 1;
  }
}

/**
 * A file's bytes as text, or an error naming the file when they are not UTF-8: decoding them as it did replaced
 * every byte that is not (a Latin-1 'é') with U+FFFD, and the import stored 'Caf\uFFFD' for good. A UTF-8 byte
 * order mark is dropped (JSON.parse refused it).
 */
export function decodeUtf8Text(file: string, bytes: Buffer): string {
  if (
    bytes.length >= 2 &&
    ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
  ) {
    throw new Error(`${file} is UTF-16 text: save it as UTF-8`);
  }
  if (!isUtf8(bytes)) {
    throw new Error(`${file} is not UTF-8 text (line ${firstLineNotUtf8(bytes)}): save it as UTF-8`);
  }
  let text: string;
  try {
    text = bytes.toString('utf8');
  } catch (error) {
    throw new Error(`cannot read ${file}: ${readProblem(error)}`);
  }
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

/** A text file's content (UTF-8), or an error naming the file: missing, unreadable, a directory, not UTF-8. */
export async function readTextFile(file: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new Error(`cannot read ${file}: ${readProblem(error)}`);
  }
  return decodeUtf8Text(file, bytes);
}

/**
 * A JSON.parse error's message on one line: V8 quotes the text around the error, newlines and all. Given the
 * text parsed, a message that says nowhere where (V8's 'Unexpected token ...') gets `(line L column C)`.
 */
export function jsonErrorMessage(error: unknown, text?: string): string {
  let message = error instanceof Error ? error.message : String(error);
  // V8 says where for some problems only ('Unexpected token ...' names none): then it is found here.
  if (text !== undefined && !/ at position \d+/.test(message)) {
    const offset = jsonErrorOffset(text);
    const before = text.slice(0, offset);
    const line = before.split('\n').length;
    message += ` (line ${line} column ${offset - before.lastIndexOf('\n')})`;
  }
  return message.replace(/\r/g, '\\r').replace(/\n/g, '\\n');
}

const JSON_WHITESPACE = /[ \t\n\r]*/y;
/** The longest run of valid string characters after an opening quote; what follows must be the closing one. */
// eslint-disable-next-line no-control-regex -- JSON forbids control characters in strings: they end the run
const JSON_STRING_BODY = /(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*/y;
const JSON_NUMBER_OR_WORD = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true\b|false\b|null\b/y;

/**
 * Where text that JSON.parse refused breaks RFC 8259: the offset of the first character that cannot be there
 * (the text's length when it ends too early). Without recursion, so a file nested deep is no stack overflow.
 */
export function jsonErrorOffset(text: string): number {
  const open: string[] = [];
  type Expected = 'value' | 'valueOrEnd' | 'keyOrEnd' | 'key' | 'colon' | 'commaOrEnd';
  let expect = 'value' as Expected;
  let i = 0;
  const run = (pattern: RegExp) => {
    pattern.lastIndex = i;
    return pattern.exec(text) === null ? i : pattern.lastIndex;
  };
  for (;;) {
    i = run(JSON_WHITESPACE);
    if (i >= text.length) return i;
    const c = text[i]!;
    const keyWanted: boolean = expect === 'key' || expect === 'keyOrEnd';
    if (expect === 'commaOrEnd') {
      const top = open.at(-1);
      if (c === ',' && top !== undefined) expect = top === '{' ? 'key' : 'value';
      else if ((c === '}' && top === '{') || (c === ']' && top === '[')) open.pop();
      else return i;
      i += 1;
    } else if (expect === 'colon') {
      if (c !== ':') return i;
      i += 1;
      expect = 'value';
    } else if ((expect === 'keyOrEnd' && c === '}') || (expect === 'valueOrEnd' && c === ']')) {
      open.pop();
      i += 1;
      expect = 'commaOrEnd';
    } else if (c === '"') {
      i += 1;
      i = run(JSON_STRING_BODY);
      if (text[i] !== '"') return i;
      i += 1;
      expect = keyWanted ? 'colon' : 'commaOrEnd';
    } else if (keyWanted) {
      return i;
    } else if (c === '{' || c === '[') {
      open.push(c);
      i += 1;
      expect = c === '{' ? 'keyOrEnd' : 'valueOrEnd';
    } else {
      const end = run(JSON_NUMBER_OR_WORD);
      if (end === i) return i;
      i = end;
      expect = 'commaOrEnd';
    }
  }
}
