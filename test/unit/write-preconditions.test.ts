import { writePreconditionsOf } from '../../src/http/conditional-get';
import { AppError } from '../../src/domain/errors';
import {
  assertPutPreconditions,
  assertWritePreconditions,
  modifiedAfter,
} from '../../src/domain/write-preconditions';

describe('modifiedAfter (If-Unmodified-Since)', () => {
  const updatedAt = new Date('2026-01-15T12:00:05.731Z');
  it('when the date is the updatedAt cut to the second, or later, then the target is not modified after it', () => {
    expect(modifiedAfter(updatedAt, Date.parse('Thu, 15 Jan 2026 12:00:05 GMT'))).toBe(false);
    expect(modifiedAfter(updatedAt, Date.parse('Thu, 15 Jan 2026 12:00:06 GMT'))).toBe(false);
  });
  it('when the date is a second or more before, then it is', () => {
    expect(modifiedAfter(updatedAt, Date.parse('Thu, 15 Jan 2026 12:00:04 GMT'))).toBe(true);
    expect(
      modifiedAfter(new Date('2026-01-15T12:00:05.000Z'), Date.parse('Thu, 15 Jan 2026 12:00:04 GMT')),
    ).toBe(true);
  });
});

describe('writePreconditionsOf (the headers of a PATCH)', () => {
  const date = 'Thu, 15 Jan 2026 12:00:04 GMT';
  it.each<[string, Parameters<typeof writePreconditionsOf>[0], ReturnType<typeof writePreconditionsOf>]>([
    ['no header', {}, { ifMatchTagged: false, ifNoneMatchAny: false }],
    ['If-Match: *', { ifMatch: '*' }, { ifMatchTagged: false, ifMatchAny: true, ifNoneMatchAny: false }],
    ['If-Match naming a tag', { ifMatch: 'W/"a"' }, { ifMatchTagged: true, ifNoneMatchAny: false }],
    ['If-None-Match: * in a list', { ifNoneMatch: '"a", *' }, { ifMatchTagged: false, ifNoneMatchAny: true }],
    ['If-None-Match naming tags', { ifNoneMatch: '"a"' }, { ifMatchTagged: false, ifNoneMatchAny: false }],
    [
      'an HTTP-date in If-Unmodified-Since',
      { ifUnmodifiedSince: date },
      { ifMatchTagged: false, ifNoneMatchAny: false, ifUnmodifiedSince: Date.parse(date) },
    ],
    [
      'a date that is no HTTP-date',
      { ifUnmodifiedSince: 'yesterday' },
      { ifMatchTagged: false, ifNoneMatchAny: false },
    ],
    [
      'If-Unmodified-Since beside an If-Match (which decides)',
      { ifMatch: '*', ifUnmodifiedSince: date },
      { ifMatchTagged: false, ifMatchAny: true, ifNoneMatchAny: false },
    ],
  ])('when %s, then %j', (_case, headers, expected) => {
    expect(writePreconditionsOf(headers)).toEqual(expected);
  });
});

describe('assertWritePreconditions', () => {
  const target = { noun: 'thing', versionShown: "the thing's version", readAgain: 'GET things/{id}' };
  const current = { version: 4, updatedAt: new Date('2026-01-15T12:00:05.731Z') };
  const failure = (preconditions: Parameters<typeof assertWritePreconditions>[0]) => {
    try {
      assertWritePreconditions(preconditions, target, current);
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      return [(error as AppError).status, (error as AppError).details];
    }
    return undefined;
  };
  it('when every precondition holds, then it does not throw', () => {
    expect(failure({})).toBeUndefined();
    expect(
      failure({
        ifMatchTagged: false,
        ifNoneMatchAny: false,
        ifUnmodifiedSince: current.updatedAt.getTime(),
      }),
    ).toBeUndefined();
  });
  it('when one fails, then a 412 naming the target and its version; If-Match is judged first', () => {
    expect(failure({ ifMatchTagged: true, ifNoneMatchAny: true })).toEqual([
      412,
      {
        name: 'PreconditionFailed',
        message:
          'If-Match cannot hold: a thing has no entity tag to match. Send the version the change is based on ' +
          "(the thing's version) in the body (`version`) instead",
        currentVersion: 4,
      },
    ]);
    expect(failure({ ifNoneMatchAny: true })).toEqual([
      412,
      {
        name: 'PreconditionFailed',
        message: 'If-None-Match: * cannot hold: the thing exists (it asks to change only what does not)',
        currentVersion: 4,
      },
    ]);
    expect(failure({ ifUnmodifiedSince: Date.parse('Thu, 15 Jan 2026 12:00:04 GMT') })).toEqual([
      412,
      {
        name: 'PreconditionFailed',
        message:
          'The thing was changed after If-Unmodified-Since (Thu, 15 Jan 2026 12:00:04 GMT): its updatedAt is ' +
          '2026-01-15T12:00:05.731Z. Read it again (GET things/{id}), or send the version the change is based ' +
          'on in the body (`version`)',
        currentVersion: 4,
        updatedAt: '2026-01-15T12:00:05.731Z',
      },
    ]);
  });
});

