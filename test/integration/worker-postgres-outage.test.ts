import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument } from '../helpers/documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, eventually } from '../helpers/http';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { killHard, startWorkerProcess } from '../helpers/worker-process';

jest.setTimeout(150_000);

/**
 * The worker process when Postgres hangs (accepts connections, never answers) for a while: it neither exits
 * nor stays stuck. It keeps trying (each query and connection bounded by a timeout) and takes jobs again once
 * Postgres answers, so a supervisor has nothing to restart; SIGTERM then stops it with exit 0. A database of
 * its own, so no other file's worker takes these jobs; Postgres reached through a proxy the test takes away.
 */
describe('the workers while Postgres hangs', () => {
  let app: TestApp;
  let env: Record<string, string>;
  let proxy: TcpProxy;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    env = await isolatedEnv('pghang');
    app = await startTestApp({ env });
    const target = new URL(env.DATABASE_URL!);
    proxy = await startTcpProxy(`http://${target.hostname}:${target.port || 5432}`);
  });
  afterAll(async () => {
    for (const child of children) await killHard(child);
    await proxy.close();
    await app.close();
  });

  it('when Postgres hangs for longer than the pool timeouts, then the workers keep running, index again once it answers, and exit 0 on SIGTERM', async () => {
    const proxied = new URL(env.DATABASE_URL!);
    proxied.host = new URL(proxy.url).host;
    const worker = await startWorkerProcess({ ...env, DATABASE_URL: proxied.toString() });
    children.push(worker);
    const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));

    await proxy.down('hang');
    // Past the 10 s connect and query timeouts of pg-boss's pool: every poll of the workers has failed.
    const outcome = await Promise.race([
      exited.then((code) => `exited ${code}`),
      new Promise((resolve) => setTimeout(() => resolve('running'), 15_000)),
    ]);
    expect(outcome).toBe('running');
    await proxy.up();

    const { projectId } = await createTestProject(app.ctx);
    const api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
    const term = `pghang${randomBytes(4).toString('hex')}`;
    await createPublishedDocument(app.ctx, projectId, { metadata: { title: term } });
    await eventually(async () => {
      const response = await api.get(`publications/search?search=${term}&fields=id`);
      return response.status === 200 && response.body.results.length === 1;
    }, 40_000);

    worker.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
