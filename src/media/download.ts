import { lookup } from 'node:dns/promises';
import type { IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkDownloadUrl, pickAddress } from '../domain/download-guard';
import { quoted } from '../domain/shown-input';
import type { PublicAddressPolicy } from '../domain/public-addresses';
import { stageStream, TooLargeError } from './staging';

export interface DownloadLimits {
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** The whole download, redirects included, in milliseconds. */
  timeoutMs: number;
  /** Redirects followed before giving up. */
  maxRedirects: number;
  /** Whether private, loopback and link-local addresses may be reached (tests, closed installations). */
  allowPrivate: boolean;
}

/** A download that cannot be done, with a message for the entry's 400. */
export class DownloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DownloadError';
  }
}

export interface Downloaded {
  size: number;
  /** The Content-Type the server sent, if any: a hint only, the bytes decide. */
  contentType: string | undefined;
  /** The URL the bytes finally came from, after redirects. */
  url: URL;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The one address the request may connect to, whatever the HTTP agent asks for. */
function pinnedLookup(address: string, family: number): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

async function resolve(
  url: URL,
  allowPrivate: boolean,
  policy: PublicAddressPolicy,
): Promise<{ address: string; family: number }> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    throw new DownloadError(`host ${quoted(host)} does not resolve`);
  }
  const picked = pickAddress(host, addresses, allowPrivate, policy);
  if (!picked.ok) throw new DownloadError(picked.issues[0]!.message);
  return picked.value;
}

function get(
  url: URL,
  pinned: { address: string; family: number },
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolvePromise, reject) => {
    const req = request(url, {
      method: 'GET',
      lookup: pinnedLookup(pinned.address, pinned.family),
      signal,
      headers: { accept: 'image/*, */*;q=0.5', 'user-agent': 'broadsheet-media-import' },
    });
    req.once('response', resolvePromise);
    req.once('error', reject);
    req.end();
  });
}

/**
 * Downloads `rawUrl` into the file `path`: http(s) only, the host resolved once and the connection made to
 * that checked address (a DNS answer that changes between check and connect cannot redirect it), redirects
 * followed up to the limit (each one checked again; a loop is named as such), the body bounded in size and the
 * whole exchange in time. Throws DownloadError with the reason.
 */
export async function downloadToFile(
  rawUrl: string,
  path: string,
  limits: DownloadLimits,
  addresses: PublicAddressPolicy,
): Promise<Downloaded> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const seen = new Set<string>();
  let current = rawUrl;
  try {
    for (let redirects = 0; ; redirects += 1) {
      const checked = checkDownloadUrl(current);
      if (!checked.ok) throw new DownloadError(`the URL ${checked.issues[0]!.message}`);
      const url = checked.value;
      if (seen.has(url.href)) throw new DownloadError(`redirect loop: ${url.href} redirects back to itself`);
      seen.add(url.href);
      const pinned = await resolve(url, limits.allowPrivate, addresses);
      const response = await get(url, pinned, signal);
      if (REDIRECTS.has(response.statusCode ?? 0)) {
        response.resume();
        const location = response.headers.location;
        if (!location)
          throw new DownloadError(`the server answered ${response.statusCode} without a Location`);
        if (redirects >= limits.maxRedirects) {
          throw new DownloadError(`too many redirects (more than ${limits.maxRedirects})`);
        }
        current = new URL(location, url).href;
        continue;
      }
      if (response.statusCode !== 200) {
        response.resume();
        throw new DownloadError(`the server answered ${response.statusCode ?? 'nothing'} for ${url.href}`);
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > limits.maxBytes) {
        response.destroy();
        throw new DownloadError(
          `the asset is ${declared} bytes, larger than the limit of ${limits.maxBytes} bytes`,
        );
      }
      const size = await stageStream(response, path, limits.maxBytes, signal);
      return { size, contentType: response.headers['content-type'], url };
    }
  } catch (error) {
    if (error instanceof DownloadError) throw error;
    if (error instanceof TooLargeError) {
      throw new DownloadError(`the asset is larger than the limit of ${limits.maxBytes} bytes`);
    }
    if (signal.aborted) throw new DownloadError(`the download took longer than ${limits.timeoutMs} ms`);
    throw new DownloadError(`the download failed: ${(error as Error).message}`);
  }
}
