import { z } from 'zod';

/**
 * The last instant a date a client sends can be stored as: dates are stored (timestamptz) and answered and
 * indexed in ISO form, where a later one (9999-12-31T23:59:59-18:00 is in year 10000 in UTC) takes an
 * expanded year (+010000-01-01T...) that Postgres, Elasticsearch and the answers' date-times cannot read.
 */
export const LAST_STORABLE_INSTANT = '9999-12-31T23:59:59.999Z';

/** An ISO 8601 date-time with an offset, no later than LAST_STORABLE_INSTANT; kept as the client wrote it. */
export const storableDateTime = z.iso
  .datetime({ offset: true })
  .refine((value) => Date.parse(value) <= Date.parse(LAST_STORABLE_INSTANT), {
    message: `must be at most ${LAST_STORABLE_INSTANT}: later instants cannot be stored`,
  });
