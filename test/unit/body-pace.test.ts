import { loadConfig } from '../../src/config';
import { bodyDueAfterMs } from '../../src/http/middleware/body-deadline';
import { apiRequestTimeouts } from '../../src/http/request-timeouts';

const pace = { floorMs: 60_000, minBytesPerSecond: 16_384 };
const MiB = 1024 * 1024;

describe('bodyDueAfterMs: the floor plus a second for every minBytesPerSecond bytes that arrived', () => {
  it('when nothing of the body arrived, then it is due at the floor', () => {
    expect(bodyDueAfterMs(pace, 0)).toBe(60_000);
  });

  it('when bytes arrived, then each minBytesPerSecond of them earn a second', () => {
    expect(bodyDueAfterMs(pace, 16_384)).toBe(61_000);
    expect(bodyDueAfterMs(pace, 8_192)).toBe(60_500);
    // A 200 MB body at 1 MiB/s takes 200 s; by then it is due at 60 s + 12,800 s.
    expect(bodyDueAfterMs(pace, 200 * MiB)).toBe(60_000 + 12_800_000);
  });

  it('when a client keeps the pace, then at no time is it past due; one below it is cut', () => {
    const pastDue = (bytesPerSecond: number) =>
      Array.from({ length: 3600 }, (_, second) => second).find(
        (second) => second * 1000 > bodyDueAfterMs(pace, second * bytesPerSecond),
      );
    expect(pastDue(16_384)).toBeUndefined();
    // Half the pace: cut when 60 s + t/2 falls behind t, at 120 s.
    expect(pastDue(8_192)).toBe(121);
    // Nothing at all: at the floor.
    expect(pastDue(0)).toBe(61);
  });
});

describe("apiRequestTimeouts: Node's backstop behind the body pace", () => {
  it('when the largest body at the pace takes longer than 300 s, then requestTimeout leaves it that, after the 20 s of the headers', () => {
    // 25 MiB at 16 KiB/s: 1,600 s, and the 60 s floor.
    expect(apiRequestTimeouts(pace, 25 * MiB)).toEqual({
      headersTimeout: 20_000,
      requestTimeout: 20_000 + 60_000 + 1_600_000,
      connectionsCheckingInterval: 2_000,
    });
  });

  it("when the largest body takes less at the pace, then requestTimeout stays Node's 300 s", () => {
    expect(
      apiRequestTimeouts({ floorMs: 60_000, minBytesPerSecond: 1024 * 1024 }, 5 * MiB).requestTimeout,
    ).toBe(300_000);
  });
});

describe('loadConfig: BODY_MIN_BYTES_PER_SECOND', () => {
  it('when unset, then the pace is 16 KiB a second past the BODY_TIMEOUT_MS floor', () => {
    expect(loadConfig({}).http.bodyPace).toEqual({ floorMs: 60_000, minBytesPerSecond: 16_384 });
    expect(loadConfig({ BODY_TIMEOUT_MS: '2000', BODY_MIN_BYTES_PER_SECOND: '64' }).http.bodyPace).toEqual({
      floorMs: 2_000,
      minBytesPerSecond: 64,
    });
  });

  it('when it is not a whole number of at least 1, then the start is refused naming it', () => {
    for (const value of ['0', '-5', '16kb', '1.5']) {
      expect(() => loadConfig({ BODY_MIN_BYTES_PER_SECOND: value })).toThrow(/BODY_MIN_BYTES_PER_SECOND/);
    }
  });
});
