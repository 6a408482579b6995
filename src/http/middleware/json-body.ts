import type { RequestHandler } from 'express';
import { AppError } from '../../domain/errors';
import { findBodyProblem } from '../../domain/json-limits';

/**
 * Walks every parsed JSON body once, before any route validates it (see domain/json-limits.ts): a body nested
 * deeper than validation can recurse, a `__proto__` key, or a string Postgres cannot store is a 400 naming
 * its path, instead of a stack overflow, a silently dropped key or a jsonb error.
 */
export const checkJsonBody: RequestHandler = (req, _res, next) => {
  const problem = findBodyProblem(req.body);
  if (problem) throw AppError.validation({ [problem.key]: problem.message });
  next();
};
