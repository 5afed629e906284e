import { dirname } from 'node:path';
import { readJunit } from './junit.js';
import type { ReportInputs } from './inputs.js';
import { metaOf, reportDirOf, specToRecords, walkPlaywright } from './playwright.js';
import type { ReportRecord } from './types.js';

export interface ReadOptions {
  multiProject: boolean;
}

/** Every record of every input file, in a stable order (the order idempotency keys are derived from). */
export async function* readReport(inputs: ReportInputs, opts: ReadOptions): AsyncGenerator<ReportRecord> {
  let junitDuration = 0;
  for (const file of inputs.files) {
    if (inputs.kind === 'junit') {
      // Files of one JUnit folder ran one after another (or their times add up to the CI step).
      for await (const r of readJunit(file)) {
        if (r.kind === 'meta') junitDuration += r.duration ?? 0;
        else yield r;
      }
      continue;
    }
    const reportDir = reportDirOf(file);
    // Playwright writes `config` before `suites`: its rootDir is known before the first spec.
    let rootDir: string | undefined;
    let projectRoot: string | undefined;
    for await (const ev of walkPlaywright(file)) {
      if (ev.kind === 'spec') yield* specToRecords(ev.event, { multiProject: opts.multiProject, reportDir, rootDir, projectRoot });
      else {
        if (ev.kind === 'config' && typeof ev.config?.rootDir === 'string') rootDir = ev.config.rootDir;
        // Snapshot paths are relative to the folder of the config file (the Playwright project's root).
        if (ev.kind === 'config' && typeof ev.config?.configFile === 'string') projectRoot = dirname(ev.config.configFile);
        const meta = metaOf(ev);
        if (meta) yield meta;
      }
    }
  }
  if (inputs.kind === 'junit') yield { kind: 'meta', duration: junitDuration };
}

