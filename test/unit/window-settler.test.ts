import type { Queryable } from '../../src/db/pool';
import type { SearchClient } from '../../src/search/client';
import { WindowSettler } from '../../src/search/visibility';

/**
 * The settler's order of things, with a recording stand-in for Postgres and a refresh the test lets finish: a
 * window is closed only after a refresh that started once its writes ended, and refreshes never overlap.
 */
function harness() {
  const events: string[] = [];
  const refreshes: (() => void)[] = [];
  const db = {
    query: (sql: string, params: unknown[]) => {
      if (sql.includes('DELETE FROM search_write_windows')) events.push(`close ${String(params[0])}`);
      return Promise.resolve({ rows: [] });
    },
  } as unknown as Queryable;
  const search = {
    indices: {
      refresh: () => {
        events.push('refresh');
        return new Promise<void>((resolve) => refreshes.push(resolve));
      },
    },
  } as unknown as SearchClient;
  const settler = new WindowSettler({ db, search, alias: 'bench-publications' });
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  return { events, refreshes, settler, tick };
}

describe('WindowSettler', () => {
  it('when a window is handed over, then it is closed after a refresh', async () => {
    const { events, refreshes, settler, tick } = harness();
    const closed = settler.settle(1, [7]);
    await tick();
    expect(events).toEqual(['refresh']);
    refreshes.shift()!();
    await closed;
    expect(events).toEqual(['refresh', 'close 1']);
  });

  it('when windows are handed over during a refresh, then they wait for the next one, which covers them all', async () => {
    const { events, refreshes, settler, tick } = harness();
    const first = settler.settle(1, [7]);
    await tick();
    const second = settler.settle(2, [7]);
    const third = settler.settle(3, null);
    await tick();
    // One refresh at a time: the second and third windows' writes ended after the first refresh started.
    expect(events).toEqual(['refresh']);
    refreshes.shift()!();
    await first;
    await tick();
    expect(events).toEqual(['refresh', 'close 1', 'refresh']);
    refreshes.shift()!();
    await Promise.all([second, third]);
    expect(events).toEqual(['refresh', 'close 1', 'refresh', 'close 2', 'close 3']);
    await settler.drain();
  });

  it('when a window is handed over after the loop went idle, then a new refresh starts', async () => {
    const { events, refreshes, settler, tick } = harness();
    const first = settler.settle(1, [1]);
    await tick();
    refreshes.shift()!();
    await first;
    const second = settler.settle(2, [1]);
    await tick();
    refreshes.shift()!();
    await second;
    expect(events).toEqual(['refresh', 'close 1', 'refresh', 'close 2']);
  });
});
