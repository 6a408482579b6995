import fc from 'fast-check';
import { firstInvalidUtf8Offset } from '../../src/domain/utf8';

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))));

describe('firstInvalidUtf8Offset', () => {
  it('when the bytes are UTF-8 (ASCII, accents, CJK, beyond the BMP, a BOM, nothing), then undefined', () => {
    for (const text of ['', 'plain', 'Café', '漢字', '😀 and 𝄞', '\uFEFF{"a":1}', '\u0000']) {
      expect(firstInvalidUtf8Offset(Buffer.from(text))).toBeUndefined();
    }
  });

  it.each([
    ['a Latin-1 é', bytes('Caf', [0xe9]), 3],
    ['a lone continuation byte', bytes('a', [0x80], 'b'), 1],
    ['an overlong /', bytes('x', [0xc0, 0xaf]), 1],
    ['an overlong three-byte form', bytes([0xe0, 0x80, 0xaf]), 0],
    ['an encoded surrogate', bytes('ok ', [0xed, 0xa0, 0x80]), 3],
    ['a code point past U+10FFFF', bytes([0xf4, 0x90, 0x80, 0x80]), 0],
    ['0xFF', bytes('é', [0xff]), 2],
    ['a character cut short at the end', bytes('✓', [0xe2, 0x9c]), 3],
    ['a character cut short before ASCII', bytes([0xe2, 0x9c], '"'), 0],
  ])('when the bytes hold %s, then the offset of its first byte', (_label, input, offset) => {
    expect(firstInvalidUtf8Offset(input)).toBe(offset);
  });

  it('when any text is encoded, then it is UTF-8; with a byte that starts no character after it, that byte is named', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }),
        fc.constantFrom(0x80, 0xbf, 0xc0, 0xc1, 0xf5, 0xff),
        (text, bad) => {
          const good = Buffer.from(text);
          expect(firstInvalidUtf8Offset(good)).toBeUndefined();
          expect(firstInvalidUtf8Offset(Buffer.concat([good, Buffer.from([bad])]))).toBe(good.length);
        },
      ),
    );
  });
});
