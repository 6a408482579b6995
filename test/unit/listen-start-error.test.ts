import { listenStartError } from '../../src/http/server';

describe('listenStartError', () => {
  it('when the port cannot be opened, then the address, the variables and what it means are said', () => {
    const cases: [string, string][] = [
      ['EADDRINUSE', 'another process is listening on that port'],
      ['EACCES', 'permission denied (a port below 1024 needs privileges)'],
      ['EADDRNOTAVAIL', 'the address is not one of this machine'],
      ['ENOTFOUND', 'the host name does not resolve'],
    ];
    for (const [code, meaning] of cases) {
      const error = listenStartError(
        Object.assign(new Error('listen'), { code }),
        '10.0.0.7',
        80,
        'HOST, PORT',
      );
      expect((error as Error).message).toBe(
        `cannot listen on 10.0.0.7:80 (HOST, PORT): ${meaning} (${code})`,
      );
    }
  });

  it('when the error is anything else, then it is returned as it is', () => {
    const other = Object.assign(new Error('boom'), { code: 'EOTHER' });
    expect(listenStartError(other, '127.0.0.1', 3000, 'HOST, PORT')).toBe(other);
    expect(listenStartError('text', '127.0.0.1', 3000, 'HOST, PORT')).toBe('text');
  });
});
