import type { Request, RequestHandler } from 'express';
import { AppError } from '../../domain/errors';
import { quoted, shownInput } from '../../domain/shown-input';
import { findBodyProblem } from '../../domain/json-limits';
import { firstInvalidUtf8Offset } from '../../domain/utf8';
import { bodyTooLargeMessage } from './errors';

/** What a 415 says the request sent: `got text/plain`, or that it sent no Content-Type at all. */
export function sentContentType(req: Request): string {
  const sent = req.headers['content-type'];
  return sent ? `got ${shownInput(sent)}` : 'no Content-Type was sent';
}

/**
 * For routes that read a JSON body, after authentication: a body of any other media type (text, a form, no
 * Content-Type at all) is a 415 saying what to send, rather than the "body is required" it looked like once
 * the JSON parser had skipped it. A request without a body is left to the route's validation.
 */
export const jsonBody: RequestHandler = (req, _res, next) => {
  // null: no body at all; false: a body that is not application/json (the type express.json() parses).
  if (req.is('application/json') === false) {
    throw new AppError(415, {
      name: 'UnsupportedMediaType',
      message: `The request body must be JSON: send it with Content-Type: application/json (${sentContentType(req)})`,
    });
  }
  next();
};

/**
 * jsonBody for a route whose body is optional as a whole (every key has a default): an empty body, sent
 * with whatever Content-Type or none (`curl -X POST`, fetch without a body), is no body at all.
 */
export const optionalJsonBody: RequestHandler = (req, res, next) => {
  const empty =
    req.headers['transfer-encoding'] === undefined && Number(req.headers['content-length'] ?? 0) === 0;
  if (empty) {
    next();
    return;
  }
  jsonBody(req, res, next);
};

/**
 * POST enrichment/re-enrich: its doc_ids are read as document ids and never stored; api-spec §4.16 skips the
 * ids no document can have, and a string with an unpaired surrogate or a NUL, or a number beyond a double, is
 * one of them, not a 400. Checked here, before routing, as the walk is; the router is case-sensitive.
 */
const RE_ENRICH_PATH = /^\/api\/[^/]+\/enrichment\/re-enrich\/?$/;
const valuesNeverStored = (req: Request): boolean => req.method === 'POST' && RE_ENRICH_PATH.test(req.path);

/**
 * Walks every parsed JSON body once, before any route validates it (see domain/json-limits.ts): a body nested
 * deeper than validation can recurse, a `__proto__` key, or a string Postgres cannot store is a 400 naming
 * its path, instead of a stack overflow, a silently dropped key or a jsonb error.
 */
export const checkJsonBody: RequestHandler = (req, _res, next) => {
  const problem = findBodyProblem(req.body, { keysOnly: valuesNeverStored(req) });
  if (problem) throw AppError.validation({ [problem.key]: problem.message });
  next();
};

/**
 * express.json()'s `verify`, given the body's bytes (decompressed) before they are decoded: a body sent as
 * UTF-8 (the default, and what RFC 8259 §8.1 requires of JSON) that is not is a 400 saying where. Decoding
 * replaced each bad sequence (a Latin-1 'é', an overlong or surrogate form) with U+FFFD without a word, and
 * that is what got stored: 'Caf\uFFFD' for 'Café'. A body declared UTF-16 or UTF-32 is left to its decoder.
 */
export function refuseInvalidUtf8(_req: unknown, _res: unknown, bytes: Buffer, charset: string): void {
  if (charset !== 'utf-8' && charset !== 'utf8') return;
  const offset = firstInvalidUtf8Offset(bytes);
  if (offset === undefined) return;
  const byte = bytes[offset]!.toString(16).toUpperCase().padStart(2, '0');
  throw AppError.badRequest(
    `The request body is not valid UTF-8: the byte 0x${byte} at offset ${offset} does not start a UTF-8 ` +
      'character; send JSON as UTF-8 (RFC 8259 §8.1)',
  );
}

/**
 * First of the request checks Node leaves to the app (listen() turns off its own, which answered a bare 400 or
 * 417 with no body), then before express.json(): an HTTP/1.1 request without Host is a 400; an `Expect` other
 * than 100-continue a 417; a JSON body whose Content-Length is past `limitBytes` a 413 at once, closing the
 * connection. body-parser refuses such a body too, but only after reading (and discarding) all of it: a
 * client declaring 50 MB waited for its whole upload, or until the request timed out when it sent less. The
 * server answers `Expect: 100-continue` here too: 100 Continue for every body not refused, so a client told
 * 413 never sends its body.
 */
export function admitRequest(limitBytes: number): RequestHandler {
  return (req, res, next) => {
    if (req.httpVersion === '1.1' && req.headers.host === undefined) {
      throw AppError.badRequest('An HTTP/1.1 request must send a Host header');
    }
    const expect = req.headers.expect?.toLowerCase();
    if (expect !== undefined && expect !== '100-continue') {
      throw new AppError(417, {
        name: 'ExpectationFailed',
        message: `Expect: ${quoted(String(req.headers.expect))} is not understood; the only expectation this server meets is 100-continue`,
      });
    }
    const declared = Number(req.headers['content-length']);
    const identity = (req.headers['content-encoding'] ?? 'identity').toLowerCase() === 'identity';
    if (identity && declared > limitBytes && req.is('application/json')) {
      res.set('Connection', 'close');
      throw new AppError(413, { name: 'PayloadTooLarge', message: bodyTooLargeMessage(limitBytes) });
    }
    if (expect === '100-continue') res.writeContinue();
    next();
  };
}
