import { STATUS_CODES } from 'node:http';

/** error_details of the spec's envelope: usually {message, name}, or one key per offending path for 400s. */
export type ErrorDetails = Record<string, unknown>;

/** The keys error_details has of its own: `name` says what kind of error it is, `message` what went wrong. */
const ENVELOPE_KEYS: ReadonlySet<string> = new Set(['name', 'message']);

/**
 * error_details of a 400 ValidationError: one key per offending path. A path spelled like a key of the
 * envelope itself (the query parameter `name` of GET document-lists, an unknown `name` in a body, a body's
 * `message`) would overwrite `name: 'ValidationError'` or pass for the error's message, so its problem goes
 * into `message` instead, naming the path (`name: must not be empty`).
 */
export function validationDetails(byPath: Record<string, string>): ErrorDetails {
  const entries = Object.entries(byPath);
  const clashing = entries.filter(([path]) => ENVELOPE_KEYS.has(path));
  const details: [string, string][] = [['name', 'ValidationError']];
  if (clashing.length > 0) {
    details.push(['message', clashing.map(([path, message]) => `${path}: ${message}`).join('; ')]);
  }
  // Not push(...entries): a body can name hundreds of thousands of unknown keys, past the arguments one call
  // may take (a RangeError, so a 500 for a bad request).
  for (const entry of entries) if (!ENVELOPE_KEYS.has(entry[0])) details.push(entry);
  // fromEntries defines own properties: a `__proto__` path stays a key (see issuesToPaths).
  return Object.fromEntries(details);
}

/** How long a client is asked to wait when Postgres cannot answer (Retry-After). */
const DATABASE_RETRY_AFTER_SECONDS = 5;
/** How long a client is asked to wait when the object store of media bytes cannot answer (Retry-After). */
const STORAGE_RETRY_AFTER_SECONDS = 5;

/**
 * The one error type of the service. Anything thrown that is not an AppError is a bug and renders as a
 * plain 500; an AppError renders as `{status, error: <reason phrase>, error_details}`.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly details: ErrorDetails,
    /** Sent as `Retry-After` (seconds): when a client may try again. */
    readonly retryAfterSeconds?: number,
    /**
     * Sent as `WWW-Authenticate`: which credentials, and what was wrong. A 401 without one gets a bare
     * `Bearer`; a 403 carries one for a token without the scopes it needs.
     */
    readonly challenge?: string,
  ) {
    super(typeof details.message === 'string' ? details.message : (STATUS_CODES[status] ?? 'Error'));
    this.name = 'AppError';
  }

  get reason(): string {
    return STATUS_CODES[this.status] ?? 'Error';
  }

  /** 400 with one key per offending path, e.g. `{"commands.0.operation": "must be one of ..."}`. */
  static validation(byPath: Record<string, string>): AppError {
    return new AppError(400, validationDetails(byPath));
  }

  static badRequest(message: string, extra: ErrorDetails = {}): AppError {
    return new AppError(400, { name: 'ValidationError', message, ...extra });
  }

  static notFound(message: string): AppError {
    return new AppError(404, { name: 'NotFound', message });
  }

  static conflict(message: string, extra: ErrorDetails = {}): AppError {
    return new AppError(409, { name: 'Conflict', message, ...extra });
  }

  /** 400 for a feature the project's config does not enable; the message names the project (api-spec §7). */
  static configuration(message: string): AppError {
    return new AppError(400, { name: 'ConfigurationError', message });
  }

  /** 503: a service we depend on cannot answer now; the client may retry after `retryAfterSeconds`. */
  static unavailable(name: string, message: string, retryAfterSeconds: number): AppError {
    return new AppError(503, { name, message }, retryAfterSeconds);
  }

  /** The 503 of a request Postgres cannot answer now. */
  static databaseUnavailable(): AppError {
    return AppError.unavailable(
      'DatabaseUnavailable',
      'The database is unavailable right now; try again in a few seconds',
      DATABASE_RETRY_AFTER_SECONDS,
    );
  }

  /** The 503 of a request whose media bytes the object store cannot read or write now. */
  static storageUnavailable(): AppError {
    return AppError.unavailable(
      'StorageUnavailable',
      'The media store is unavailable right now; try again in a few seconds',
      STORAGE_RETRY_AFTER_SECONDS,
    );
  }
}

export function assertThat(condition: unknown, error: AppError | (() => AppError)): asserts condition {
  if (!condition) throw typeof error === 'function' ? error() : error;
}
