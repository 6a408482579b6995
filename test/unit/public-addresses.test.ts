import { literalAddress, publicAddressPolicy } from '../../src/domain/public-addresses';

describe('publicAddressPolicy', () => {
  const { isPublic } = publicAddressPolicy();

  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.8',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '198.18.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.1.2.3',
    '64:ff9b::192.168.0.1',
    '64:ff9b::10.0.0.1',
    '::ffff:a9fe:a9fe',
    '64:ff9b:1::1',
    '2001:2::1',
    '2001:db8::1',
    'localhost',
    'not an address',
  ])('when the address is %s, then it is not public', (address) => {
    expect(isPublic(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'when the address is %s, then it is public',
    (address) => {
      expect(isPublic(address)).toBe(true);
    },
  );
});

describe('literalAddress', () => {
  it('when the host is an IP, bracketed or not, then the bare address; a name, then undefined', () => {
    expect(literalAddress('[::1]')).toBe('::1');
    expect(literalAddress('127.0.0.1')).toBe('127.0.0.1');
    expect(literalAddress('example.com')).toBeUndefined();
    expect(literalAddress('localhost')).toBeUndefined();
  });
});
