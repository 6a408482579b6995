import { loggableUrl } from '../../src/domain/loggable-url';

describe('loggableUrl', () => {
  it('when the URL has no query, then it is kept as is', () => {
    expect(loggableUrl('/api/2026-03/projectConfig')).toBe('/api/2026-03/projectConfig');
  });

  it('when query parameters name credentials, then only their values are redacted', () => {
    expect(loggableUrl('/p?access_token=eyJ.x.y&lang=en&client_secret=s3&api-key=k&q=token')).toBe(
      '/p?access_token=[REDACTED]&lang=en&client_secret=[REDACTED]&api-key=[REDACTED]&q=token',
    );
  });

  it('when the name is escaped, in another case, or has no value, then it is still recognised', () => {
    expect(loggableUrl('/p?acc%65ss_Token=abc&PASSWORD&Authorization=Bearer+x&a=%zz')).toBe(
      '/p?acc%65ss_Token=[REDACTED]&PASSWORD=[REDACTED]&Authorization=[REDACTED]&a=%zz',
    );
  });

  it('when a parameter only resembles one, then it is kept', () => {
    expect(loggableUrl('/p?author=ann&authored=1&sort=-date')).toBe('/p?author=ann&authored=1&sort=-date');
  });

  it('when an absolute URL carries a user and password, then they are redacted with its credential parameters', () => {
    expect(loggableUrl('https://hook:s3cr@t@example.com:8443/in?token=abc&batch=1')).toBe(
      'https://[REDACTED]@example.com:8443/in?token=[REDACTED]&batch=1',
    );
    expect(loggableUrl('https://example.com/a@b?x=1')).toBe('https://example.com/a@b?x=1');
  });
});
