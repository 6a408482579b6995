import { generateKeyPairSync, sign } from 'node:crypto';
import { tokenAlgorithm, verifyEdDsaToken } from '../../src/domain/eddsa-token';

const ed25519 = generateKeyPairSync('ed25519');
const ed448 = generateKeyPairSync('ed448');
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const NOW = 1_800_000_000;

const encode = (part: unknown) => Buffer.from(JSON.stringify(part)).toString('base64url');
function signed(claims: unknown, key = ed25519.privateKey, header: object = { alg: 'EdDSA', typ: 'JWT' }) {
  const input = `${encode(header)}.${encode(claims)}`;
  return `${input}.${sign(null, Buffer.from(input), key).toString('base64url')}`;
}
const pem = (key: typeof ed25519.publicKey) => key.export({ type: 'spki', format: 'pem' }).toString();
const verifyAt = (token: string, key: Parameters<typeof verifyEdDsaToken>[1], issuer?: string) =>
  verifyEdDsaToken(token, key, { issuer, nowSeconds: NOW });

describe('verifyEdDsaToken', () => {
  it('when an Ed25519 or Ed448 token is signed by the key given (PEM or key object), then its claims are answered', () => {
    const claims = { projectId: 1, jti: 'x', iat: NOW, exp: NOW + 60, nbf: NOW };
    expect(verifyAt(signed(claims), pem(ed25519.publicKey))).toEqual({ ok: true, payload: claims });
    expect(verifyAt(signed(claims, ed448.privateKey), ed448.publicKey)).toEqual({
      ok: true,
      payload: claims,
    });
  });

  it('when the signature, the key or the token is not right, then it is invalid', () => {
    const token = signed({ projectId: 1 });
    const [header, body, signature] = token.split('.') as [string, string, string];
    const other = generateKeyPairSync('ed25519').publicKey;
    const invalid = { ok: false, reason: 'invalid' };
    for (const [name, candidate, key] of [
      ['another key', token, other],
      ['an RSA key', token, rsa.publicKey],
      ['a private key', token, ed25519.privateKey],
      ['not a key', token, 'not a key'],
      ['a changed payload', `${header}.${encode({ projectId: 2 })}.${signature}`, ed25519.publicKey],
      ['no signature', `${header}.${body}.`, ed25519.publicKey],
      ['a stray character in the signature', `${header}.${body}.${signature}!`, ed25519.publicKey],
      ['two parts', `${header}.${body}`, ed25519.publicKey],
      ['another alg', signed({ projectId: 1 }, undefined, { alg: 'RS256' }), ed25519.publicKey],
      ['a payload that is no object', signed([1, 2]), ed25519.publicKey],
      [
        'a payload that is no JSON',
        (() => {
          const input = `${encode({ alg: 'EdDSA' })}.${Buffer.from('{').toString('base64url')}`;
          return `${input}.${sign(null, Buffer.from(input), ed25519.privateKey).toString('base64url')}`;
        })(),
        ed25519.publicKey,
      ],
    ] as const) {
      expect({ name, outcome: verifyAt(candidate, key) }).toEqual({ name, outcome: invalid });
    }
  });

  it('when the dates say so, then it is expired or not yet valid, checked as jsonwebtoken checks them', () => {
    const key = ed25519.publicKey;
    expect(verifyAt(signed({ exp: NOW }), key)).toEqual({ ok: false, reason: 'expired' });
    expect(verifyAt(signed({ exp: NOW + 1 }), key).ok).toBe(true);
    expect(verifyAt(signed({ exp: 'tomorrow' }), key)).toEqual({ ok: false, reason: 'invalid' });
    expect(verifyAt(signed({ nbf: NOW + 1 }), key)).toEqual({ ok: false, reason: 'invalid' });
    expect(verifyAt(signed({ nbf: '0' }), key)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('when an issuer is required, then only a token of that issuer passes', () => {
    const key = ed25519.publicKey;
    expect(verifyAt(signed({ iss: 'https://idp' }), key, 'https://idp').ok).toBe(true);
    expect(verifyAt(signed({ iss: 'https://other' }), key, 'https://idp')).toEqual({
      ok: false,
      reason: 'invalid',
    });
    expect(verifyAt(signed({}), key, 'https://idp')).toEqual({ ok: false, reason: 'invalid' });
  });

  it('when a clock tolerance is given, then nbf may be that far ahead and exp that far behind, no further', () => {
    const key = ed25519.publicKey;
    const at = (claims: object) =>
      verifyEdDsaToken(signed(claims), key, { nowSeconds: NOW, clockToleranceSeconds: 30 });
    expect(at({ nbf: NOW + 30 }).ok).toBe(true);
    expect(at({ nbf: NOW + 31 })).toEqual({ ok: false, reason: 'invalid' });
    expect(at({ exp: NOW - 29 }).ok).toBe(true);
    expect(at({ exp: NOW - 30 })).toEqual({ ok: false, reason: 'expired' });
  });

  it('when an audience is required, then only a token naming it (alone or in its list) passes', () => {
    const key = ed25519.publicKey;
    const at = (claims: object) =>
      verifyEdDsaToken(signed(claims), key, { nowSeconds: NOW, audience: 'broadsheet' });
    expect(at({ aud: 'broadsheet' }).ok).toBe(true);
    expect(at({ aud: ['billing', 'broadsheet'] }).ok).toBe(true);
    for (const claims of [{ aud: 'billing' }, { aud: ['billing'] }, {}, { aud: 42 }]) {
      expect({ claims, outcome: at(claims) }).toEqual({ claims, outcome: { ok: false, reason: 'invalid' } });
    }
  });
});

describe('tokenAlgorithm', () => {
  it('when the header is a JWS header, then its alg; otherwise undefined', () => {
    expect(tokenAlgorithm(signed({}))).toBe('EdDSA');
    expect(tokenAlgorithm('not-a-jwt')).toBeUndefined();
    expect(tokenAlgorithm(`${encode(null)}.x.y`)).toBeUndefined();
    expect(tokenAlgorithm(`${encode({ alg: 5 })}.x.y`)).toBeUndefined();
    expect(tokenAlgorithm('.x.y')).toBeUndefined();
  });
});
