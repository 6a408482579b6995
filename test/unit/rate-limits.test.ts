import fc from 'fast-check';
import {
  RATE_LIMIT,
  clientRateLimit,
  formatRateLimit,
  parseRateLimit,
  rateLimitHeaders,
  secondsToReset,
  windowStartMs,
} from '../../src/domain/rate-limits';
import { exactMargin } from '../../src/db/rate-limit-counter';

/** How a limit used to be matched: right, but its `\s*(\d*)\s*` took time quadratic in a run of spaces. */
const QUADRATIC_RATE_LIMIT = /^(\d+)\s*\/\s*(\d*)\s*([a-z]+)$/;

describe('parseRateLimit', () => {
  it('when any text is matched, then it reads the parts the regular expression read', () => {
    const piece = fc.constantFrom('1', '20', ' ', '\t', '/', 'm', 'hours', 'x', '.');
    const parts = (match: RegExpExecArray | null) => match && [match[1], match[2] ?? '', match[3]];
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        expect(parts(RATE_LIMIT.exec(text))).toEqual(parts(QUADRATIC_RATE_LIMIT.exec(text)));
      }),
      { numRuns: 10_000 },
    );
  });

  it('when given a limit padded with 100,000 spaces, then it is refused in linear time', () => {
    // The old expression took 20 s over this (RATE_LIMIT_DEFAULT, `clients create --rate-limit`).
    const started = performance.now();
    const text = `1${' '.repeat(50_000)}/${' '.repeat(50_000)}1`;
    expect(parseRateLimit(text)).toEqual({
      ok: false,
      message: expect.stringContaining('expected N/period'),
    });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('when a refused value is long, then the message repeats it cut, not whole', () => {
    // The 100,002 characters above came back whole in the message (and the CLI's or the start's error).
    const text = `1${' '.repeat(50_000)}/${' '.repeat(50_000)}1`;
    expect(parseRateLimit(text)).toEqual({
      ok: false,
      message: `'1${' '.repeat(99)}…' (100003 characters): expected N/period such as 600/minute, 100/10s or 5000/hour, or 'none'`,
    });
  });

  it.each([
    ['600/minute', { requests: 600, periodSeconds: 60 }],
    ['100/10s', { requests: 100, periodSeconds: 10 }],
    ['5000/h', { requests: 5000, periodSeconds: 3600 }],
    ['1 / 2 hours', { requests: 1, periodSeconds: 7200 }],
    ['20/DAY', { requests: 20, periodSeconds: 86_400 }],
    ['7/second', { requests: 7, periodSeconds: 1 }],
  ])('when given %s, then it reads the count and the period in seconds', (text, expected) => {
    expect(parseRateLimit(text)).toEqual({ ok: true, value: expected });
  });

  it('when given none, then there is no limit', () => {
    expect(parseRateLimit(' none ')).toEqual({ ok: true, value: undefined });
  });

  it.each([
    ['10 per minute', 'expected N/period'],
    ['10/fortnight', "unknown period unit 'fortnight'"],
    ['0/minute', 'between 1 and'],
    ['10/2d', 'between 1 second and 1 day'],
    ['-1/s', 'expected N/period'],
    ['1.5/s', 'expected N/period'],
    ['', 'expected N/period'],
  ])('when given %j, then it says what is wrong', (text, message) => {
    const parsed = parseRateLimit(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain(message);
  });
});

describe('clientRateLimit', () => {
  const fallback = { requests: 100, periodSeconds: 60 };
  it("when the client has none of its own, then the default; 0 requests, then none; else the client's", () => {
    expect(clientRateLimit({ rateLimitRequests: null, rateLimitPeriodSeconds: null }, fallback)).toBe(
      fallback,
    );
    expect(
      clientRateLimit({ rateLimitRequests: null, rateLimitPeriodSeconds: null }, undefined),
    ).toBeUndefined();
    expect(clientRateLimit({ rateLimitRequests: 0, rateLimitPeriodSeconds: 1 }, fallback)).toBeUndefined();
    expect(clientRateLimit({ rateLimitRequests: 5, rateLimitPeriodSeconds: 10 }, fallback)).toEqual({
      requests: 5,
      periodSeconds: 10,
    });
  });
});

describe('windows and headers', () => {
  const limit = { requests: 10, periodSeconds: 60 };
  const at = Date.UTC(2026, 10, 23, 12, 0, 45, 200);

  it('when asked at 12:00:45.2 for a minute window, then it started at 12:00:00 and resets in 15 s', () => {
    expect(windowStartMs(at, 60)).toBe(Date.UTC(2026, 10, 23, 12, 0, 0));
    expect(secondsToReset(at, limit)).toBe(15);
  });

  it('when the window ends in under a second, then Reset says 1, never 0', () => {
    expect(secondsToReset(Date.UTC(2026, 10, 23, 12, 0, 59, 999), limit)).toBe(1);
  });

  it('when more were used than allowed, then Remaining is 0, never negative', () => {
    expect(rateLimitHeaders(limit, 3, at)).toEqual({
      'RateLimit-Limit': '10',
      'RateLimit-Remaining': '7',
      'RateLimit-Reset': '15',
    });
    expect(rateLimitHeaders(limit, 12, at)['RateLimit-Remaining']).toBe('0');
  });

  it('when formatted, then N/periods or none', () => {
    expect(formatRateLimit(limit)).toBe('10/60s');
    expect(formatRateLimit(undefined)).toBe('none');
  });

  it('when the limit is small, then every request is counted exactly; when large, the last tenth', () => {
    expect(exactMargin({ requests: 5, periodSeconds: 1 })).toBe(50);
    expect(exactMargin({ requests: 10_000, periodSeconds: 60 })).toBe(1000);
  });
});
