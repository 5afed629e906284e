// For bench/reporter-runner.mjs: timestamps (ms since the process started) of module load, onBegin,
// the first test and onEnd, listed before and after the reporter measured.
const marks = (globalThis.__marks ??= {});
const n = 2;
marks[`load${n}`] = performance.now();
export default class Marks {
  constructor() { this.n = n; }
  onBegin() { marks[`begin${this.n}`] ??= performance.now(); }
  onTestBegin() { marks[`firstTest${this.n}`] ??= performance.now(); }
  async onEnd() { marks[`end${this.n}`] = performance.now(); }
  async onExit() { marks[`exit${this.n}`] = performance.now(); }
  printsToStdio() { return false; }
}
