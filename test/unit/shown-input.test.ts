import { characterCount, MAX_SHOWN_CHARACTERS, quoted, shownInput } from '../../src/domain/shown-input';

describe('shownInput and quoted', () => {
  it('when a value has at most MAX_SHOWN_CHARACTERS characters, then it is shown whole', () => {
    const whole = 'a'.repeat(MAX_SHOWN_CHARACTERS);
    expect(shownInput(whole)).toBe(whole);
    expect(quoted(whole)).toBe(`'${whole}'`);
    expect(quoted('')).toBe("''");
  });

  it('when a value is longer, then its first characters are shown, an ellipsis and the whole length', () => {
    const long = `${'a'.repeat(MAX_SHOWN_CHARACTERS)}${'b'.repeat(9_900)}`;
    expect(shownInput(long)).toBe(`${'a'.repeat(MAX_SHOWN_CHARACTERS)}… (10000 characters)`);
    expect(quoted(long)).toBe(`'${'a'.repeat(MAX_SHOWN_CHARACTERS)}…' (10000 characters)`);
    expect(quoted('abcdef', 3)).toBe("'abc…' (6 characters)");
  });

  it('when a value holds emoji, then they count one character each and none is cut in half', () => {
    const emoji = '\u{1F4F0}';
    // 100 emoji are 200 code units: still 100 characters, shown whole.
    expect(shownInput(emoji.repeat(MAX_SHOWN_CHARACTERS))).toBe(emoji.repeat(MAX_SHOWN_CHARACTERS));
    expect(shownInput(emoji.repeat(150))).toBe(`${emoji.repeat(MAX_SHOWN_CHARACTERS)}… (150 characters)`);
    expect(quoted(`a${emoji}${emoji}`, 2)).toBe(`'a${emoji}…' (3 characters)`);
  });

  it('characterCount counts code points; a lone surrogate is one character', () => {
    expect(characterCount('')).toBe(0);
    expect(characterCount('abc')).toBe(3);
    expect(characterCount('\u{1F4F0}\u{1F4F0}')).toBe(2);
    expect(characterCount('\uD83Dx')).toBe(2);
    expect(characterCount('x\uDCF0')).toBe(2);
  });
});
