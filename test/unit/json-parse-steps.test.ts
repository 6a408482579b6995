import { LEAF_CHARS, parseJsonSteps, type JsonParseSizes } from '../../src/domain/json-parse-steps';

/** The value parsed with `sizes`, stopping whenever the pause is asked (always true) or never; and its stops. */
const parse = (text: string, sizes: JsonParseSizes = {}, stop = true) => {
  const steps = parseJsonSteps(text, () => stop, sizes);
  let stops = 0;
  for (;;) {
    const step = steps.next();
    if (step.done === true) return { value: step.value, stops };
    stops += 1;
  }
};

/** Leaf and scan sizes from "every member walked, every scan stopped at once" to the defaults. */
const SIZES: JsonParseSizes[] = [
  { leafChars: 0, scanChars: 1 },
  { leafChars: 1, scanChars: 2 },
  { leafChars: 7, scanChars: 3 },
  { leafChars: 40, scanChars: 1 },
  { leafChars: 64, scanChars: 1000 },
  {},
];

/** The same value as JSON.parse: equal (-0 and +0 told apart), and the same keys in the same order. */
const expectSameAsJsonParse = (text: string, sizes: JsonParseSizes, stop = true) => {
  const expected = JSON.parse(text) as unknown;
  const { value } = parse(text, sizes, stop);
  expect(value).toStrictEqual(expected);
  expect(JSON.stringify(value)).toBe(JSON.stringify(expected));
};

describe('parseJsonSteps (stored JSON parsed in slices)', () => {
  const texts: Record<string, string> = {
    'content as Postgres writes jsonb (spaces after colons and commas)': JSON.stringify([
      { id: 'a', component: 'paragraph', content: { text: 'Hello, [world]: {not} "json"' } },
      { id: 'b', component: 'container', containers: { main: [{ id: 'c', content: {} }] } },
    ])
      .replace(/,"/g, ', "')
      .replace(/":/g, '": '),
    'unicode escapes, surrogate pairs, escaped quotes and backslashes':
      '{"t\\u00e9xt": "caf\\u00e9 \\ud83d\\ude00 😀 \\"quoted\\" back\\\\slash\\\\", "\\"": "\\\\\\"", ' +
      '"line": "a\\nb\\tc\\u2028d\\/e", "end\\\\": ["\\\\", "\\"]", "\\u005d,"]}',
    'nested arrays':
      '[[], [[]], [[1, [2, [3, [4, []]]]], [[[[[["deep"]]]]]]], [{}, [{}]], [[null], [true, false]]]',
    'numbers and literals': '[0, -0, 1.5, -2.5e-3, 1E+21, 12345678901234567890, true, false, null, "x"]',
    'white space everywhere': ' \n\t{ "a" \r\n : [ 1 ,\t2 , { "b" : [ ] , "c" : { } } ] , "d" : "e" }\n ',
    'integer-like keys, duplicate keys and __proto__':
      '{"b": 1, "2": "two", "a": {"__proto__": {"polluted": true}, "x": 1}, "1": "one", "b": 3, "__proto__": []}',
    'a bare string': '"just text with a \\" quote"',
    'a bare number': ' 42 ',
    'empty containers': '{"a": [], "b": {}, "c": [{}], "d": [[], {}]}',
  };

  for (const sizes of SIZES) {
    it.each(Object.entries(texts))(
      `when it parses %s (sizes ${JSON.stringify(sizes)}), then the value of JSON.parse`,
      (_, text) => {
        expectSameAsJsonParse(text, sizes);
        expectSameAsJsonParse(text, sizes, false);
      },
    );
  }

  it('when an object has a __proto__ key, then it is an own property and the prototype is untouched', () => {
    const { value } = parse('{"__proto__": {"polluted": true}, "a": 1}', { leafChars: 0, scanChars: 1 });
    const object = value as Record<string, unknown>;
    expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
    expect(Object.keys(object)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('when huge strings with escapes and brackets are split across slices, then the value of JSON.parse', () => {
    const huge = `${'ab"c\\\\"],{:'.repeat(10_000)}é😀\u2028${'x'.repeat(100_000)}`;
    const text = JSON.stringify({
      before: [1, 2, 3],
      huge,
      list: [huge, { key: huge, [huge.slice(0, 70_000)]: 'a long key' }, 'after'],
      ['esc\\"aped']: huge.slice(0, 100),
    });
    expect(text.length).toBeGreaterThan(600_000);
    for (const sizes of [{}, { leafChars: 1000, scanChars: 100 }, { leafChars: 0, scanChars: 1 }]) {
      expectSameAsJsonParse(text, sizes);
    }
  });

  it('when a large content is parsed, then the pause is asked along the way and the value is JSON.parse', () => {
    const content = Array.from({ length: 5_000 }, (_, index) => ({
      id: `doc-large-${index}`,
      component: 'paragraph',
      content: { text: `Paragraph ${index} \u00e9 "${'lorem ipsum '.repeat(8)}"`, n: [index, [index]] },
    }));
    const text = JSON.stringify(content);
    expect(text.length).toBeGreaterThan(800_000);
    const { value, stops } = parse(text);
    expect(value).toStrictEqual(content);
    // At least one stop per LEAF_CHARS of text.
    expect(stops).toBeGreaterThan(text.length / LEAF_CHARS);
  });

  it('when the text is not JSON, then a SyntaxError as JSON.parse throws', () => {
    const bad = [
      '',
      '   ',
      '[',
      '[1,,2]',
      '[1,]',
      '[,1]',
      '{"a" 1}',
      '{"a":1,}',
      '{1: 2}',
      '{"a"}',
      '[1] x',
      '[1}',
      '{"a": [1}',
      '{"a": [1, 2] ]',
      '"abc',
      '["abc]',
      '[1 2]',
      '[{"a": 1} {"b": 2}]',
      '[tru]',
    ];
    for (const text of bad) {
      expect(() => JSON.parse(text)).toThrow(SyntaxError);
      for (const sizes of SIZES) expect(() => parse(text, sizes)).toThrow(SyntaxError);
    }
  });
});
