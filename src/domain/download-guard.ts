import type { PublicAddressPolicy } from './public-addresses';
import { quoted } from './shown-input';
import { invalid, valid, type Checked } from './validation';

/**
 * What the server may download an asset from (POST import/mediaLibrary with `asset.url`): http(s) URLs only,
 * and, unless the installation allows it (MEDIA_DOWNLOAD_ALLOW_PRIVATE=true), only public addresses: a URL
 * must not make the server reach its own loopback, the private network it runs in, or a cloud metadata
 * service (judged by the installation's PublicAddressPolicy, the one import webhooks use). Pure: the caller
 * resolves the host once and connects to the address checked here.
 */

/** A URL the server may download from: absolute, http or https, without credentials. */
export function checkDownloadUrl(raw: string): Checked<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return invalid([{ path: [], message: 'must be an absolute http or https URL' }]);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return invalid([
      {
        path: [],
        message: `must be an http or https URL (${url.protocol.replace(/:$/, '')} is not allowed)`,
      },
    ]);
  }
  if (url.username !== '' || url.password !== '') {
    return invalid([{ path: [], message: 'must not carry credentials' }]);
  }
  return valid(url);
}

/**
 * The address to connect to among those the host resolved to: the first, when every one of them is public
 * (or private addresses are allowed); otherwise a message saying which address was refused.
 */
export function pickAddress(
  host: string,
  addresses: readonly { address: string; family: number }[],
  allowPrivate: boolean,
  policy: PublicAddressPolicy,
): Checked<{ address: string; family: number }> {
  const first = addresses[0];
  if (!first) return invalid([{ path: [], message: `host ${quoted(host)} does not resolve` }]);
  if (!allowPrivate) {
    const refused = addresses.find((entry) => !policy.isPublic(entry.address));
    if (refused) {
      return invalid([
        {
          path: [],
          message: `host ${quoted(host)} resolves to ${refused.address}, a private, loopback or link-local address, which downloads may not reach`,
        },
      ]);
    }
  }
  return valid(first);
}
