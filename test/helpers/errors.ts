import { AppError } from '../../src/domain/errors';

/** The error_details of the 400 that `run` throws; fails the test when it throws anything else, or nothing. */
export function validationDetails(run: () => unknown): Record<string, unknown> {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(400);
    return (error as AppError).details;
  }
  throw new Error('expected a validation error');
}
