import { isIP } from 'node:net';
import { quoted } from './shown-input';

/**
 * TRUST_PROXY as Express's `trust proxy` takes it: `false` (the socket's peer is the client; X-Forwarded-For is
 * ignored), a hop count (the last `n` addresses of the chain are proxies), or the proxies' addresses, CIDR
 * ranges and proxy-addr's names. Never `true`: trusting every hop lets any client name its own address.
 */
export type TrustProxy = false | number | string[];

/** proxy-addr's named ranges. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

const MAX_HOPS = 10;

const EXPECTED =
  "expected a hop count (1, 2, ...), or a comma-separated list of the proxies' addresses or CIDR ranges " +
  "(10.0.0.0/8, 192.0.2.7, fd00::/8, loopback, linklocal, uniquelocal), or 'false'";

/** One entry of an address list: an address, `address/prefix`, or a named range; undefined when it is fine. */
function entryProblem(entry: string): string | undefined {
  if (NAMED_RANGES.has(entry)) return undefined;
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const version = isIP(address);
  if (version === 0) return `${quoted(entry)} is not an IP address, a CIDR range or a named range`;
  if (slash < 0) return undefined;
  const prefix = entry.slice(slash + 1);
  const bits = version === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) {
    return `${quoted(entry)}: the prefix length must be 0 to ${bits}`;
  }
  return undefined;
}

/**
 * Reads TRUST_PROXY: unset, blank, `false` or `0` is off; digits are a hop count (1 to 10); anything else is a
 * comma-separated list whose every entry must be an IP address, a CIDR range or a named range. `true` is
 * refused with the reason.
 */
export function parseTrustProxy(
  text: string | undefined,
): { ok: true; value: TrustProxy } | { ok: false; message: string } {
  const trimmed = (text ?? '').trim().toLowerCase();
  if (trimmed === '' || trimmed === 'false' || trimmed === '0') return { ok: true, value: false };
  if (trimmed === 'true') {
    return {
      ok: false,
      message:
        "'true' would trust every X-Forwarded-For address, so any client could choose the address it is " +
        `limited by; ${EXPECTED.replace('expected ', 'give ')}`,
    };
  }
  if (/^\d+$/.test(trimmed)) {
    const hops = Number(trimmed);
    if (hops > MAX_HOPS) return { ok: false, message: `${quoted(text ?? '')}: at most ${MAX_HOPS} hops` };
    return { ok: true, value: hops };
  }
  const entries = trimmed.split(',').map((entry) => entry.trim());
  if (entries.some((entry) => entry === '')) {
    return { ok: false, message: `${quoted(text ?? '')}: ${EXPECTED}` };
  }
  const problems = entries.map(entryProblem).filter((problem) => problem !== undefined);
  if (problems.length > 0) return { ok: false, message: `${problems.join('; ')} (${EXPECTED})` };
  return { ok: true, value: entries };
}

/**
 * The key a client address is limited by: an IPv4 address as it is (an IPv4-mapped IPv6 one, `::ffff:a.b.c.d`,
 * as the IPv4 address), an IPv6 address by its /64 network, since one subscriber is usually given a whole /64
 * and could otherwise take a fresh address for every attempt. Anything else (no address: the socket is gone) is
 * `unknown`.
 */
export function limitedAddress(address: string | undefined): string {
  if (address === undefined) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  const version = isIP(address);
  if (version === 4) return address;
  if (version !== 6) return 'unknown';
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (a zone index dropped, an IPv4 tail as two groups), lowercase. */
function ipv6Groups(address: string): string[] {
  const bare = address.split('%')[0]!.toLowerCase();
  const toGroups = (part: string): string[] => {
    if (part === '') return [];
    return part.split(':').flatMap((group) => {
      if (!group.includes('.')) return [Number.parseInt(group, 16).toString(16)];
      const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number];
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    });
  };
  const [head = '', tail] = bare.split('::');
  const first = toGroups(head);
  if (tail === undefined) return first;
  const last = toGroups(tail);
  return [...first, ...Array<string>(8 - first.length - last.length).fill('0'), ...last];
}
