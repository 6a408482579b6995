import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { literalAddress, type PublicAddressPolicy } from '../domain/public-addresses';

/**
 * The address checks of the calls the API makes to URLs its clients name (an import's webhook, a project's
 * enrichment service): only public addresses, unless the installation allows private ones.
 */

/** A lookup refused because the host resolves to an address that is not public. */
export class AddressRefused extends Error {}

/**
 * Why a URL whose host is an IP address may not be called (Node connects to a literal without a lookup), or
 * undefined when it may, or when its host is a name (left to checkedLookup).
 */
export function refusedLiteral(
  url: URL,
  policy: PublicAddressPolicy,
  allowPrivate: boolean,
): string | undefined {
  const literal = literalAddress(url.hostname);
  if (literal === undefined || allowPrivate || policy.isPublic(literal)) return undefined;
  return `${literal} is not a public address`;
}

/**
 * Resolves a host as Node would, refusing it when any of its addresses is not public (unless allowed): the
 * address checked is the address connected to, so a name that resolves differently the second time (DNS
 * rebinding) cannot slip past the check.
 */
export function checkedLookup(policy: PublicAddressPolicy, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const refused = allowPrivate ? undefined : addresses.find((entry) => !policy.isPublic(entry.address));
      if (refused) {
        callback(
          new AddressRefused(`${hostname} resolves to ${refused.address}, which is not a public address`),
          '',
          0,
        );
        return;
      }
      if (options.all) {
        (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      } else {
        const first = addresses[0]!;
        callback(null, first.address, first.family);
      }
    });
  };
}
