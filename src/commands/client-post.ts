import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { PublicAddressPolicy } from '../domain/public-addresses';
import { AddressRefused, checkedLookup, refusedLiteral } from './public-lookup';

/**
 * The one POST the API makes to a URL its clients name (an import's webhook, a project's enrichment
 * service): only to public addresses unless the installation allows private ones, checked on the address
 * connected to; never redirected (Node's request does not follow a 3xx: the caller sees its status); bounded
 * by the caller's signal, answer included. What the caller reads of the answer is its choice: the status
 * alone, or also the body, up to a cap.
 */

/** An answer's body was larger than the caller reads. */
export class AnswerTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`answered more than ${maxBytes} bytes`);
  }
}

export interface ClientPostOptions {
  addresses: PublicAddressPolicy;
  /** Whether private addresses may be called (the installation's *_ALLOW_PRIVATE_ADDRESSES). */
  allowPrivate: boolean;
  /**
   * Whose body is read: past `maxBytes` the call fails with AnswerTooLarge before the rest is in memory, and
   * a body cut off fails too. Absent: none is.
   */
  read?: { when: (status: number) => boolean; maxBytes: number } | undefined;
  /**
   * For an answer whose body is not read, the call ends with its status; the body is drained (thrown away)
   * up to this many bytes, or until the signal, before the connection is let go. 0: let go at once.
   */
  drainBytes: number;
}

export interface ClientAnswer {
  status: number;
  /** The body, when it was read (see ClientPostOptions.read). */
  body?: Buffer | undefined;
}

/**
 * POSTs `body` to `url` with `headers` (its content-length added). Rejects with AddressRefused when the host
 * is, or resolves to, an address that is not public (unless allowed), before anything is sent; with the
 * signal's abort, the network's error, AnswerTooLarge or an error saying the answer was cut off otherwise.
 */
export function postToClientUrl(
  url: URL,
  body: string,
  headers: OutgoingHttpHeaders,
  signal: AbortSignal,
  options: ClientPostOptions,
): Promise<ClientAnswer> {
  // Node connects to an IP address without a lookup: a literal is checked here, a name at its lookup.
  const refused = refusedLiteral(url, options.addresses, options.allowPrivate);
  if (refused !== undefined) return Promise.reject(new AddressRefused(refused));
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        lookup: checkedLookup(options.addresses, options.allowPrivate),
        signal,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const { read } = options;
        if (!read?.when(status)) {
          resolve({ status });
          res.on('error', () => undefined);
          if (options.drainBytes <= 0) {
            res.destroy();
            return;
          }
          let drained = 0;
          res.on('data', (chunk: Buffer) => {
            drained += chunk.length;
            if (drained > options.drainBytes) res.destroy();
          });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > read.maxBytes) {
            res.destroy();
            reject(new AnswerTooLarge(read.maxBytes));
          } else chunks.push(chunk);
        });
        res.on('end', () => resolve({ status, body: Buffer.concat(chunks) }));
        res.on('error', reject);
        res.on('close', () => {
          if (!res.complete) reject(new Error('the answer was cut off'));
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
