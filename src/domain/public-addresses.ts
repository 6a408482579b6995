import { BlockList, isIP } from 'node:net';

/**
 * Which IP addresses an outgoing call the API makes on a client's behalf (an import's webhook, an asset
 * download of the media import) may reach:
 * only public ones, unless the installation allows private addresses. Everything a client could use to
 * reach the installation's own network or the machine itself is refused: loopback, private (RFC 1918,
 * unique-local), link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, unspecified, multicast,
 * reserved and documentation ranges, and IPv6 forms that embed an IPv4 address (mapped, NAT64), judged by
 * the embedded address.
 */
function nonPublicRanges(): BlockList {
  const list = new BlockList();
  const v4: [string, number][] = [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.88.99.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ];
  for (const [network, prefix] of v4) list.addSubnet(network, prefix, 'ipv4');
  const v6: [string, number][] = [
    ['::', 128],
    ['::1', 128],
    ['64:ff9b:1::', 48],
    ['100::', 64],
    ['2001::', 23],
    ['2001:db8::', 32],
    ['fc00::', 7],
    ['fe80::', 10],
    ['fec0::', 10],
    ['ff00::', 8],
  ];
  for (const [network, prefix] of v6) list.addSubnet(network, prefix, 'ipv6');
  return list;
}

/** The IPv4 address an IPv6 address embeds (::ffff:a.b.c.d, ::a.b.c.d, 64:ff9b::a.b.c.d), if any. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const high = parseInt(hex[1]!, 16);
    const low = parseInt(hex[2]!, 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return undefined;
}

/** A reusable judge of addresses (the BlockList is built once, by its owner). */
export function publicAddressPolicy() {
  const ranges = nonPublicRanges();
  const isPublic = (address: string): boolean => {
    const version = isIP(address);
    if (version === 4) return !ranges.check(address, 'ipv4');
    if (version === 6) {
      const v4 = embeddedIpv4(address);
      if (v4 !== undefined) return isPublic(v4);
      return !ranges.check(address, 'ipv6');
    }
    return false;
  };
  return { isPublic };
}

export type PublicAddressPolicy = ReturnType<typeof publicAddressPolicy>;

/** A URL's host as an IP address when it is one (`[::1]` → `::1`), else undefined (a name to resolve). */
export function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? undefined : bare;
}
