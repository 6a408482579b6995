import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lazyModule } from '../../src/lazy-module';

/** The heavy packages a read-only delivery request never needs (src/lazy-module.ts). */
const LAZY_PACKAGES = ['@aws-sdk/client-s3', 'sharp', 'sanitize-html', 'jwks-rsa'];

describe('lazyModule', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lazy-module-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('when the package is not installed, then making the loader fails at once, naming it', () => {
    expect(() => lazyModule('broadsheet-no-such-package')).toThrow(/broadsheet-no-such-package/);
  });

  it('when the module is loaded twice, then it is evaluated once and the same module comes back', () => {
    const path = join(dir, 'counted.js');
    writeFileSync(path, 'globalThis.countedLoads = (globalThis.countedLoads ?? 0) + 1; module.exports = {};');
    const load = lazyModule<object>(path);
    const loads = () => (globalThis as { countedLoads?: number }).countedLoads ?? 0;
    expect(loads()).toBe(0);
    const first = load();
    expect(load()).toBe(first);
    expect(loads()).toBe(1);
  });

  it('when the module fails as it loads, then the error names the package and keeps the cause', () => {
    const path = join(dir, 'broken.js');
    writeFileSync(path, "throw new Error('no native binary for this platform');");
    const load = lazyModule(path);
    let failure: unknown;
    try {
      load();
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe(
      `could not load the package ${path}: no native binary for this platform`,
    );
    expect(((failure as Error).cause as Error).message).toBe('no native binary for this platform');
  });
});

describe('the API process at startup', () => {
  it('when its modules are loaded, then none of the heavy packages is, until first used', () => {
    jest.isolateModules(() => {
      const loaded: string[] = [];
      for (const name of LAZY_PACKAGES) {
        jest.doMock(name, () => {
          loaded.push(name);
          return jest.requireActual(name);
        });
      }
      // What src/main.ts loads: the context (pool, search, object store, commands, auth) and the app's routes.
      jest.requireActual('../../src/context');
      jest.requireActual('../../src/http/app');
      expect(loaded).toEqual([]);

      const { sanitiseMessage } = jest.requireActual<typeof import('../../src/commands/add-delivery-status')>(
        '../../src/commands/add-delivery-status',
      );
      expect(sanitiseMessage('<b onclick="x()">done</b>')).toBe('<b>done</b>');
      expect(loaded).toEqual(['sanitize-html']);
    });
  });
});
