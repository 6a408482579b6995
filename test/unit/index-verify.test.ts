import { driftOf } from '../../src/search/index-manager';

describe('index verify: driftOf', () => {
  const published = { publicationId: 7, indexVersion: 4 };

  it('when the index has no entry, then missing', () => {
    expect(driftOf(undefined, published)).toBe('missing');
  });

  it('when the entry is of the latest publication at the current index version, then no drift', () => {
    expect(driftOf({ publicationId: 7, version: 4 }, published)).toBeUndefined();
  });

  it('when the entry is of another publication, then stale', () => {
    expect(driftOf({ publicationId: 6, version: 4 }, published)).toBe('stale');
  });

  it('when the entry is of the latest publication but written before its latest re-index (new dates, an embargo), then stale', () => {
    expect(driftOf({ publicationId: 7, version: 3 }, published)).toBe('stale');
  });
});
