import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { Agent, request } from 'undici';

/** What every bench module returns and the helpers they share. bench/main.ts runs a list of modules. */

/**
 * Every bench process starts the API and its other processes with its own Node (process.execPath), so a bench
 * run by the machine's Node 20 (`node_modules/.bin/tsx bench/x.ts` outside npm) would measure the API on a
 * Node whose garbage collector behaves differently from the pinned one's. Run them through npm or npx.
 */
const PINNED_NODE_MAJOR = 24;
if (Number(process.versions.node.split('.')[0]) !== PINNED_NODE_MAJOR) {
  throw new Error(
    `the bench runs on Node ${process.versions.node}, not the project's Node ${PINNED_NODE_MAJOR}: ` +
      'start it through npm or npx (npx tsx bench/<file>.ts), which put the pinned Node first on PATH',
  );
}

/** One line of `npm run bench`: our figure beside the same work done the plainest way, in the same run. */
export interface BenchRow {
  name: string;
  ours: number;
  raw: number;
  unit: string;
  /**
   * How much of the plain figure the real path keeps: ours / raw for rates (higher is better), raw / ours for
   * times (lower is better), so 1.0 means "as good as raw" either way.
   */
  ratio: number;
}

/** A figure with no raw counterpart (index size, memory), printed and written beside the rows. */
export interface BenchFact {
  name: string;
  value: number;
  unit: string;
}

/** The facts of this run, in the order noted. */
export const facts: BenchFact[] = [];

export function fact(name: string, value: number, unit: string): void {
  facts.push({ name, value: round(value), unit });
  // Also as it is noted: a long run that is stopped still leaves what it found in its log.
  console.error(`bench fact: ${name}: ${round(value)} ${unit}`);
}

export interface BenchModule {
  name: string;
  run(): Promise<BenchRow[]>;
}

export const rate = (name: string, ours: number, raw: number, unit: string): BenchRow => ({
  name,
  ours: round(ours),
  raw: round(raw),
  unit,
  ratio: round(ours / raw, 3),
});

export const time = (name: string, ours: number, raw: number, unit = 'ms'): BenchRow => ({
  name,
  ours: round(ours),
  raw: round(raw),
  unit,
  ratio: round(raw / ours, 3),
});

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * A rate measured in rounds, ours then raw back to back in each: the median of each side, and as the ratio
 * the median of the rounds' own ratios. The two runs of a round share the machine's state (its other load
 * comes and goes over minutes), so their ratio is steadier than one of two separately picked figures.
 */
export const pairedRate = (name: string, ours: number[], raw: number[], unit: string): BenchRow => ({
  name,
  ours: round(median(ours)),
  raw: round(median(raw)),
  unit,
  ratio: round(median(ours.map((value, i) => value / raw[i]!)), 3),
});

/** pairedRate for times (lower is better): the ratio is the median of raw / ours per round. */
export const pairedTime = (name: string, ours: number[], raw: number[], unit = 'ms'): BenchRow => ({
  name,
  ours: round(median(ours)),
  raw: round(median(raw)),
  unit,
  ratio: round(median(ours.map((value, i) => raw[i]! / value)), 3),
});

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export interface LoadResult {
  perSecond: number;
  latencies: number[];
}

/** Runs `call` in `concurrency` loops for `durationMs`; throughput and every call's latency in ms. */
export async function load(
  durationMs: number,
  concurrency: number,
  call: (i: number) => Promise<void>,
): Promise<LoadResult> {
  const started = performance.now();
  const deadline = started + durationMs;
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = worker; performance.now() < deadline; i += concurrency) {
        const t = performance.now();
        await call(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { perSecond: latencies.length / ((performance.now() - started) / 1000), latencies };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A port no socket on this machine uses now, as the system hands one out, for a server the bench spawns. A
 * random pick among 30000-49999 lay in the ephemeral range (32768-60999), where the bench's and Postgres'
 * own client connections hold thousands of local ports: now and then the API could not listen (EADDRINUSE).
 */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => done(port));
    });
  });
}

/**
 * Waits until a server the bench spawned answers `url` (any HTTP answer: the API's health, a static server's
 * 404), for up to 30 s. If it exits first or does not answer in time, it fails, the process killed.
 */
export async function untilServing(child: ChildProcess, url: string, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode}) before it answered`);
    const answered = await fetch(url).then(
      () => true,
      () => false,
    );
    if (answered) return;
    await sleep(200);
  }
  child.kill('SIGTERM');
  throw new Error(`${what} did not answer within 30 s`);
}

/** Clock ticks per second of the CPU times in /proc (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * A process's CPU time so far, user and system, in ms, from `/proc/<pid>/stat`: a figure the machine's other
 * load moves far less than a rate. Rejects when there is no such process (any more).
 */
export async function cpuMs(pid: number): Promise<number> {
  const { user, system } = await cpuTimes(pid);
  return user + system;
}

/**
 * cpuMs in its two parts: user (the process's own code) and system (the kernel on its behalf: its socket
 * reads and writes, and on loopback the receiving side's TCP work, which this kernel charges to the sender;
 * CONFIG_IRQ_TIME_ACCOUNTING is off). A CPU profile is no measure of the latter: it counts wall time, and a
 * process preempted in a write (the peer it woke runs first on 2 cores) shows that write for the whole wait.
 */
export async function cpuTimes(pid: number): Promise<{ user: number; system: number }> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // utime and stime are fields 14 and 15 of the line; 12 and 13 after the command name.
  const fields = stat.split(') ')[1]!.split(' ');
  return {
    user: (Number(fields[11]) * 1000) / TICKS_PER_SECOND,
    system: (Number(fields[12]) * 1000) / TICKS_PER_SECOND,
  };
}

/**
 * The HTTP client for calls to our API: undici's `request`, the same client the Elasticsearch client uses for
 * the raw baselines, so neither side of a ratio pays for a heavier client on the shared cores (fetch cost
 * ~45% more client CPU per exported page).
 */
const agent = new Agent({ connections: 64 });

export interface HttpAnswer {
  status: number;
  body: unknown;
}

export async function callApi(
  url: string,
  options: { method?: 'GET' | 'PATCH'; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpAnswer> {
  const response = await request(url, {
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    dispatcher: agent,
  });
  const text = await response.body.text();
  return { status: response.statusCode, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/** Like callApi, the body left as text: for a load whose client must cost the same on both sides of a ratio. */
export async function callApiText(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  const response = await request(url, { method: 'GET', headers, dispatcher: agent });
  return { status: response.statusCode, text: await response.body.text() };
}
