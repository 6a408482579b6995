import fc from 'fast-check';
import { looksLikeHtml, sanitiseMessage } from '../../src/commands/add-delivery-status';

/** The test the message used to be judged by: right, but its `[^>]*` rescanned the rest from every `<a`. */
const QUADRATIC_LOOKS_LIKE_HTML = /<\/?[a-z!][^>]*>/i;

describe('looksLikeHtml', () => {
  it('when a message has a tag, a closing tag, a comment or a doctype, then it is HTML; text with < or > alone is not', () => {
    for (const html of [
      '<p>x',
      'x</b>',
      '<!-- note -->',
      '<!doctype html>',
      'a <B>b',
      '<a\nhref=x>',
      '<a<b>',
    ])
      expect({ html, is: looksLikeHtml(html) }).toEqual({ html, is: true });
    for (const text of ['Price < 5 & "quoted"', 'a > b', '< p>', '<1>', '<a', 'x >y <a', '</ b>', '<>'])
      expect({ text, is: looksLikeHtml(text) }).toEqual({ text, is: false });
  });

  it('when any text is judged, then the answer is the one the regular expression gave', () => {
    const piece = fc.constantFrom('<', '>', '/', '!', 'a', 'B', '1', ' ', '\n', 'x');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const text = pieces.join('');
        expect(looksLikeHtml(text)).toBe(QUADRATIC_LOOKS_LIKE_HTML.test(text));
      }),
      { numRuns: 5_000 },
    );
  });

  it('when a message is 100,000 characters of tag starts that never close, then it is judged in linear time', () => {
    // The regular expression took 7 to 10 s over this (150 ms over the 10,000 characters a message may have),
    // the event loop blocked throughout, for one request any write-scoped client could send.
    const started = performance.now();
    expect(looksLikeHtml('<a'.repeat(50_000))).toBe(false);
    expect(looksLikeHtml('<!'.repeat(50_000))).toBe(false);
    expect(sanitiseMessage('</a'.repeat(33_000))).toBe('</a'.repeat(33_000));
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
