import fc from 'fast-check';
import {
  EMBED_SIMPLE_TAGS,
  embedSanitizeOptions,
  loadSanitizeHtml,
  RICH_TEXT_OPTIONS,
  RICH_TEXT_SIMPLE_TAGS,
  sanitizeEmbed,
  sanitizeRichText,
} from '../../src/domain/html-render';
import { simpleMarkup } from '../../src/domain/simple-markup';

/** Both ways of making a value safe, each with the tags simpleMarkup may answer for and what it stands for. */
const MODES = [
  {
    name: 'rich text',
    tags: RICH_TEXT_SIMPLE_TAGS,
    sanitize: sanitizeRichText,
    reference: (value: string) => loadSanitizeHtml()(value, RICH_TEXT_OPTIONS),
  },
  {
    name: 'embed',
    tags: EMBED_SIMPLE_TAGS,
    sanitize: sanitizeEmbed,
    reference: (value: string) => loadSanitizeHtml()(value, embedSanitizeOptions()),
  },
];

const TAG_NAMES = ['b', 'strong', 'i', 'em', 'u', 's', 'sub', 'sup', 'span', 'code', 'mark', 'small', 'p'];
const OTHER_NAMES = ['a', 'div', 'script', 'style', 'textarea', 'title', 'xmp', 'svg', 'li', 'h1', 'table'];

/** Pieces of markup, well formed or not, that a hostile or careless value is made of. */
const piece = fc.oneof(
  fc
    .constantFrom(...TAG_NAMES, ...OTHER_NAMES)
    .chain((name) =>
      fc.constantFrom(
        `<${name}>`,
        `</${name}>`,
        `<${name}/>`,
        `<${name} />`,
        `<${name.toUpperCase()}>`,
        `</${name.toUpperCase()}>`,
        `<${name} class="x">`,
        `<${name} >`,
        `</${name} >`,
        `<${name}`,
      ),
    ),
  fc.constantFrom('<br>', '<br/>', '<br />', '</br>', '<BR>', '<br  />', '<br/ >', '<wbr>', '<hr>', '<img>'),
  fc.constantFrom('&amp;', '&lt;', '&gt;', '&quot;', '&#39;', '&nbsp;', '&apos;', '&#x27;', '&copy;'),
  fc.constantFrom('&', '&amp', '&nbsp', '&#39', '&;', '&#;', '&AMP;', '&notit;', '&lt', '&#0;'),
  fc.constantFrom(
    '<',
    '>',
    '</',
    '<!--',
    '-->',
    '<!-- x -->',
    '<![CDATA[',
    ']]>',
    '<?x?>',
    '<!doctype html>',
  ),
  fc.constantFrom(
    '"',
    "'",
    '/',
    '=',
    ';',
    '#',
    ' ',
    '\t',
    '\n',
    '\r\n',
    '\u0000',
    '\u00a0',
    '\ufeff',
    'é',
    '💥',
  ),
  fc.string({ maxLength: 6 }),
  fc.string({ unit: 'binary', maxLength: 4 }),
);

const hostile = fc.array(piece, { maxLength: 24 }).map((pieces) => pieces.join(''));

/** Well-formed values of allowed tags: the fast path answers most of them. */
const text = fc.array(
  fc.constantFrom('a', 'b ', '>', '"', "'", '&amp;', '&lt;', '&nbsp;', '&#39;', 'é', '\n'),
  {
    maxLength: 5,
  },
);
const { tree } = fc.letrec<{ tree: string }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text.map((parts) => parts.join('')),
    fc.constantFrom('<br>', '<br/>', '<br />'),
    fc
      .tuple(fc.constantFrom(...TAG_NAMES), fc.array(tie('tree'), { maxLength: 4 }))
      .map(([name, children]) => `<${name}>${children.join('')}</${name}>`),
  ),
}));
const wellFormed = fc.array(tree, { maxLength: 4 }).map((parts) => parts.join(''));

describe('simple markup', () => {
  it('when simpleMarkup answers for a value, then sanitize-html answers the same (random and hostile values)', () => {
    for (const mode of MODES) {
      let answered = 0;
      fc.assert(
        fc.property(fc.oneof(hostile, wellFormed, fc.string({ unit: 'binary' })), (value) => {
          const fast = simpleMarkup(value, mode.tags);
          if (fast === undefined) return;
          answered += 1;
          expect(fast).toBe(mode.reference(value));
        }),
        { numRuns: 10_000 },
      );
      // Not vacuous: a good share of the values took the fast path.
      expect(answered).toBeGreaterThan(2_000);
    }
  });

  it('when a value is made safe, then the answer is sanitize-html’s whichever path it took', () => {
    for (const mode of MODES) {
      fc.assert(
        fc.property(fc.oneof(hostile, wellFormed), (value) => {
          expect(mode.sanitize(value)).toBe(mode.reference(value));
        }),
        { numRuns: 5_000 },
      );
    }
  });

  it('when markup is simple, then it is answered without sanitize-html, as sanitize-html writes it', () => {
    expect(simpleMarkup('<b>1</b> &amp; <i>x &gt; y</i>', RICH_TEXT_SIMPLE_TAGS)).toBe(
      '<b>1</b> &amp; <i>x &gt; y</i>',
    );
    expect(simpleMarkup('a<br>b<br/>c<br />d > e', RICH_TEXT_SIMPLE_TAGS)).toBe(
      'a<br />b<br />c<br />d &gt; e',
    );
    expect(simpleMarkup('&quot;q&#39;&nbsp;', RICH_TEXT_SIMPLE_TAGS)).toBe('"q\'\u00a0');
    expect(simpleMarkup('<p><b>x</b></p><p>y</p>', EMBED_SIMPLE_TAGS)).toBe('<p><b>x</b></p><p>y</p>');
    expect(simpleMarkup('', RICH_TEXT_SIMPLE_TAGS)).toBe('');
  });

  it('when markup needs sanitize-html, then simpleMarkup leaves it', () => {
    const needsIt = [
      '<b>unclosed',
      '</b>',
      '<b><i>x</b></i>',
      '<B>x</B>',
      '<b >x</b>',
      '<b class="x">x</b>',
      '<b/>x',
      '</br>',
      '<a href="https://x.example">x</a>',
      '<p>x</p>', // not rich text
      '<script>x()</script>',
      'a & b',
      '&amp',
      '&copy;',
      'a < b',
      '<!-- c -->',
    ];
    for (const value of needsIt) expect(simpleMarkup(value, RICH_TEXT_SIMPLE_TAGS)).toBeUndefined();
    expect(simpleMarkup('<p><p>x</p></p>', EMBED_SIMPLE_TAGS)).toBeUndefined();
    expect(simpleMarkup('<p><b><p>x</p></b></p>', EMBED_SIMPLE_TAGS)).toBeUndefined();
  });

  it('when the embed tags are listed, then each is one of sanitize-html’s defaults', () => {
    const defaults = new Set(loadSanitizeHtml().defaults.allowedTags);
    for (const tag of EMBED_SIMPLE_TAGS) expect(defaults.has(tag)).toBe(true);
    for (const tag of RICH_TEXT_SIMPLE_TAGS) expect(RICH_TEXT_OPTIONS.allowedTags).toContain(tag);
    expect([...RICH_TEXT_SIMPLE_TAGS]).not.toContain('a');
  });
});
