import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';

// The build alone takes 20-60 s of CPU on a shared machine.
jest.setTimeout(240_000);

/**
 * The production path, as `npm start`, `npm run workers` and the Docker image run it: `npm run build`, then plain
 * `node` on dist/, with no TypeScript tooling and no Node flags (NODE_OPTIONS is left out of the environment).
 */
const root = path.resolve(__dirname, '../..');
const API = 'dist/src/main.js';
const WORKERS = 'dist/workers/main.js';

interface Started {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the first match of `pattern` in the process's output. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

function startNode(script: string, env: Record<string, string>): Started {
  return startProcess(process.execPath, [script], env);
}

function startProcess(file: string, args: string[], env: Record<string, string>): Started {
  const child = spawn(file, args, {
    cwd: root,
    // Only what the process is given here: no NODE_OPTIONS, no JWT_SECRET inherited from the test run.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => text,
    exited,
    waitFor(pattern) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(text);
          if (!match) return;
          listeners.delete(check);
          resolve(match);
        };
        listeners.add(check);
        void exited.then(() => {
          if (listeners.delete(check)) reject(new Error(`exited before ${pattern}: ${text}`));
        });
        check();
      });
    },
  };
}

let app: TestApp;
let services: Record<string, string>;
const running: Started[] = [];

// dist/ is built by the run's global setup (test/helpers/global-setup.ts).
beforeAll(async () => {
  services = {
    ...(await isolatedEnv('prod')),
    ELASTICSEARCH_URL: process.env.ELASTICSEARCH_URL ?? '',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
  };
  app = await startTestApp({ env: services });
});

afterAll(async () => {
  for (const started of running) started.child.kill('SIGKILL');
  await app.close();
});

function start(script: string, env: Record<string, string>): Started {
  const started = startNode(script, env);
  running.push(started);
  return started;
}

async function stopsCleanly(started: Started): Promise<void> {
  started.child.kill('SIGTERM');
  const code = await started.exited;
  expect({ code, signal: started.child.signalCode, output: started.output() }).toMatchObject({ code: 0 });
}

describe('the compiled API and workers', () => {
  it.each([
    ['API', API],
    ['workers', WORKERS],
  ])(
    'when neither JWT_SECRET nor JWKS_URL is set, then the %s refuse to start and name JWT_SECRET',
    async (_name, script) => {
      const started = start(script, services);
      expect(await started.exited).toBe(1);
      expect(started.output()).toContain('Invalid configuration');
      expect(started.output()).toContain('JWT_SECRET: required');
    },
  );

  it('when JWT_SECRET is too short, then the API refuses to start and says why', async () => {
    const started = start(API, { ...services, JWT_SECRET: 'short' });
    expect(await started.exited).toBe(1);
    expect(started.output()).toContain('JWT_SECRET: at least 16 characters');
  });

  it.each([
    ['API', [API]],
    ['workers', [WORKERS]],
    ['CLI migrate', ['dist/src/cli/main.js', 'migrate']],
    ['CLI demo', ['dist/src/cli/main.js', 'demo']],
  ])(
    'when Postgres cannot be reached at start, then the %s exit 1 naming DATABASE_URL (password hidden) and why',
    async (_name, args) => {
      const started = startProcess(process.execPath, args, {
        ...services,
        JWT_SECRET: 'a-secret-of-the-test-run-0123456789',
        // Nothing listens on port 1.
        DATABASE_URL: 'postgres://broadsheet:hunter2@127.0.0.1:1/broadsheet',
      });
      running.push(started);
      expect(await started.exited).toBe(1);
      expect(started.output()).toContain(
        'cannot use Postgres at DATABASE_URL=postgres://broadsheet:[REDACTED]@127.0.0.1:1/broadsheet: ' +
          'connect ECONNREFUSED 127.0.0.1:1',
      );
      expect(started.output()).not.toContain('hunter2');
    },
  );

  it('when JWT_SECRET is set, then the API runs on plain node, accepts tokens signed with it, and SIGTERM stops it cleanly', async () => {
    const { projectId } = await createTestProject(app.ctx);
    const { token } = await tokenFor(app.ctx, projectId, ['public-api:config:read']);
    const started = start(API, { ...services, JWT_SECRET: app.ctx.config.auth.jwtSecret });
    const [, port] = await started.waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
    const api = apiClient(`http://127.0.0.1:${port}`, token);
    expect((await api.get('health')).status).toBe(200);
    expect((await api.get('projectConfig')).status).toBe(200);
    await stopsCleanly(started);
  });

  it('when only BROADSHEET_INSECURE_DEV_SECRET=true is set, then the API starts on a key of its own and refuses tokens signed with any other', async () => {
    const { projectId } = await createTestProject(app.ctx);
    const { token } = await tokenFor(app.ctx, projectId, ['public-api:config:read']);
    const started = start(API, { ...services, BROADSHEET_INSECURE_DEV_SECRET: 'true' });
    const [, port] = await started.waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
    expect(started.output()).toContain('BROADSHEET_INSECURE_DEV_SECRET');
    const response = await apiClient(`http://127.0.0.1:${port}`, token).get('projectConfig');
    expect(response.status).toBe(401);
    await stopsCleanly(started);
  });

  it.each([
    ['start', /listening on http:\/\/127\.0\.0\.1:\d+/, /shutting down: finishing in-flight requests/],
    ['run workers', /Broadsheet workers running/, /workers shutting down/],
  ])(
    'when `npm %s` is sent SIGTERM, then it reaches node, which drains and exits (nothing left running)',
    async (script, ready, draining) => {
      const started = startProcess('npm', [...script.split(' '), '--silent'], {
        ...services,
        JWT_SECRET: app.ctx.config.auth.jwtSecret,
      });
      running.push(started);
      await started.waitFor(ready);
      const pid = Number(/"pid":(\d+)/.exec(started.output())?.[1]);
      expect(pid).toBeGreaterThan(0);
      started.child.kill('SIGTERM');
      await started.exited;
      // npm signals its child only: a shell between npm and node died and left node running, orphaned.
      const alive = () => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      for (let waited = 0; alive() && waited < 15_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const stillRunning = alive();
      if (stillRunning) process.kill(pid, 'SIGKILL');
      expect(stillRunning).toBe(false);
      // Its last lines: the pipe closes once node, the last process holding it, is gone.
      const closed = new Promise((resolve) => started.child.once('close', resolve));
      if (started.child.stdout?.readableEnded !== true) await closed;
      expect(started.output()).toMatch(draining);
    },
  );

  it('when JWT_SECRET is set, then the workers run on plain node and SIGTERM stops them cleanly', async () => {
    const started = start(WORKERS, { ...services, JWT_SECRET: app.ctx.config.auth.jwtSecret });
    await started.waitFor(/Broadsheet workers running/);
    await stopsCleanly(started);
  });
});
