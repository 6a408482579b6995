/**
 * How a message repeats what a client sent (an id, a key, a handle, a filter): whole when it is short, else its
 * first MAX_SHOWN_CHARACTERS characters, '…' and how long the whole was. A 10 kB id repeated whole made a
 * 400 nobody reads, and a log line as long. One helper, so every message cuts the same way.
 */
export const MAX_SHOWN_CHARACTERS = 100;

/** The number of characters (code points, as the limits count them: an emoji is one) of `text`. */
export function characterCount(text: string): number {
  let count = 0;
  for (let at = 0; at < text.length; at += 1) {
    const unit = text.charCodeAt(at);
    // A high surrogate followed by a low one is one character.
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(at + 1);
      if (next >= 0xdc00 && next <= 0xdfff) at += 1;
    }
    count += 1;
  }
  return count;
}

/** The first `count` characters of `text`, never half an emoji. */
function firstCharacters(text: string, count: number): string {
  let end = 0;
  for (let taken = 0; taken < count && end < text.length; taken += 1) {
    end += (text.codePointAt(end) ?? 0) > 0xffff ? 2 : 1;
  }
  return text.slice(0, end);
}

/**
 * `text` as a message shows it: whole up to `max` characters, else `<first max characters>… (<n> characters)`.
 * For text shown bare (a JSON value: `got {"a":1}`); a quoted value takes `quoted`.
 */
export function shownInput(text: string, max = MAX_SHOWN_CHARACTERS): string {
  // Fewer code units than max are fewer characters: the common case counts nothing.
  if (text.length <= max) return text;
  const total = characterCount(text);
  if (total <= max) return text;
  return `${firstCharacters(text, max)}… (${total} characters)`;
}

/**
 * A path as an error key shows it (`commands.0.value`): its segments joined by '.', each cut as shownInput cuts,
 * so a client's unknown key of a megabyte is named by its first characters, not sent back whole.
 */
export function shownPath(segments: readonly PropertyKey[]): string {
  return segments.map((segment) => shownInput(String(segment))).join('.');
}

/** `text` in single quotes as a message shows it: `'abc'`, or `'abc…' (10000 characters)` past `max`. */
export function quoted(text: string, max = MAX_SHOWN_CHARACTERS): string {
  if (text.length <= max) return `'${text}'`;
  const total = characterCount(text);
  if (total <= max) return `'${text}'`;
  return `'${firstCharacters(text, max)}…' (${total} characters)`;
}
