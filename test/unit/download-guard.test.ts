import { checkDownloadUrl, pickAddress } from '../../src/domain/download-guard';
import { publicAddressPolicy } from '../../src/domain/public-addresses';

// Which addresses are public is the shared policy's to say (test/unit/public-addresses.test.ts).
const policy = publicAddressPolicy();

describe('checkDownloadUrl', () => {
  it('when the URL is http or https, then it is accepted', () => {
    expect(checkDownloadUrl('https://example.com/a.png')).toMatchObject({ ok: true });
    expect(checkDownloadUrl('http://example.com:8080/a.png?x=1')).toMatchObject({ ok: true });
  });

  it.each([
    ['file:///etc/passwd', 'must be an http or https URL (file is not allowed)'],
    ['ftp://example.com/a.png', 'must be an http or https URL (ftp is not allowed)'],
    ['data:image/png;base64,AAAA', 'must be an http or https URL (data is not allowed)'],
    ['/relative/a.png', 'must be an absolute http or https URL'],
    ['https://user:secret@example.com/a.png', 'must not carry credentials'],
  ])('when the URL is %s, then it is refused: %s', (url, message) => {
    expect(checkDownloadUrl(url)).toEqual({ ok: false, issues: [{ path: [], message }] });
  });
});

describe('pickAddress', () => {
  const loopback = [{ address: '127.0.0.1', family: 4 }];
  const mixed = [
    { address: '93.184.215.14', family: 4 },
    { address: '10.0.0.5', family: 4 },
  ];

  it('when every address is public, then the first one is the one to connect to', () => {
    expect(pickAddress('example.com', [{ address: '93.184.215.14', family: 4 }], false, policy)).toEqual({
      ok: true,
      value: { address: '93.184.215.14', family: 4 },
    });
  });

  it('when one of the addresses is private, then the host is refused, naming the address', () => {
    const picked = pickAddress('rebind.example', mixed, false, policy);
    expect(picked.ok).toBe(false);
    expect(!picked.ok && picked.issues[0]!.message).toBe(
      "host 'rebind.example' resolves to 10.0.0.5, a private, loopback or link-local address, which downloads may not reach",
    );
  });

  it('when private addresses are allowed, then loopback is accepted', () => {
    expect(pickAddress('localhost', loopback, true, policy)).toEqual({ ok: true, value: loopback[0] });
  });

  it('when the host resolves to nothing, then it is refused', () => {
    expect(pickAddress('nowhere', [], true, policy)).toMatchObject({ ok: false });
  });
});
