import {
  buildLatestPublicationsRequest,
  type LatestPublicationsParams,
} from '../../src/search/query-builder';

const params = (overrides: Partial<LatestPublicationsParams> = {}): LatestPublicationsParams => ({
  projectId: 7,
  fields: ['systemdata'],
  limit: 10,
  offset: 0,
  reverse: false,
  id: {},
  publishedAt: {},
  ...overrides,
});

/** The range clause the request filters `field` with, if any. */
const rangeOf = (request: ReturnType<typeof buildLatestPublicationsRequest>, field: string) => {
  const filter = (request.query?.bool?.filter ?? []) as { range?: Record<string, unknown> }[];
  return filter.find((clause) => clause.range?.[field])?.range?.[field];
};

describe('buildLatestPublicationsRequest', () => {
  it('when no range is given, then the request has no range clause', () => {
    expect(rangeOf(buildLatestPublicationsRequest(params()), 'documentId')).toBeUndefined();
  });

  it.each([
    [{ gt: 10 }, { gt: 10 }],
    [
      { gte: 5, lte: 9 },
      { gte: 5, lte: 9 },
    ],
    // Elasticsearch keeps one bound per side (the last one written), so both given send the tighter.
    [{ gt: 10, gte: 5 }, { gt: 10 }],
    [{ gt: 5, gte: 10 }, { gte: 10 }],
    [{ gt: 10, gte: 10 }, { gt: 10 }],
    [{ lt: 5, lte: 9 }, { lt: 5 }],
    [{ lt: 9, lte: 5 }, { lte: 5 }],
    [{ lt: 9, lte: 9 }, { lt: 9 }],
    [
      { gt: 1, gte: 2, lt: 8, lte: 7 },
      { gte: 2, lte: 7 },
    ],
  ])('when the id bounds are %j, then every one of them holds: %j', (bounds, expected) => {
    expect(rangeOf(buildLatestPublicationsRequest(params({ id: bounds })), 'documentId')).toEqual(expected);
    expect(
      rangeOf(buildLatestPublicationsRequest(params({ publishedAt: bounds })), 'lastPublicationDate'),
    ).toEqual(expected);
  });
});
