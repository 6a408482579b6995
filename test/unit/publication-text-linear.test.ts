import fc from 'fast-check';
import {
  extractSearchText,
  htmlToPlainText,
  NAMED_ENTITIES,
  stripTags,
} from '../../src/domain/publication-text';

// The implementation before it was made linear, kept verbatim as the reference the new one must equal (with the
// module's own entity table, which that work did not change). Its
// regular expressions searched the rest of the text for a '>' (or a '-->', or a closing tag) from every tag
// start that had none, so `<a<a<a…` took time in the square of its length: 0.9 s for 20,000 characters,
// 10 s for 80,000, hours for the 1 MB text directive the indexing worker may meet.

const OLD_BLOCK_TAG =
  /<\/?(?:address|article|aside|blockquote|br|dd|div|dl|dt|figcaption|figure|footer|h[1-6]|header|hr|li|ol|p|pre|section|table|td|th|tr|ul)\b[^>]*>/gi;

function oldDecodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z][a-z0-9]*);/gi, (entity, body: string) => {
    if (body.startsWith('#')) {
      const code =
        body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
      return valid ? String.fromCodePoint(code) : entity;
    }
    return NAMED_ENTITIES.get(body) ?? entity;
  });
}

function oldHtmlToPlainText(html: string): string {
  const withoutTags = !html.includes('<') ? html : oldStripTags(html);
  const decoded = withoutTags.includes('&') ? oldDecodeEntities(withoutTags) : withoutTags;
  return OLD_COLLAPSIBLE_SPACE.test(decoded) ? decoded.replace(/\s+/g, ' ').trim() : decoded.trim();
}

const OLD_COLLAPSIBLE_SPACE = /[^\S ]| {2}/;

function oldStripTags(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style|noscript|template)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(OLD_BLOCK_TAG, ' ')
    .replace(/<\/?[a-z][^>]*>/gi, '');
}

/** Pieces that make tags, half tags, comments, raw-text elements, entities and whitespace of every kind. */
const piece = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom('<', '<', '>', '>', '/', '</', '!', '-', '--', '<!--', '-->', '<!-->'),
  },
  { weight: 4, arbitrary: fc.constantFrom('a', 'B', 'z', 'x', '1', '_', '=', '"', "'") },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'p',
      'P',
      'pre',
      'br',
      'h1',
      'H6',
      'h7',
      'header',
      'hr',
      'blockquote',
      'figcaption',
      'figcaptions',
      'li',
      'ul',
      'td',
      'span',
      'b',
    ),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom('script', 'SCRIPT', 'Style', 'noscript', 'template', 'scripts', 'scrip'),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '<p>',
      '</p>',
      '<br/>',
      '<script>',
      '</script>',
      '</SCRIPT \n>',
      '</style>',
      '<a href="x">',
    ),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '&',
      ';',
      '#',
      '&amp;',
      '&lt;',
      '&gt;',
      '&#60;',
      '&#x3C;',
      '&nbsp;',
      '&bogus;',
      '&#0;',
    ),
  },
  { weight: 3, arbitrary: fc.constantFrom(' ', '  ', '\n', '\t', '\r\n', '\u00a0', '\u2028', '\ufeff') },
  // Not ASCII, yet close to it under case folding or \s: none may count as a tag letter or word character.
  { weight: 1, arbitrary: fc.constantFrom('\u017f', '\u212a', '\u0131', 'é', '\u{1f600}', '\ud800') },
);
const text = (maxLength: number) => fc.array(piece, { maxLength }).map((pieces) => pieces.join(''));

describe('htmlToPlainText against the implementation it replaced', () => {
  it('when any text mixing tags, half tags, comments, scripts, entities and whitespace is stripped, then the result is exactly the old one', () => {
    fc.assert(
      fc.property(text(40), (html) => {
        expect(stripTags(html)).toBe(oldStripTags(html));
      }),
      { numRuns: 20_000 },
    );
  });

  it('when any such text becomes plain text, then it is exactly the old plain text', () => {
    fc.assert(
      fc.property(text(60), (html) => {
        expect(htmlToPlainText(html)).toBe(oldHtmlToPlainText(html));
      }),
      { numRuns: 10_000 },
    );
  });

  it('when the text is long or any characters at all, then the result is still exactly the old one', () => {
    fc.assert(
      fc.property(fc.oneof(text(400), fc.string({ unit: 'binary', maxLength: 200 })), (html) => {
        expect(stripTags(html)).toBe(oldStripTags(html));
        expect(htmlToPlainText(html)).toBe(oldHtmlToPlainText(html));
      }),
      { numRuns: 2_000 },
    );
  });
});

/** Shapes with tag starts (or comment starts, or raw-text elements) that never end. */
const HOSTILE_SHAPES: readonly string[] = [
  '<a',
  '</a',
  '<p',
  '</P',
  '<pre',
  '<blockquote ',
  '<!--',
  '<script',
  '<script>',
  '<style>x',
  '<noscript></p>',
  '<template>',
  '<p<a<!--<script>',
  '&amp',
  '&#x1',
  '< a \n',
];

describe('htmlToPlainText in linear time', () => {
  it('when a text of small hostile pieces is stripped, then it gives what the old implementation gave', () => {
    for (const shape of HOSTILE_SHAPES) {
      const html = shape.repeat(Math.ceil(2_000 / shape.length));
      expect({ shape, text: htmlToPlainText(html) }).toEqual({ shape, text: oldHtmlToPlainText(html) });
    }
  });

  it('when a text is 200,000 characters of tag starts that never end, then it is plain text well within a second', () => {
    // Linear, these take a few milliseconds each; the old code took minutes each. The bound is 2 s so that a
    // loaded machine cannot make the test flaky, and still far below the quadratic time.
    const slow: Record<string, number> = {};
    for (const shape of HOSTILE_SHAPES) {
      const html = shape.repeat(Math.ceil(200_000 / shape.length));
      const started = performance.now();
      htmlToPlainText(html);
      const took = performance.now() - started;
      if (took >= 2_000) slow[shape] = Math.round(took);
    }
    expect(slow).toEqual({});
    expect(htmlToPlainText('<a'.repeat(100_000))).toBe('<a'.repeat(100_000));
  });

  it('when a 1 MB text directive is tag starts that never end, then its search text is built well within a second', () => {
    const started = performance.now();
    const { text } = extractSearchText({}, [
      { id: 'doc-1', identifier: 'd.paragraph', content: { text: '<p'.repeat(500_000) } },
    ]);
    expect(text).toBe('<p'.repeat(500_000));
    // 2 s, not less, for the same reason as above.
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
