import { loadConfig } from '../../src/config';

const JWKS = 'https://issuer.example/.well-known/jwks.json';

/**
 * The API's and the workers' configuration (`server`: they fail closed); "production" is any such start without
 * BROADSHEET_INSECURE_DEV_SECRET=true, whatever NODE_ENV says.
 */
function configError(env: Record<string, string>): string {
  try {
    loadConfig(env, { server: true });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}

describe('loadConfig: the search cursor key', () => {
  it('when production trusts only a JWKS and has no CURSOR_SECRET, then it refuses to start naming CURSOR_SECRET', () => {
    expect(configError({ NODE_ENV: 'production', JWKS_URL: JWKS })).toBe(
      'Invalid configuration:\n  CURSOR_SECRET: required in production without JWT_SECRET (it signs search cursors)',
    );
  });

  it('when production has no secret at all, then both JWT_SECRET and CURSOR_SECRET are named', () => {
    const message = configError({ NODE_ENV: 'production' });
    expect(message).toContain('JWT_SECRET: required in production');
    expect(message).toContain('CURSOR_SECRET: required in production without JWT_SECRET');
  });

  it('when CURSOR_SECRET is shorter than 16 characters, then it is refused', () => {
    expect(configError({ CURSOR_SECRET: 'short' })).toContain('CURSOR_SECRET: at least 16 characters');
  });

  it('when production has JWKS_URL and CURSOR_SECRET, or JWT_SECRET alone, then it starts', () => {
    expect(() =>
      loadConfig({ NODE_ENV: 'production', JWKS_URL: JWKS, CURSOR_SECRET: 'c'.repeat(32) }),
    ).not.toThrow();
    expect(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'j'.repeat(32) })).not.toThrow();
  });

  it.each(['development', 'test'])('when %s has no secret, then it starts with a development key', (env) => {
    expect(loadConfig({ NODE_ENV: env }).search.cursorKey).toHaveLength(32);
  });

  it('when the API is told BROADSHEET_INSECURE_DEV_SECRET=true and has no secret, then it starts with a random key of its own', () => {
    const env = { BROADSHEET_INSECURE_DEV_SECRET: 'true', JWKS_URL: JWKS };
    const first = loadConfig(env, { server: true }).search.cursorKey;
    expect(first).toHaveLength(32);
    expect(loadConfig(env, { server: true }).search.cursorKey.equals(first)).toBe(false);
  });

  it('when the API and the workers share CURSOR_SECRET, then they derive the same key (a cursor works on either)', () => {
    const env = { JWKS_URL: JWKS, CURSOR_SECRET: 'c'.repeat(32) };
    expect(
      loadConfig(env, { server: true }).search.cursorKey.equals(
        loadConfig(env, { server: true }).search.cursorKey,
      ),
    ).toBe(true);
  });

  it('when the key is derived, then it is 32 bytes from HKDF, never the secret, and follows CURSOR_SECRET over JWT_SECRET', () => {
    const jwtSecret = 'j'.repeat(32);
    const fromJwt = loadConfig({ JWT_SECRET: jwtSecret }).search.cursorKey;
    const fromCursor = loadConfig({ JWT_SECRET: jwtSecret, CURSOR_SECRET: 'c'.repeat(32) }).search.cursorKey;
    expect(fromJwt).toHaveLength(32);
    expect(fromJwt.equals(Buffer.from(jwtSecret))).toBe(false);
    expect(fromCursor.equals(fromJwt)).toBe(false);
    expect(loadConfig({ JWT_SECRET: jwtSecret }).search.cursorKey.equals(fromJwt)).toBe(true);
  });
});
