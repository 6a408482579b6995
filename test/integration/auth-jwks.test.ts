import { generateKeyPairSync, randomUUID, sign as signBytes, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';

/** Tokens signed by an identity provider whose public keys a JWKS endpoint serves (supplement §2). */
let jwks: Server;
let app: TestApp;
let projectId: number;
let channelId: number;
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const kid = 'test-key-1';
/** The identity provider's other keys: P-256 (ES256) and Ed25519 (EdDSA), served beside the RSA one. */
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ed = generateKeyPairSync('ed25519');
/** A key the JWKS serves that no token names until the test of the refetch budget. */
const late = generateKeyPairSync('rsa', { modulusLength: 2048 });
/** How the JWKS endpoint answers: its keys, a 500, or never. */
let jwksMode: 'keys' | 'fails' | 'hangs' = 'keys';

beforeAll(async () => {
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' };
  const ecJwk = { ...ec.publicKey.export({ format: 'jwk' }), kid: 'ec-key', use: 'sig', alg: 'ES256' };
  const edJwk = { ...ed.publicKey.export({ format: 'jwk' }), kid: 'ed-key', use: 'sig', alg: 'EdDSA' };
  const lateJwk = { ...late.publicKey.export({ format: 'jwk' }), kid: 'late-key', use: 'sig', alg: 'RS256' };
  jwks = createServer((_req, res) => {
    if (jwksMode === 'hangs') return;
    if (jwksMode === 'fails') {
      res.statusCode = 500;
      res.end('identity provider down');
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk, ecJwk, edJwk, lateJwk] }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  const { port } = jwks.address() as AddressInfo;
  app = await startTestApp({ env: { JWKS_URL: `http://127.0.0.1:${port}/.well-known/jwks.json` } });
  ({ projectId, channelId } = await createTestProject(app.ctx));
});
afterAll(async () => {
  await app.close();
  jwks.closeAllConnections();
  await new Promise((resolve) => jwks.close(resolve));
});

const signRs256 = (claims: object, options: jwt.SignOptions) =>
  jwt.sign(claims, privateKey, { algorithm: 'RS256', keyid: kid, ...options });

/** jsonwebtoken signs no EdDSA: a compact JWS (RFC 8037) made by hand, as an identity provider makes it. */
const signEdDsa = (claims: object, header: object = { kid: 'ed-key' }, key: KeyObject = ed.privateKey) => {
  const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
  const input = `${encode({ alg: 'EdDSA', typ: 'JWT', ...header })}.${encode(claims)}`;
  return `${input}.${signBytes(null, Buffer.from(input), key).toString('base64url')}`;
};

describe('tokens from a JWKS', () => {
  it('when an RS256 token from the JWKS names a known client, then it is accepted', async () => {
    const { clientId } = await tokenFor(app.ctx, projectId, ['public-api:config:read']);
    const token = signRs256(
      { projectId, channelId, scope: 'public-api:config:read', type: 'client' },
      { jwtid: clientId },
    );
    const response = await apiClient(app.url, token).get('projectConfig');
    expect(response.status).toBe(200);
  });

  it('when an RS256 token names no known client, then 401 invalid', async () => {
    const token = signRs256(
      { projectId, channelId, scope: 'public-api:config:read', type: 'client' },
      { jwtid: randomUUID() },
    );
    const response = await apiClient(app.url, token).get('projectConfig');
    expect(response.status).toBe(401);
    expect(response.body.error_details).toEqual({ access_token: 'The access token is invalid.' });
  });

  it('when the token is signed by a key the JWKS does not serve, then 401 invalid', async () => {
    const { clientId } = await tokenFor(app.ctx, projectId, ['public-api:config:read']);
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const token = jwt.sign({ projectId, channelId, scope: 'public-api:config:read', type: 'client' }, other, {
      algorithm: 'RS256',
      keyid: kid,
      jwtid: clientId,
    });
    const response = await apiClient(app.url, token).get('projectConfig');
    expect(response.status).toBe(401);
    expect(response.body.error_details).toEqual({ access_token: 'The access token is invalid.' });
  });

  it('when ES256 and EdDSA tokens from the JWKS name a known client, then they are accepted (README: RS256/ES256/EdDSA)', async () => {
    const { clientId } = await tokenFor(app.ctx, projectId, ['public-api:config:read']);
    const claims = { projectId, channelId, scope: 'public-api:config:read', type: 'client', jti: clientId };
    const es256 = jwt.sign(claims, ec.privateKey, { algorithm: 'ES256', keyid: 'ec-key' });
    expect((await apiClient(app.url, es256).get('projectConfig')).status).toBe(200);
    const eddsa = signEdDsa({ ...claims, iat: Math.floor(Date.now() / 1000) });
    const response = await apiClient(app.url, eddsa).get('projectConfig');
    expect({ status: response.status, project: response.body.settings !== undefined }).toEqual({
      status: 200,
      project: true,
    });
  });

  it('when an EdDSA token is forged, expired, not yet valid or names another key, then 401 naming why', async () => {
    const { clientId } = await tokenFor(app.ctx, projectId, ['public-api:config:read']);
    const claims = { projectId, channelId, scope: 'public-api:config:read', type: 'client', jti: clientId };
    const now = Math.floor(Date.now() / 1000);
    const invalid = { access_token: 'The access token is invalid.' };
    const cases: [string, string, object][] = [
      [
        'another Ed25519 key',
        signEdDsa(claims, undefined, generateKeyPairSync('ed25519').privateKey),
        invalid,
      ],
      ['the EC key named', signEdDsa(claims, { kid: 'ec-key' }), invalid],
      ['a kid the JWKS lacks', signEdDsa(claims, { kid: `gone-${randomUUID()}` }), invalid],
      [
        'a changed payload',
        `${signEdDsa(claims).split('.')[0]}.${Buffer.from(JSON.stringify({ ...claims, projectId: projectId + 1 })).toString('base64url')}.${signEdDsa(claims).split('.')[2]}`,
        invalid,
      ],
      ['no signature', `${signEdDsa(claims).split('.').slice(0, 2).join('.')}.`, invalid],
      ['nbf in an hour', signEdDsa({ ...claims, nbf: now + 3600 }), invalid],
      ['exp passed', signEdDsa({ ...claims, exp: now - 60 }), { access_token: 'The access token expired.' }],
    ];
    for (const [name, token, details] of cases) {
      const response = await apiClient(app.url, token).get('projectConfig');
      expect({ name, status: response.status, details: response.body.error_details }).toEqual({
        name,
        status: 401,
        details,
      });
    }
  });

  it("when the identity provider's clock is a few seconds off, then its tokens are accepted (nbf ahead, exp just passed)", async () => {
    const { clientId } = await tokenFor(app.ctx, projectId, ['public-api:config:read']);
    const claims = { projectId, channelId, scope: 'public-api:config:read', type: 'client' };
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, string][] = [
      ['RS256 issued 5 s ahead', signRs256({ ...claims, iat: now + 5, nbf: now + 5 }, { jwtid: clientId })],
      ['RS256 expired 5 s ago', signRs256({ ...claims, iat: now - 65, exp: now - 5 }, { jwtid: clientId })],
      ['EdDSA issued 5 s ahead', signEdDsa({ ...claims, jti: clientId, iat: now + 5, nbf: now + 5 })],
      ['EdDSA expired 5 s ago', signEdDsa({ ...claims, jti: clientId, iat: now - 65, exp: now - 5 })],
    ];
    for (const [name, token] of cases) {
      const response = await apiClient(app.url, token).get('projectConfig');
      expect({ name, status: response.status, details: response.body.error_details }).toEqual({
        name,
        status: 200,
        details: undefined,
      });
    }
  });

  it('when HS256 tokens signed by the server secret are used beside the JWKS, then they still work', async () => {
    const { token } = await tokenFor(app.ctx, projectId, ['public-api:config:read']);
    expect((await apiClient(app.url, token).get('projectConfig')).status).toBe(200);
  });

  describe('when the JWKS endpoint cannot give the key', () => {
    afterEach(() => {
      jwksMode = 'keys';
    });
    const tokenOfNewKey = (clientId: string) =>
      jwt.sign({ projectId, channelId, scope: 'public-api:config:read', type: 'client' }, privateKey, {
        algorithm: 'RS256',
        keyid: `rotated-${randomUUID()}`,
        jwtid: clientId,
      });
    const unavailable = {
      status: 503,
      error: 'Service Unavailable',
      error_details: {
        name: 'KeySetUnavailable',
        message:
          'The keys that verify access tokens (JWKS_URL) cannot be fetched right now; try again in a few seconds',
      },
    };

    it('when the endpoint fails, then 503 KeySetUnavailable with Retry-After, not a 500', async () => {
      const { clientId } = await tokenFor(app.ctx, projectId, ['public-api:config:read']);
      jwksMode = 'fails';
      const response = await apiClient(app.url, tokenOfNewKey(clientId)).get('projectConfig');
      expect(response.body).toEqual(unavailable);
      expect(response.headers.get('retry-after')).toBe('5');
    });

    it('when the endpoint hangs, then 503 KeySetUnavailable within seconds, not after 30 s blaming the database', async () => {
      const { clientId } = await tokenFor(app.ctx, projectId, ['public-api:config:read']);
      jwksMode = 'hangs';
      const started = Date.now();
      const response = await apiClient(app.url, tokenOfNewKey(clientId)).get('projectConfig');
      expect(response.body).toEqual(unavailable);
      expect(Date.now() - started).toBeLessThan(10_000);
    }, 20_000);

    it('when tokens name more unknown kids than the JWKS may be refetched for, then each is 401 invalid, not a 500', async () => {
      const { clientId } = await tokenFor(app.ctx, projectId, ['public-api:config:read']);
      const statuses: number[] = [];
      for (let i = 0; i < 14; i += 1) {
        const response = await apiClient(app.url, tokenOfNewKey(clientId)).get('projectConfig');
        statuses.push(response.status);
        expect(response.body.error_details).toEqual({ access_token: 'The access token is invalid.' });
      }
      expect(new Set(statuses)).toEqual(new Set([401]));
    });

    it('when tokens of made-up kids used up the refetches, then a token of a key the JWKS serves is still accepted', async () => {
      // Anyone can send tokens naming made-up kids: they must not lock out the keys the identity provider
      // serves (a kid not used before in this process, as after a restart or a key rotation).
      const { clientId } = await tokenFor(app.ctx, projectId, ['public-api:config:read']);
      for (let i = 0; i < 14; i += 1) {
        expect((await apiClient(app.url, tokenOfNewKey(clientId)).get('projectConfig')).status).toBe(401);
      }
      const token = jwt.sign(
        { projectId, channelId, scope: 'public-api:config:read', type: 'client' },
        late.privateKey,
        { algorithm: 'RS256', keyid: 'late-key', jwtid: clientId },
      );
      const response = await apiClient(app.url, token).get('projectConfig');
      expect({
        status: response.status,
        body: response.status === 200 ? 'the config' : response.body,
      }).toEqual({
        status: 200,
        body: 'the config',
      });
    });
  });
});
