import { characterCount } from './shown-input';

/** What a client's token can carry: checked by the CLI as it parses its options, before it connects. */

/** The longest token lifetime a client may be given: 100 years, far inside what a date and `exp` can hold. */
export const MAX_TOKEN_LIFETIME_SECONDS = 100 * 365 * 24 * 3600;

/** Why a token lifetime cannot be signed, or undefined: a whole number of seconds, at least one. */
export function tokenLifetimeProblem(seconds: number): string | undefined {
  return Number.isSafeInteger(seconds) && seconds >= 1 && seconds <= MAX_TOKEN_LIFETIME_SECONDS
    ? undefined
    : `must be a whole number of seconds from 1 to ${MAX_TOKEN_LIFETIME_SECONDS}`;
}

/** The longest client name: it travels in every token (`name`), which must fit in a request's headers. */
export const MAX_CLIENT_NAME_LENGTH = 200;

/**
 * Why a client name cannot be used, or undefined: some text, at most MAX_CLIENT_NAME_LENGTH characters (code
 * points, as every limit counts: 200 emoji are 800 bytes of UTF-8, which a token carries with ease). A
 * 20,000-character name made a token of 27 kB, which every request then carried in a header larger than the
 * server reads (431): a client whose token could never be used.
 */
export function clientNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'must not be empty';
  const tooLong = characterCount(name) > MAX_CLIENT_NAME_LENGTH;
  return tooLong ? `must be at most ${MAX_CLIENT_NAME_LENGTH} characters` : undefined;
}
