import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ZodError } from 'zod';
import { AppError } from '../../domain/errors';
import { zodIssuesToPaths } from '../../domain/validation';
import type { Logger } from '../../logger';

/** Any path that no route answered: the spec's `404 {url}` (supplement §1). */
export const unknownRoute: RequestHandler = (req) => {
  throw new AppError(404, { url: req.originalUrl.split('?')[0] ?? req.originalUrl });
};

interface HttpParserError {
  type?: string;
  status?: number;
  limit?: number;
}

/** Turns whatever was thrown into an AppError; anything not recognised is a bug and stays unknown. */
function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error instanceof ZodError) return AppError.validation(zodIssuesToPaths(error.issues));
  const parser = error as HttpParserError;
  if (parser.type === 'entity.parse.failed') {
    return AppError.badRequest(`Malformed JSON in the request body: ${(error as Error).message}`);
  }
  if (parser.type === 'entity.too.large') {
    return new AppError(413, {
      name: 'PayloadTooLarge',
      message: `The request body is larger than the limit of ${parser.limit ?? '?'} bytes`,
    });
  }
  if (parser.type === 'encoding.unsupported' || parser.type === 'charset.unsupported') {
    return new AppError(415, { name: 'UnsupportedMediaType', message: (error as Error).message });
  }
  const pg = error as { code?: string; detail?: string };
  if (pg.code === '23505') {
    return new AppError(409, { name: 'UniqueIdViolation', message: pg.detail ?? 'The id is already taken' });
  }
  if (pg.code === '22P02') return AppError.badRequest('A value has the wrong type');
  return undefined;
}

/** The one error middleware, registered last: renders `{status, error, error_details}` for every non-2xx. */
export function renderErrors(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const appError = toAppError(error);
    if (!appError) {
      logger.error({ err: error, requestId: req.id, url: req.originalUrl }, 'unhandled error');
      res.status(500).json({
        status: 500,
        error: 'Internal Server Error',
        error_details: { message: 'Internal Server Error' },
      });
      return;
    }
    if (appError.status === 401) res.set('WWW-Authenticate', 'Bearer');
    if (appError.retryAfterSeconds !== undefined) res.set('Retry-After', String(appError.retryAfterSeconds));
    res
      .status(appError.status)
      .json({ status: appError.status, error: appError.reason, error_details: appError.details });
  };
}
