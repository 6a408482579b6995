import { BoundedCache } from '../../src/domain/bounded-cache';

describe('BoundedCache', () => {
  it('when a key repeats, then the value is computed once', () => {
    const cache = new BoundedCache<string, number>(10);
    let calls = 0;
    const compute = () => ++calls;
    expect(cache.get('a', compute)).toBe(1);
    expect(cache.get('a', compute)).toBe(1);
    expect(calls).toBe(1);
  });

  it('when it is full, then the oldest key is forgotten and computed again later', () => {
    const cache = new BoundedCache<string, string>(2);
    let calls = 0;
    const compute = (key: string) => () => {
      calls++;
      return key.toUpperCase();
    };
    cache.get('a', compute('a'));
    cache.get('b', compute('b'));
    cache.get('c', compute('c'));
    expect(cache.size).toBe(2);
    expect(calls).toBe(3);
    cache.get('b', compute('b'));
    expect(calls).toBe(3);
    expect(cache.get('a', compute('a'))).toBe('A');
    expect(calls).toBe(4);
  });

  it('when computing throws, then nothing is remembered', () => {
    const cache = new BoundedCache<string, number>(2);
    expect(() =>
      cache.get('bad', () => {
        throw new Error('no');
      }),
    ).toThrow('no');
    expect(cache.size).toBe(0);
  });

  it('when the value is undefined, then it is still remembered', () => {
    const cache = new BoundedCache<string, undefined>(2);
    let calls = 0;
    cache.get('x', () => {
      calls++;
      return undefined;
    });
    cache.get('x', () => {
      calls++;
      return undefined;
    });
    expect(calls).toBe(1);
  });
});
