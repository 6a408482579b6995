import { startBoss } from '../../src/jobs/boss';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

/**
 * pg-boss's connections open under the app pool's bounds (DATABASE_CONNECT_TIMEOUT_MS, DATABASE_POOL_WAIT_MS),
 * not pg-boss's own fixed 10 s: a Postgres that never answers is given up on when the operator's setting says.
 */
describe('startBoss', () => {
  let proxy: TcpProxy;
  let hung: string;

  beforeAll(async () => {
    const target = new URL(process.env.DATABASE_URL ?? '');
    proxy = await startTcpProxy(`http://${target.hostname}:${target.port || 5432}`);
    await proxy.down('hang');
    const proxied = new URL(target.toString());
    proxied.host = new URL(proxy.url).host;
    hung = proxied.toString();
  });
  afterAll(() => proxy.close());

  it('when Postgres accepts connections and never answers, then it fails at the connect timeout it is given, as pg says it', async () => {
    const started = Date.now();
    await expect(
      startBoss(hung, { supervise: false, timeouts: { connectTimeoutMs: 500, poolWaitMs: 15_000 } }),
    ).rejects.toThrow('timeout expired');
    // Its start asks twice (a version probe whose failure it swallows, then its schema): 2 × 500 ms and slack,
    // where pg-boss's own bound made it 2 × 10 s.
    expect(Date.now() - started).toBeLessThan(6_000);
  });
});
