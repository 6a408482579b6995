import { characterCount, shownInput } from './shown-input';
import { invalid, valid, type Checked } from './validation';

export const MAX_LIST_NAME_LENGTH = 200;

/**
 * A list's name as operators give it: trimmed, not empty, at most 200 characters (an emoji is one, as ?name=
 * of GET document-lists counts), no control characters; in its composed form (NFC), so that 'é' spelt as 'e'
 * and a combining accent is the same name, the one clients search for with ?name=.
 */
export function checkListName(raw: string): Checked<string> {
  const name = raw.normalize('NFC').trim();
  const problem =
    name === ''
      ? 'must not be empty'
      : characterCount(name) > MAX_LIST_NAME_LENGTH
        ? `must be at most ${MAX_LIST_NAME_LENGTH} characters long`
        : // eslint-disable-next-line no-control-regex
          /[\u0000-\u001f\u007f]/.test(name)
          ? 'must not contain control characters'
          : undefined;
  return problem === undefined ? valid(name) : invalid([{ path: [], message: problem }]);
}

/** Document ids as an operator types them: positive integers, exact (at most 2^53 - 1). */
export function parseDocumentIds(raw: readonly string[]): Checked<number[]> {
  const bad = raw.filter((item) => !/^[1-9]\d*$/.test(item) || !Number.isSafeInteger(Number(item)));
  return bad.length === 0
    ? valid(raw.map(Number))
    : invalid([
        {
          path: [],
          message: `must be positive integer document ids, not ${bad.map((item) => shownInput(item)).join(', ')}`,
        },
      ]);
}
