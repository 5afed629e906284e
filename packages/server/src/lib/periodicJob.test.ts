import { describe, expect, it } from 'vitest';
import { periodicJob } from './periodicJob.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('periodicJob', () => {
  it('runs at start when asked, never two runs at once, and stop() waits for the run in flight with its signal aborted', async () => {
    let running = 0;
    let most = 0;
    let runs = 0;
    let sawAbort = false;
    let release!: () => void;
    const job = periodicJob({
      everyMs: 5,
      atStart: true,
      work: async (signal) => {
        runs++;
        running++;
        most = Math.max(most, running);
        await new Promise<void>((r) => (release = r));
        sawAbort = signal.aborted;
        running--;
      },
      onError: () => {},
    });
    job.start();
    expect(runs).toBe(1); // at start, before the first interval
    await sleep(40); // several ticks pass while the first run is still going
    expect(runs).toBe(1);
    const stopped = job.stop();
    let done = false;
    void stopped.then(() => (done = true));
    await sleep(10);
    expect(done).toBe(false); // waits for the run in flight
    release();
    await stopped;
    expect(sawAbort).toBe(true);
    expect(most).toBe(1);
  });

  it('keeps its schedule after a failed run and reports the error', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const job = periodicJob({
      everyMs: 5,
      work: async () => {
        runs++;
        throw new Error(`run ${runs}`);
      },
      onError: (err) => errors.push(err),
    });
    job.start();
    expect(runs).toBe(0); // no run at start unless asked
    await sleep(60);
    await job.stop();
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(errors).toHaveLength(runs);
  });
});
