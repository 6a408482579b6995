import { z } from 'zod';

/**
 * The last instant a date a client sends can be stored as: dates are stored (timestamptz) and answered and
 * indexed in ISO form, where a later one (9999-12-31T23:59:59-18:00 is in year 10000 in UTC) takes an
 * expanded year (+010000-01-01T...) that Postgres, Elasticsearch and the answers' date-times cannot read.
 */
export const LAST_STORABLE_INSTANT = '9999-12-31T23:59:59.999Z';

/**
 * The first: Postgres is handed the instant in UTC (storedInstant), and its ISO input has no year 0
 * (0001-01-01T00:00:00+10:00 is 0000-12-31T14:00:00Z).
 */
export const FIRST_STORABLE_INSTANT = '0001-01-01T00:00:00.000Z';

/**
 * An ISO 8601 date-time with an offset, from FIRST_STORABLE_INSTANT to LAST_STORABLE_INSTANT; kept as the
 * client wrote it (storedInstant is what is stored).
 */
export const storableDateTime = z.iso
  .datetime({ offset: true })
  .refine((value) => Date.parse(value) >= Date.parse(FIRST_STORABLE_INSTANT), {
    message: `must be at least ${FIRST_STORABLE_INSTANT}: earlier instants cannot be stored`,
  })
  .refine((value) => Date.parse(value) <= Date.parse(LAST_STORABLE_INSTANT), {
    message: `must be at most ${LAST_STORABLE_INSTANT}: later instants cannot be stored`,
  });

/**
 * A storableDateTime as it is handed to Postgres: the instant in UTC at millisecond precision, as it is
 * answered. Postgres' timestamptz input takes offsets up to ±15:59 only, where the ISO form goes to ±23:59.
 */
export const storedInstant = (value: string): string => new Date(value).toISOString();
