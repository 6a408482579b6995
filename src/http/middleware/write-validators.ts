import type { ServerResponse } from 'node:http';
import type { RequestHandler, Response } from 'express';

/**
 * The validator fields a write's answer may carry only when it is the target's new representation; an error
 * answer never carries them (errors.ts, sendErrorAnswer).
 */
export const VALIDATORS = ['ETag', 'Last-Modified'] as const;

const AS_GET_WOULD = Symbol('the answer is what a GET of the target answers');

type Marked = ServerResponse & { [AS_GET_WOULD]?: true };

/**
 * Marks a write's answer as the representation a GET of the same URL would answer now, byte for byte (PATCH
 * mediaLibrary/{id} answers GET mediaLibrary/{id}'s entry): its ETag, made over those bytes, is then the GET's,
 * and stays, so a client that changed the entry can revalidate its copy with If-None-Match without a GET first.
 * Call it only once the write succeeded, just before the answer: an error answer is not the representation.
 */
export function answerIsTheTargetsRepresentation(res: Response): void {
  (res as Marked)[AS_GET_WOULD] = true;
}

/**
 * A write's answer (PUT, PATCH, POST, DELETE, ...) carries no ETag nor Last-Modified unless its route marks it
 * as the target's representation (answerIsTheTargetsRepresentation). Express puts a weak ETag over every body
 * res.send sends, whatever the method: on a write that ETag named the answer ({id}, a publication state, an
 * error), which is no representation a GET of the URL gives (most write URLs have no GET), and RFC 9110
 * §9.3.4 forbids a validator in a PUT's answer unless it is the new representation's (§8.8: a validator of a
 * state-changing request's answer describes what a GET would now select). Such a tag in If-None-Match never
 * matched a GET, and in If-Match never held. The validators go as the head is written, so no route's way of
 * answering escapes it. A GET or HEAD costs a look at its method.
 */
export const writeAnswersCarryNoValidator: RequestHandler = (req, res, next) => {
  if (req.method === 'GET' || req.method === 'HEAD') {
    next();
    return;
  }
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    if ((res as Marked)[AS_GET_WOULD] !== true) for (const name of VALIDATORS) res.removeHeader(name);
    return writeHead(...args);
  }) as typeof res.writeHead;
  next();
};
