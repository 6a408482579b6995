import { createHash } from 'node:crypto';
import type { Response } from 'express';
import type { Pause, Steps } from '../domain/steps';
import { runInSlices } from '../time-slices';
import { requestLifetime } from './request-lifetime';
import { weakEtagOf } from './etag';
import { sendJsonChunks, type JsonChunks } from './json-items';

/**
 * Arrays and objects this many levels deep are walked member by member; deeper values are serialised whole.
 * Deep enough to reach the components of a document in a list of the listing
 * (`[ {documents: [ {content: [ component ] } ] } ]`).
 */
const WALKED_DEPTH = 5;
/** Text gathered before it becomes a piece of the answer (and is hashed). */
const PIECE_CHARS = 64 * 1024;

/**
 * `JSON.stringify(value)` as the pieces of its UTF-8 bytes, with the weak ETag `res.json` gives them
 * (weakEtag), made in steps: the outer arrays and objects are walked member by member (WALKED_DEPTH), each
 * member serialised by JSON.stringify, the text turned into bytes and hashed as it grows. The same bytes as
 * one JSON.stringify for the plain data a read answers (objects, arrays, strings, numbers, booleans, null,
 * toJSON such as Date's, members whose value JSON has no text for left out of objects and null in arrays).
 */
export function* jsonSteps(value: unknown, pause: Pause): Steps<JsonChunks> {
  const sha1 = createHash('sha1');
  const chunks: Buffer[] = [];
  let length = 0;
  let text = '';
  const flush = () => {
    const chunk = Buffer.from(text, 'utf8');
    text = '';
    sha1.update(chunk);
    chunks.push(chunk);
    length += chunk.length;
  };
  const write = (more: string) => {
    text += more;
    if (text.length >= PIECE_CHARS) flush();
  };

  /** Writes a value that has a JSON text (see asJson), walking it when it is an outer array or object. */
  function* writeValue(value: unknown, depth: number): Steps<void> {
    const walked = depth < WALKED_DEPTH && value !== null && typeof value === 'object';
    if (walked && Array.isArray(value)) {
      write('[');
      for (let index = 0; index < value.length; index += 1) {
        if (index > 0) write(',');
        const item = asJson(value[index], String(index));
        if (item === NO_TEXT) write('null');
        else yield* writeValue(item, depth + 1);
      }
      write(']');
    } else if (walked && isPlainObject(value)) {
      write('{');
      let first = true;
      for (const key of Object.keys(value)) {
        const item = asJson(value[key], key);
        if (item === NO_TEXT) continue;
        write(`${first ? '' : ','}${JSON.stringify(key)}:`);
        first = false;
        yield* writeValue(item, depth + 1);
      }
      write('}');
    } else {
      const json = JSON.stringify(value);
      write(json);
      if (pause(1 + (json.length >> 10))) yield;
    }
  }

  const root = asJson(value, '');
  if (root === NO_TEXT) throw new TypeError('JSON has no text for the answer');
  yield* writeValue(root, 0);
  if (text.length > 0) flush();
  return { chunks, length, etag: weakEtagOf(length, sha1.digest('base64')) };
}

const NO_TEXT = Symbol('no JSON text');

/**
 * A member as JSON.stringify sees it: through its toJSON(key) when it has one; NO_TEXT when JSON.stringify
 * leaves it out (undefined, a function, a symbol: left out of an object, null in an array).
 */
function asJson(raw: unknown, key: string): unknown {
  const withJson = raw as { toJSON?: (key: string) => unknown } | null | undefined;
  const value = typeof withJson?.toJSON === 'function' ? withJson.toJSON(key) : raw;
  return value === undefined || typeof value === 'function' || typeof value === 'symbol' ? NO_TEXT : value;
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/**
 * What `res.json(value)` sends (the same bytes, ETag, 304 and HEAD), serialised in slices (runInSlices): an
 * answer of 100 documents of 1 MB was one JSON.stringify, its bytes and its hash, seconds during which every
 * other request of the process waited. When the client goes away meanwhile (the response closes) the
 * serialising stops (runInSlices): its seconds of CPU would be spent for nobody. `signal`: the request's
 * lifetime when the route made it already (at its start, to stop its read too).
 */
export async function sendJsonInSlices(
  res: Response,
  value: unknown,
  signal: AbortSignal = requestLifetime(res),
): Promise<void> {
  sendJsonChunks(res, await runInSlices((pause) => jsonSteps(value, pause), signal));
}
