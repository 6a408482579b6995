import { checkListName, parseDocumentIds } from '../../src/domain/document-lists';

describe('checkListName', () => {
  it('when a name has surrounding spaces, then it is trimmed', () => {
    expect(checkListName('  Front page ')).toEqual({ ok: true, value: 'Front page' });
  });

  it('when a name spells an accent as a combining mark, then it is stored composed (NFC), as clients type it', () => {
    // 'Cafe' + U+0301 (what macOS file names and some editors give) and 'Café' look the same: both were stored
    // as given, so the project could hold two lists named 'Café' and ?name=café found only one.
    expect(checkListName('Cafe\u0301 corner')).toEqual({ ok: true, value: 'Caf\u00e9 corner' });
  });

  it('when a name is empty, too long or holds control characters, then it is refused saying why', () => {
    const message = (raw: string) => {
      const checked = checkListName(raw);
      return checked.ok ? undefined : checked.issues[0]!.message;
    };
    expect(message('   ')).toBe('must not be empty');
    expect(message('x'.repeat(201))).toBe('must be at most 200 characters long');
    expect(message('a\nb')).toBe('must not contain control characters');
    expect(checkListName('x'.repeat(200)).ok).toBe(true);
  });

  it('when a name is made of emoji, then its characters are counted, not its UTF-16 code units', () => {
    // An emoji is two code units of a JS string: a name of 101 emoji was refused as longer than 200 characters.
    const emoji = '\u{1F4F0}';
    expect(checkListName(emoji.repeat(200))).toEqual({ ok: true, value: emoji.repeat(200) });
    expect(checkListName(emoji.repeat(201))).toEqual({
      ok: false,
      issues: [{ path: [], message: 'must be at most 200 characters long' }],
    });
  });
});

describe('parseDocumentIds', () => {
  it('when every id is a positive integer, then the numbers in order', () => {
    expect(parseDocumentIds(['3', '1', '2'])).toEqual({ ok: true, value: [3, 1, 2] });
  });

  it('when an id is not a positive integer or beyond 2^53 - 1, then every such id is named', () => {
    const checked = parseDocumentIds(['1', 'x', '0', '9007199254740993', '-2']);
    expect(checked.ok).toBe(false);
    expect(!checked.ok && checked.issues[0]!.message).toBe(
      'must be positive integer document ids, not x, 0, 9007199254740993, -2',
    );
  });

  it('when a refused id is long, then the message repeats it cut, not whole', () => {
    const checked = parseDocumentIds(['1', 'x'.repeat(10_000)]);
    expect(!checked.ok && checked.issues[0]!.message).toBe(
      `must be positive integer document ids, not ${'x'.repeat(100)}… (10000 characters)`,
    );
  });
});
