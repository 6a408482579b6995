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

/** A JSON.parse error's message on one line: V8 quotes the text around the error, newlines and all. */
export function jsonErrorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\r/g, '\\r').replace(/\n/g, '\\n');
}
