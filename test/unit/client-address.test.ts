import express from 'express';
import { limitedAddress, parseTrustProxy } from '../../src/domain/client-address';

describe('limitedAddress: the key a client address is limited by', () => {
  it('when the address is IPv4, or IPv4 mapped into IPv6, then it is the IPv4 address', () => {
    expect(limitedAddress('203.0.113.7')).toBe('203.0.113.7');
    expect(limitedAddress('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(limitedAddress('::FFFF:127.0.0.1')).toBe('127.0.0.1');
  });

  it('when the address is IPv6, then it is its /64 network, however the address is written', () => {
    expect(limitedAddress('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(limitedAddress('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(limitedAddress('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(limitedAddress('::1')).toBe('0:0:0:0::/64');
    expect(limitedAddress('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(limitedAddress('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(limitedAddress('2001:db8:1:3::1')).not.toBe(limitedAddress('2001:db8:1:2::1'));
  });

  it('when there is no address (the socket is gone) or it is not one, then unknown', () => {
    expect(limitedAddress(undefined)).toBe('unknown');
    expect(limitedAddress('not an address')).toBe('unknown');
  });
});

describe('parseTrustProxy', () => {
  it('when a refused entry or value is long, then the message repeats it cut, not whole', () => {
    const entry = `10.0.0.1${'x'.repeat(9_992)}`;
    const parsed = parseTrustProxy(`loopback, ${entry}`);
    expect(!parsed.ok && parsed.message).toMatch(
      /^'10\.0\.0\.1x{92}…' \(10000 characters\) is not an IP address, a CIDR range or a named range \(expected /,
    );
    const hops = parseTrustProxy('9'.repeat(10_000));
    expect(hops).toEqual({ ok: false, message: `'${'9'.repeat(100)}…' (10000 characters): at most 10 hops` });
  });

  /** The address Express gives req.ip for a request from `peer` that says `forwardedFor`. */
  function clientAddress(setting: unknown, peer: string, forwardedFor: string): string {
    const app = express();
    app.set('trust proxy', setting);
    const trust = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
    // Express's req.ip: proxy-addr walks the chain from the socket, nearest first, while each hop is trusted.
    const chain = [
      peer,
      ...forwardedFor
        .split(',')
        .map((part) => part.trim())
        .reverse(),
    ];
    let index = 0;
    while (index < chain.length - 1 && trust(chain[index]!, index)) index += 1;
    return chain[index]!;
  }

  const value = (text: string) => {
    const parsed = parseTrustProxy(text);
    if (!parsed.ok) throw new Error(parsed.message);
    return parsed.value;
  };

  it('when off, then the socket peer is the client whatever X-Forwarded-For says', () => {
    expect(clientAddress(value('false'), '127.0.0.1', '192.0.2.1')).toBe('127.0.0.1');
  });

  it('when a hop count, then the address that many hops back', () => {
    expect(clientAddress(value('1'), '10.0.0.5', '198.51.100.9, 192.0.2.1')).toBe('192.0.2.1');
    expect(clientAddress(value('2'), '10.0.0.5', '198.51.100.9, 192.0.2.1')).toBe('198.51.100.9');
  });

  it('when a list, then the first address from the socket that is not a trusted proxy', () => {
    const setting = value('10.0.0.0/8, loopback');
    expect(clientAddress(setting, '10.1.2.3', '192.0.2.66, 127.0.0.1')).toBe('192.0.2.66');
    // A client that is not a trusted proxy cannot name another address.
    expect(clientAddress(setting, '192.0.2.66', '198.51.100.1')).toBe('192.0.2.66');
  });
});
