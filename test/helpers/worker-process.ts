import { spawn, type ChildProcess } from 'node:child_process';
import { NODE, WORKERS_SCRIPT } from './compiled';

/**
 * The worker process as `npm run workers` starts it: Node on the compiled workers (./compiled), no wrapper
 * process in between that a SIGKILL would not reach.
 */
export function startWorkerProcess(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(NODE, [WORKERS_SCRIPT], {
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Broadsheet workers running')) resolve(child);
      if (output.length > 100_000) output = output.slice(-10_000);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`workers exited with ${code} before starting:\n${output}`)),
    );
  });
}

/** SIGKILL, resolved once the process has exited (at once when it already has). */
export function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
