/**
 * Loaded into a child process by a test (`node --expose-gc --import tsx --import test/helpers/memory-probe.ts`):
 * on SIGUSR2 it runs a full garbage collection and prints what the process still holds, as one `memory-probe
 * {json}` line on stderr. RSS alone counts buffers that have gone through and wait for the collector; after a
 * full collection, what remains is what the process keeps.
 */
process.on('SIGUSR2', () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('memory-probe needs node --expose-gc');
  // Array buffers are freed by a sweeper behind the collection: collect, let it run, collect again.
  gc();
  setTimeout(() => {
    gc();
    report();
  }, 100);
});

function report(): void {
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  process.stderr.write(`memory-probe ${JSON.stringify({ rss, heapUsed, external, arrayBuffers })}\n`);
}
