import fc from 'fast-check';
import { parseTemplate, scanTags } from '../../src/domain/html-template';

/** How templates used to be read, in one expression: right, but from every `<` it could run to the end. */
const QUADRATIC_TAG =
  /<!--[\s\S]*?-->|<\/([a-zA-Z][\w:-]*)\s*>|<([a-zA-Z][\w:-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*(\/?)>/g;

const regexTags = (template: string) =>
  [...template.matchAll(QUADRATIC_TAG)].map((match) => ({
    index: match.index,
    end: match.index + match[0].length,
    endTag: match[1],
    startTag: match[2],
    attributeSource: match[3],
    selfClosing: match[4],
  }));

const scannedTags = (template: string) =>
  [...scanTags(template)].map((tag) => ({
    index: tag.index,
    end: tag.end,
    endTag: tag.endTag,
    startTag: tag.startTag,
    attributeSource: tag.attributeSource,
    selfClosing: tag.selfClosing,
  }));

describe('scanTags', () => {
  it('when a template has tags, comments and attributes of every kind, then they are read as before', () => {
    const template =
      '<div class="a>b" data-x=\'y\' hidden><!-- c --><img src=a/b/><br/></div ><a <b c=d>x</a\n>';
    expect(scannedTags(template)).toEqual(regexTags(template));
    expect(scannedTags(template).map((tag) => tag.startTag ?? tag.endTag ?? '!--')).toEqual([
      'div',
      '!--',
      'img',
      'br',
      'div',
      'a',
      'a',
    ]);
  });

  it('when any template is read, then the tags are the ones the regular expression found', () => {
    const piece = fc.constantFrom(
      '<',
      '>',
      '/',
      '/>',
      '<a',
      '<B:x-1',
      '</a',
      '<!--',
      '-->',
      '--',
      '!',
      '=',
      '"',
      "'",
      '`',
      ' ',
      '\n',
      '\t',
      'a',
      'x=',
      'y',
      '1',
      ':',
      '.',
      '<a b=c ',
      '"<b>"',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const template = pieces.join('');
        expect(scannedTags(template)).toEqual(regexTags(template));
      }),
      { numRuns: 10_000 },
    );
  });

  it('when a template is 100,000 characters of tags that never close, then it is read in linear time', () => {
    // The regular expression took 8 s over the first, 15 s over the second and 0.6 s over the third, on
    // every render of a composition using the component.
    const started = performance.now();
    for (const template of [
      '<a b=c '.repeat(15_000),
      '<a '.repeat(33_000),
      '<!--'.repeat(25_000),
      `<a x="${'<a y=" '.repeat(15_000)}`,
      '<a'.repeat(50_000),
    ]) {
      const nodes = parseTemplate(template);
      expect(nodes).toEqual([{ kind: 'text', text: template }]);
    }
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('parseTemplate', () => {
  it('when end tags close, skip or match nothing open, then the tree is as before', () => {
    const element = (tag: string, children: unknown[]) => ({
      kind: 'element',
      tag,
      attributes: [],
      children,
      isVoid: false,
    });
    const text = (value: string) => ({ kind: 'text', text: value });
    expect(parseTemplate('<a><b></c>x</a>y</b><i>z')).toEqual([
      element('a', [element('b', [text('x')])]),
      text('y'),
      element('i', [text('z')]),
    ]);
    expect(parseTemplate('<a><a><b></a>1</A>2')).toEqual([
      element('a', [element('a', [element('b', [])]), text('1')]),
      text('2'),
    ]);
  });

  it('when a template opens 16,000 elements and ends 12,000 that are not open, then it is read in linear time', () => {
    // Every `</b>` searched all the open elements for a `b`: 3.6 s over these 96,000 characters.
    const started = performance.now();
    const nodes = parseTemplate('<a>'.repeat(16_000) + '</b>'.repeat(12_000) + '</a>'.repeat(16_000) + 'x');
    expect(nodes.at(-1)).toEqual({ kind: 'text', text: 'x' });
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
