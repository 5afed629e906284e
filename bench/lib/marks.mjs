// For bench/reporter-runner.mjs: timestamps (ms since the process started) of module load, onBegin,
// the first test and onEnd, of reporters listed before (1) and after (2) the reporter measured.
// Each position needs a module of its own (Playwright loads a reporter module once), whose load
// time is when it calls this.
export function marksReporter(n) {
  const marks = (globalThis.__marks ??= {});
  marks[`load${n}`] = performance.now();
  return class Marks {
    onBegin() { marks[`begin${n}`] ??= performance.now(); }
    onTestBegin() { marks[`firstTest${n}`] ??= performance.now(); }
    async onEnd() { marks[`end${n}`] = performance.now(); }
    async onExit() { marks[`exit${n}`] = performance.now(); }
    printsToStdio() { return false; }
  };
}
