import { createPublicKey, verify, type KeyObject } from 'node:crypto';

/** The claims of a verified token, as jsonwebtoken's verify answers them. */
export type TokenPayload = Record<string, unknown>;

export type EdDsaVerification =
  { ok: true; payload: TokenPayload } | { ok: false; reason: 'invalid' | 'expired' };

/** The curves of RFC 8037's `EdDSA` (OKP keys). */
const EDDSA_KEY_TYPES: ReadonlySet<string> = new Set(['ed25519', 'ed448']);

/** The `alg` of a compact JWS's header, or undefined when the header is not one. */
export function tokenAlgorithm(token: string): string | undefined {
  const end = token.indexOf('.');
  if (end <= 0) return undefined;
  try {
    const header: unknown = JSON.parse(Buffer.from(token.slice(0, end), 'base64url').toString('utf8'));
    const alg = (header as { alg?: unknown } | null)?.alg;
    return typeof alg === 'string' ? alg : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Verifies an `EdDSA` token (RFC 8037: Ed25519 or Ed448) with the public key its `kid` names, and checks its
 * dates and issuer as jsonwebtoken checks those of the other algorithms: jsonwebtoken (9.x) cannot verify
 * EdDSA at all, so without this every EdDSA token of a JWKS_URL was refused as invalid, though documented as
 * accepted. Order as jsonwebtoken's: signature, `nbf`, `exp` (expired), `aud`, `iss`; `clockToleranceSeconds`
 * as jsonwebtoken's `clockTolerance` (default 0), `audience` matching `aud` or one of its list.
 */
export function verifyEdDsaToken(
  token: string,
  key: string | KeyObject,
  options: {
    issuer?: string | undefined;
    audience?: string | undefined;
    nowSeconds: number;
    clockToleranceSeconds?: number;
  },
): EdDsaVerification {
  const invalid = { ok: false, reason: 'invalid' } as const;
  const parts = token.split('.');
  if (parts.length !== 3) return invalid;
  const [header, body, signature] = parts as [string, string, string];
  if (tokenAlgorithm(token) !== 'EdDSA') return invalid;

  let publicKey: KeyObject;
  try {
    publicKey = typeof key === 'string' ? createPublicKey(key) : key;
  } catch {
    return invalid;
  }
  if (publicKey.type !== 'public' || !EDDSA_KEY_TYPES.has(publicKey.asymmetricKeyType ?? '')) return invalid;
  const signatureBytes = Buffer.from(signature, 'base64url');
  // Only the canonical spelling: Node's decoder skips stray characters, so variants would verify too.
  if (signatureBytes.length === 0 || signatureBytes.toString('base64url') !== signature) return invalid;
  if (!verify(null, Buffer.from(`${header}.${body}`), publicKey, signatureBytes)) return invalid;

  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return invalid;
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return invalid;
  const claims = payload as TokenPayload;
  const tolerance = options.clockToleranceSeconds ?? 0;
  if (claims.nbf !== undefined) {
    if (typeof claims.nbf !== 'number' || claims.nbf > options.nowSeconds + tolerance) return invalid;
  }
  if (claims.exp !== undefined) {
    if (typeof claims.exp !== 'number') return invalid;
    if (options.nowSeconds >= claims.exp + tolerance) return { ok: false, reason: 'expired' };
  }
  if (options.audience !== undefined) {
    const audiences: unknown[] = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!audiences.includes(options.audience)) return invalid;
  }
  if (options.issuer !== undefined && claims.iss !== options.issuer) return invalid;
  return { ok: true, payload: claims };
}
