import { gunzipSync } from 'node:zlib';
import { AppError } from '../../src/domain/errors';
import { translateError } from '../../src/http/middleware/errors';
import { StoreUnavailableError } from '../../src/storage/object-store';

const details = (error: AppError | undefined) => ({ status: error?.status, details: error?.details });

/** What zlib throws for a body that is not gzip, as body-parser hands it on (http-errors sets the status). */
function gunzipError(): Error {
  try {
    gunzipSync(Buffer.from('{}'));
  } catch (error) {
    return Object.assign(error as Error, { status: 400, statusCode: 400, expose: true });
  }
  throw new Error('expected gunzip to fail');
}

describe('translateError', () => {
  it('when the router cannot decode a path parameter, then 400 ValidationError naming the segment', () => {
    const error = Object.assign(new URIError("Failed to decode param '%FF'"), {
      status: 400,
      statusCode: 400,
    });
    expect(details(translateError(error))).toEqual({
      status: 400,
      details: {
        name: 'ValidationError',
        message: "Malformed percent-encoding in the URL path: '%FF' does not decode to UTF-8 text",
      },
    });
  });

  it('when an http-errors style error carries a 4xx, then that status, named after its reason phrase', () => {
    // body-parser's refusal of a charset, as it makes it (the charset lower case beside its own message).
    const error = Object.assign(new Error('unsupported charset "LATIN-9"'), {
      status: 415,
      statusCode: 415,
      expose: true,
      charset: 'latin-9',
      type: 'charset.unsupported',
    });
    expect(details(translateError(error))).toEqual({
      status: 415,
      details: {
        name: 'UnsupportedMediaType',
        message:
          "The request body's charset 'latin-9' is not supported: send JSON as UTF-8 " +
          '(Content-Type: application/json, or application/json; charset=utf-8)',
      },
    });
    const encoding = Object.assign(new Error('unsupported content encoding "compress"'), {
      status: 415,
      statusCode: 415,
      expose: true,
      encoding: 'compress',
      type: 'encoding.unsupported',
    });
    expect(details(translateError(encoding, 'Compress'))).toEqual({
      status: 415,
      details: {
        name: 'UnsupportedMediaType',
        message:
          "The request body's Content-Encoding 'Compress' is not supported: send the body as it is, " +
          'or compressed with one of gzip, deflate, br, zstd',
      },
    });
    const tooMany = Object.assign(new Error('too many parameters'), { statusCode: 413, expose: true });
    expect(translateError(tooMany)?.details.name).toBe('PayloadTooLarge');
  });

  it('when a body does not decode under its Content-Encoding, then 400 naming the encoding', () => {
    const translated = translateError(gunzipError(), 'gzip');
    expect(translated?.status).toBe(400);
    expect(translated?.details.message).toBe(
      "The request body does not decode as its Content-Encoding 'gzip' says: incorrect header check",
    );
  });

  it("when the decompression error's own message was lost, then the answer still names the encoding", () => {
    // http-errors wraps an Error of another realm (a VM context, as under Jest) as props of its default error.
    const wrapped = Object.assign(new Error('Bad Request'), { status: 400, expose: true, errno: -3 });
    expect(translateError(wrapped, 'br')?.details.message).toBe(
      "The request body does not decode as its Content-Encoding 'br' says",
    );
  });

  it('when the status is a 5xx, or only a statusCode another client reported, then it stays a bug (undefined)', () => {
    expect(translateError(Object.assign(new Error('stream not readable'), { status: 500 }))).toBeUndefined();
    const elasticsearch400 = Object.assign(new Error('search_phase_execution_exception'), {
      statusCode: 400,
    });
    expect(translateError(elasticsearch400)).toBeUndefined();
    expect(translateError(new Error('boom'))).toBeUndefined();
    expect(translateError('a string')).toBeUndefined();
  });

  it('when Postgres refuses a NUL or untranslatable character (22021, 22P05), then 400 ValidationError', () => {
    for (const code of ['22021', '22P05']) {
      const translated = translateError(Object.assign(new Error('invalid byte sequence'), { code }));
      expect(translated?.status).toBe(400);
      expect(translated?.details).toEqual({ name: 'ValidationError', message: expect.stringMatching(/NUL/) });
    }
  });

  it('when Postgres reports a unique violation, then 409 UniqueIdViolation with its detail', () => {
    const error = Object.assign(new Error('duplicate key'), {
      code: '23505',
      detail: 'Key (id)=(x) exists.',
    });
    expect(details(translateError(error))).toEqual({
      status: 409,
      details: { name: 'UniqueIdViolation', message: 'Key (id)=(x) exists.' },
    });
  });

  it('when a unique violation repeats a long value, then the value is cut as every echo is and the key stays whole', () => {
    const key = (values: string) => ({
      code: '23505',
      detail: `Key (project_id, system_name, external_id)=(${values}) already exists.`,
    });
    const long = `7, wire, ${'x'.repeat(10_000)}`;
    expect(translateError(Object.assign(new Error('duplicate key'), key(long)))?.details.message).toBe(
      `Key (project_id, system_name, external_id)=(${long.slice(0, 100)}… (${long.length} characters)) already exists.`,
    );
    expect(
      translateError(Object.assign(new Error('duplicate key'), key('7, wire, a1')))?.details.message,
    ).toBe('Key (project_id, system_name, external_id)=(7, wire, a1) already exists.');
    // A detail in another shape is cut whole; none at all says what it means.
    const odd = Object.assign(new Error('duplicate key'), { code: '23505', detail: 'y'.repeat(500) });
    expect(translateError(odd)?.details.message).toBe(`${'y'.repeat(100)}… (500 characters)`);
    const bare = Object.assign(new Error('duplicate key'), { code: '23505' });
    expect(translateError(bare)?.details.message).toBe('The id is already taken');
  });

  it('when the object store is unavailable, then 503 StorageUnavailable with Retry-After, not the database', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9090'), { code: 'ECONNREFUSED' });
    const error = translateError(new StoreUnavailableError(refused));
    expect({ ...details(error), retryAfter: error?.retryAfterSeconds }).toEqual({
      status: 503,
      details: {
        name: 'StorageUnavailable',
        message: 'The media store is unavailable right now; try again in a few seconds',
      },
      retryAfter: 5,
    });
  });
});
