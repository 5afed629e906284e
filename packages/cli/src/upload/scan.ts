import type { ReportInputs } from '../report/inputs.js';
import { readReport } from '../report/read.js';
import type { ReportMeta, SuiteRef } from '../report/types.js';
import { planAttachment } from './attachments.js';
import { Tally } from './tally.js';

/** Keep summaries readable when a report references thousands of missing files. */
const MAX_LISTED = 50;

export interface ScanResult {
  tally: Tally;
  suites: number;
  projects: Set<string>;
  meta: Omit<ReportMeta, 'kind'>;
  attachments: { total: number; uploadable: number; bytes: number; skipped: Array<{ reason: string; detail: string }>; skippedCount: number };
}

/**
 * The first pass over the report: validates all of it (a malformed file fails here, before anything is
 * created), counts tests, suites and attachments, and learns the Playwright projects.
 */
export async function scanReport(inputs: ReportInputs): Promise<ScanResult> {
  const tally = new Tally();
  const suites = new Set<string>();
  const seen = new WeakSet<SuiteRef>();
  const projects = new Set<string>();
  const meta: Omit<ReportMeta, 'kind'> = {};
  const attachments: ScanResult['attachments'] = { total: 0, uploadable: 0, bytes: 0, skipped: [], skippedCount: 0 };
  for await (const r of readReport(inputs, { multiProject: false })) {
    if (r.kind === 'meta') {
      Object.assign(meta, Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'kind')));
      continue;
    }
    tally.add(r.test);
    if (r.project) projects.add(r.project);
    for (let i = 1; i <= r.suites.length; i++) {
      // Readers share a suite's object between its tests: each place in the tree is keyed once.
      if (seen.has(r.suites[i - 1])) continue;
      seen.add(r.suites[i - 1]);
      suites.add(JSON.stringify(r.suites.slice(0, i)));
    }
    for (const a of r.attachments) {
      attachments.total++;
      const plan = await planAttachment(a);
      if (plan.ok) {
        attachments.uploadable++;
        attachments.bytes += plan.size;
      } else {
        attachments.skippedCount++;
        if (attachments.skipped.length < MAX_LISTED) attachments.skipped.push({ reason: plan.reason, detail: plan.detail });
      }
    }
  }
  return { tally, suites: suites.size, projects, meta, attachments };
}
