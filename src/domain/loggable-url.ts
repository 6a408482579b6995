/** Query parameter names whose values are credentials (`access_token`, `client_secret`, `api_key`, ...). */
const CREDENTIAL_PARAMETER = /token|secret|passw|api[-_]?key|credential|signature|^auth(orization)?$/i;

/** `scheme://user:password@`: the credentials of an absolute URL, up to the authority's last `@`. */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#\\]*@/i;

/**
 * A URL as it may be logged: the value of every query parameter that names a credential is `[REDACTED]`, and
 * so are the user and password of an absolute URL (an import's webhook may carry either). Tokens are refused
 * in the query string (only the Authorization header carries them), but a client that sends one anyway must
 * not leave it in the logs. The rest of the URL is kept as sent.
 */
export function loggableUrl(sent: string): string {
  const url = sent.replace(USERINFO, '$1[REDACTED]@');
  const start = url.indexOf('?');
  if (start < 0) return url;
  const pairs = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const end = pair.indexOf('=');
      const rawName = end < 0 ? pair : pair.slice(0, end);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // A malformed escape: the name is matched as sent.
      }
      return CREDENTIAL_PARAMETER.test(name) ? `${rawName}=[REDACTED]` : pair;
    });
  return `${url.slice(0, start)}?${pairs.join('&')}`;
}
