import { weakEtag } from '../../src/http/etag';

/** The expected values are what Express's default (the `etag` package, weak) made for the same bodies. */
describe('weakEtag', () => {
  it.each([
    ['an empty body', '', 'W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"'],
    [
      'a JSON answer',
      '{"results":[{"systemdata":{"documentId":1}}],"total":1,"cursor":null}',
      'W/"45-NfwXr7cI8g1qIm3QGuB/q81CXiE"',
    ],
    ['text outside ASCII', '{"title":"Zürich 東京 🎉"}', 'W/"1f-YfVg/4QF8JZtn5TLPoItIM9NON8"'],
  ])('when the body is %s, then it is the ETag Express made before', (_what, body, expected) => {
    expect(weakEtag(body)).toBe(expected);
    expect(weakEtag(Buffer.from(body))).toBe(expected);
  });
});
