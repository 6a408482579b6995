import { demoBaseUrl } from '../../src/cli/commands/demo';

/**
 * The base of the demo's image URLs, which its articles store: without PUBLIC_BASE_URL, where the API listens,
 * as a client on this machine (or the host a container's port is published on) would reach it.
 */
describe('demoBaseUrl', () => {
  it('when PUBLIC_BASE_URL is set, then it is the base', () => {
    expect(demoBaseUrl({ host: '0.0.0.0', port: 3000, publicBaseUrl: 'https://cms.example.com' })).toBe(
      'https://cms.example.com',
    );
  });

  it('when the API listens on a named address, then the base is that address and port', () => {
    expect(demoBaseUrl({ host: '127.0.0.1', port: 3000, publicBaseUrl: undefined })).toBe(
      'http://127.0.0.1:3000',
    );
    expect(demoBaseUrl({ host: 'cms.internal', port: 8080, publicBaseUrl: undefined })).toBe(
      'http://cms.internal:8080',
    );
  });

  it('when the API listens on every address (HOST=0.0.0.0, as in docker-compose.yml), then the base is loopback, not an address no browser opens', () => {
    expect(demoBaseUrl({ host: '0.0.0.0', port: 3000, publicBaseUrl: undefined })).toBe(
      'http://127.0.0.1:3000',
    );
    expect(demoBaseUrl({ host: '::', port: 3000, publicBaseUrl: undefined })).toBe('http://127.0.0.1:3000');
  });

  it('when HOST is an IPv6 address, then the URL has it in brackets (http://::1:3000 is no URL)', () => {
    const base = demoBaseUrl({ host: '::1', port: 3000, publicBaseUrl: undefined });
    expect(base).toBe('http://[::1]:3000');
    expect(new URL(base).port).toBe('3000');
  });
});
