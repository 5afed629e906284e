/**
 * A background job that runs `work` every `everyMs` (and once at start with `atStart`), never two
 * runs at once: a tick while the previous run is still going is skipped and the next one catches up.
 * `stop()` resolves when the run in flight has ended; its signal is aborted first, so long work can
 * stop between batches. Errors are reported to `onError` and the job keeps its schedule.
 */
export function periodicJob(opts: {
  everyMs: number;
  atStart?: boolean;
  work: (signal: AbortSignal) => Promise<unknown>;
  onError: (err: unknown) => void;
}): { start(): void; stop(): Promise<void> } {
  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<unknown> | null = null;
  let controller = new AbortController();
  const tick = () => {
    if (inFlight) return;
    inFlight = opts
      .work(controller.signal)
      .catch(opts.onError)
      .finally(() => {
        inFlight = null;
      });
  };
  return {
    start() {
      if (timer) return;
      controller = new AbortController();
      if (opts.atStart) tick();
      timer = setInterval(tick, opts.everyMs);
      timer.unref();
    },
    async stop() {
      controller.abort();
      if (timer) clearInterval(timer);
      timer = null;
      await inFlight;
    },
  };
}
