import { Worker } from 'node:worker_threads';

/**
 * V8's young generation for the server's thread: 192 MB, i.e. semi-spaces of 64 MB instead of
 * Node's 16. A batch of results is parsed into some megabytes of objects that live until its
 * statements are done; on PostgreSQL that is a dozen round trips, during which the default
 * semi-spaces fill several times over, so every scavenge copied (and then promoted) the batches in
 * flight. With 64 MB most of them die young: on PostgreSQL the server's CPU per batched test fell by
 * a tenth to a sixth and ingestion rose by 8–9%, with no change on SQLite (docs/benchmarks.md, twenty-fourth
 * session). The cost is memory: up to ~130 MB more resident under load.
 */
export const YOUNG_GENERATION_MB = 192;

/** Whether whoever started node chose the young generation's size (flag or NODE_OPTIONS): then it is theirs. */
export function youngGenerationSetByOperator(): boolean {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return flags.some((f) => /^--(max-semi-space-size|semi-space-size|max-young-generation-size)\b/.test(f.replace(/_/g, '-')));
}

/**
 * Runs `reporter-server serve` in a worker thread of this process, sized as above: V8 sizes a heap
 * only when it is created, and a worker's resource limits are the one way to size it from inside a
 * running process (no second process: signals, `kill`, the process id and its CPU stay the
 * server's). The main thread only passes SIGTERM and SIGINT on and exits with the server's code.
 */
export function serveInWorker(entry: URL): void {
  const worker = new Worker(entry, { argv: process.argv.slice(2), resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
  // Once each, as the server in the main thread listens: a second Ctrl-C during a stuck shutdown
  // then ends the process the default way.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => worker.postMessage({ signal }));
  worker.on('error', (err) => {
    process.stderr.write(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
  worker.on('exit', (code) => process.exit(code));
}
