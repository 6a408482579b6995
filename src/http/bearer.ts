/** RFC 6750 §2.1 `credentials = "Bearer" 1*SP b64token`, the scheme in any case (RFC 7235 §2.1). */
const BEARER_CREDENTIALS = /^bearer +(\S+)$/i;

/**
 * The token of an `Authorization` header that holds bearer credentials, or undefined (no header, another
 * scheme, a bare scheme). One reading for the API's client tokens (authenticate.ts) and the metrics token
 * (metrics.ts), so `bearer  <token>` is honoured by both or by neither.
 */
export function bearerToken(authorization: string | undefined): string | undefined {
  return BEARER_CREDENTIALS.exec(authorization ?? '')?.[1];
}
