import { isUtf8 } from 'node:buffer';

/**
 * Where the first byte sequence that is not UTF-8 starts (RFC 3629: no overlong forms, no surrogates, nothing
 * past U+10FFFF, no sequence cut short), or undefined when all of `bytes` is UTF-8. Decoding such bytes as
 * UTF-8 replaces each bad sequence with U+FFFD without a word: the text a client meant (a Latin-1 'é') is lost
 * and the replacement kept. Checked at native speed first; the offset is looked for only when there is one.
 */
export function firstInvalidUtf8Offset(bytes: Uint8Array): number | undefined {
  if (isUtf8(bytes)) return undefined;
  let at = 0;
  while (at < bytes.length) {
    const length = utf8SequenceLength(bytes, at);
    if (length === 0) return at;
    at += length;
  }
  // isUtf8 and this scan judge by the same rules: not reached.
  return undefined;
}

const continuation = (byte: number | undefined, low = 0x80, high = 0xbf) =>
  byte !== undefined && byte >= low && byte <= high;

/** The length of the UTF-8 sequence at `at`, or 0 when none starts there. */
function utf8SequenceLength(bytes: Uint8Array, at: number): number {
  const lead = bytes[at]!;
  if (lead <= 0x7f) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return continuation(bytes[at + 1]) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    // E0: no overlong forms (A0..BF next); ED: no surrogates (80..9F next).
    const low = lead === 0xe0 ? 0xa0 : 0x80;
    const high = lead === 0xed ? 0x9f : 0xbf;
    return continuation(bytes[at + 1], low, high) && continuation(bytes[at + 2]) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    // F0: no overlong forms (90..BF next); F4: nothing past U+10FFFF (80..8F next).
    const low = lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xf4 ? 0x8f : 0xbf;
    return continuation(bytes[at + 1], low, high) &&
      continuation(bytes[at + 2]) &&
      continuation(bytes[at + 3])
      ? 4
      : 0;
  }
  return 0;
}