describe('assertWritePreconditions on a target with no version, no read and no PUT that creates it', () => {
  const target = { noun: 'planned thing' };
  const current = { updatedAt: new Date('2026-01-15T12:00:05.731Z') };
  const failure = (preconditions: Parameters<typeof assertWritePreconditions>[0]) => {
    try {
      assertWritePreconditions(preconditions, target, current);
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      return [(error as AppError).status, (error as AppError).details];
    }
    return undefined;
  };
  it('when If-Match names tags, then the 412 suggests only If-Unmodified-Since (If-None-Match: * never writes it)', () => {
    expect(failure({ ifMatchTagged: true })).toEqual([
      412,
      {
        name: 'PreconditionFailed',
        message:
          'If-Match cannot hold: a planned thing has no entity tag to match. Send If-Unmodified-Since instead',
      },
    ]);
  });
  it('when it was changed after If-Unmodified-Since, then the 412 gives its updatedAt and names no read', () => {
    expect(failure({ ifUnmodifiedSince: Date.parse('Thu, 15 Jan 2026 12:00:04 GMT') })).toEqual([
      412,
      {
        name: 'PreconditionFailed',
        message:
          'The planned thing was changed after If-Unmodified-Since (Thu, 15 Jan 2026 12:00:04 GMT): its ' +
          'updatedAt is 2026-01-15T12:00:05.731Z',
        updatedAt: '2026-01-15T12:00:05.731Z',
      },
    ]);
  });
});

describe('assertPutPreconditions (a write that creates its target when it does not exist)', () => {
  /** A target whose write takes no version in its body, and which a PUT creates. */
  const target = { noun: 'followed thing', readAgain: 'GET things', createdWhenAbsent: true };
  const absent = 'thing 7 is not followed';
  const failure = (
    preconditions: Parameters<typeof assertPutPreconditions>[0],
    current: Parameters<typeof assertPutPreconditions>[2],
  ) => {
    try {
      assertPutPreconditions(preconditions, target, current, absent);
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      return [(error as AppError).status, (error as AppError).details];
    }
    return undefined;
  };
  const since = Date.parse('Thu, 15 Jan 2026 12:00:04 GMT');

  it('when the target does not exist, then any If-Match fails (`*` too) and the rest hold', () => {
    const ifMatchFails = [
      412,
      {
        name: 'PreconditionFailed',
        message: 'If-Match cannot hold: thing 7 is not followed (it asks to change only what exists)',
      },
    ];
    expect(failure({ ifMatchAny: true }, undefined)).toEqual(ifMatchFails);
    expect(failure({ ifMatchTagged: true }, undefined)).toEqual(ifMatchFails);
    expect(failure({ ifNoneMatchAny: true, ifUnmodifiedSince: since }, undefined)).toBeUndefined();
    expect(failure({}, undefined)).toBeUndefined();
  });

  it('when it exists, then as any write, a 412 with no version where the target has none', () => {
    const current = { updatedAt: new Date('2026-01-15T12:00:05.731Z') };
    expect(failure({ ifMatchAny: true }, current)).toBeUndefined();
    expect(failure({ ifMatchTagged: true }, current)).toEqual([
      412,
      {
        name: 'PreconditionFailed',
        message:
          'If-Match cannot hold: a followed thing has no entity tag to match. Send If-Unmodified-Since ' +
          'instead, or If-None-Match: * to write only one that does not exist yet',
      },
    ]);
    expect(failure({ ifNoneMatchAny: true }, current)).toEqual([
      412,
      {
        name: 'PreconditionFailed',
        message:
          'If-None-Match: * cannot hold: the followed thing exists (it asks to change only what does not)',
      },
    ]);
    expect(failure({ ifUnmodifiedSince: since }, current)).toEqual([
      412,
      {
        name: 'PreconditionFailed',
        message:
          'The followed thing was changed after If-Unmodified-Since (Thu, 15 Jan 2026 12:00:04 GMT): its ' +
          'updatedAt is 2026-01-15T12:00:05.731Z. Read it again (GET things)',
        updatedAt: '2026-01-15T12:00:05.731Z',
      },
    ]);
  });
});
