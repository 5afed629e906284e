import { dirname, isAbsolute, resolve } from 'node:path';
import { JsonReader, JsonSyntaxError } from './jsonReader.js';
import { MalformedReportError, type AttachmentRef, type ParsedTest, type ReportMeta, type ReportRecord, type SuiteRef } from './types.js';
import { appendCapped, cleanError, type StepInput } from '@testreport/contract';

/* The subset of Playwright's JSON reporter output that is read (JSONReport in @playwright/test/reporter). */
interface PwError { message?: string; stack?: string; value?: string }
interface PwStep { title?: string; duration?: number; error?: PwError; steps?: PwStep[]; category?: string }
interface PwResult {
  retry?: number;
  status?: string;
  duration?: number;
  error?: PwError;
  errors?: PwError[];
  stdout?: Array<{ text?: string; buffer?: string }>;
  stderr?: Array<{ text?: string; buffer?: string }>;
  /** A file (`path`) or, for `testInfo.attach(name, { body })`, the body in base64. */
  attachments?: Array<{ name?: string; contentType?: string; path?: string; body?: string }>;
  steps?: PwStep[];
}
interface PwTest {
  projectName?: string;
  status?: string;
  annotations?: Array<{ type?: string; description?: string }>;
  results?: PwResult[];
}
export interface PwSpec {
  title?: string;
  file?: string;
  line?: number;
  tags?: string[];
  tests?: PwTest[];
}

export interface SpecEvent {
  spec: PwSpec;
  /** File suite first, then describe blocks. */
  suites: SuiteRef[];
}

export type PwEvent = { kind: 'spec'; event: SpecEvent } | { kind: 'config'; config: any } | { kind: 'stats'; stats: any };

const OBJ = [0x7b, 0x7d] as const;
const ARR = [0x5b, 0x5d] as const;

/**
 * Walks a Playwright JSON report and emits one spec at a time, with its suite path. Only the root,
 * the `suites` arrays and the suite objects are walked key by key; a spec, the config and stats are
 * parsed whole, everything else is parsed (so a malformed file fails) and dropped. Only one spec is
 * ever held, so a 1 GB report streams in bounded memory.
 */
export async function* walkPlaywright(file: string): AsyncGenerator<PwEvent> {
  const r = new JsonReader(file);
  try {
    if ((await r.peek()) !== OBJ[0]) {
      if ((await r.peek()) < 0) throw new JsonSyntaxError('the file is empty');
      throw new MalformedReportError(file, 'not a Playwright JSON report: the document is not an object');
    }
    let sawSuites = false;
    if (await r.open(...OBJ)) {
      do {
        const key = await r.key();
        const next = await r.peek();
        if (key === 'suites' && next === ARR[0]) {
          sawSuites = true;
          yield* suitesOf(r, []);
        } else if ((key === 'config' || key === 'stats') && next === OBJ[0]) {
          const value = await r.value();
          yield key === 'config' ? { kind: 'config', config: value } : { kind: 'stats', stats: value };
        } else await r.value();
      } while (await r.another(OBJ[1]));
    }
    if ((await r.peek()) >= 0) throw new JsonSyntaxError('unexpected data after the document');
    if (!sawSuites) throw new MalformedReportError(file, 'not a Playwright JSON report: it has no "suites" array');
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new MalformedReportError(file, `not valid JSON: ${err.message}`);
    throw err;
  } finally {
    r.close();
  }
}

/** The elements of a `suites` array (the reader is at its "["); objects are suites, anything else is skipped. */
async function* suitesOf(r: JsonReader, parents: SuiteRef[]): AsyncGenerator<PwEvent> {
  if (!(await r.open(...ARR))) return;
  do {
    if ((await r.peek()) === OBJ[0]) yield* suiteOf(r, parents);
    else await r.value();
  } while (await r.another(ARR[1]));
}

/** One suite object: its title and file come before its specs and child suites in Playwright's output. */
async function* suiteOf(r: JsonReader, parents: SuiteRef[]): AsyncGenerator<PwEvent> {
  let title: string | undefined;
  let file: string | undefined;
  let path: SuiteRef[] | undefined;
  const pathOf = () => {
    if (path) return path;
    const inherited = parents.find((p) => p.filePath)?.filePath;
    const filePath = file || inherited;
    path = [...parents, { title: title || file || '(untitled)', ...(filePath ? { filePath } : {}) }];
    return path;
  };
  if (!(await r.open(...OBJ))) return;
  do {
    const key = await r.key();
    const next = await r.peek();
    if (key === 'specs' && next === ARR[0]) {
      if (!(await r.open(...ARR))) continue;
      do {
        const isObject = (await r.peek()) === OBJ[0];
        const spec = await r.value();
        if (isObject) yield { kind: 'spec', event: { spec: spec as PwSpec, suites: pathOf() } };
      } while (await r.another(ARR[1]));
    } else if (key === 'suites' && next === ARR[0]) {
      yield* suitesOf(r, pathOf());
    } else {
      const value = await r.value();
      // A title or file seen after specs would rename a path already handed out: like the token walker, it applies from here on.
      if (key === 'title' && value !== null && typeof value !== 'object') {
        title = String(value);
        path = undefined;
      } else if (key === 'file' && value !== null && typeof value !== 'object') {
        file = String(value);
        path = undefined;
      }
    }
  } while (await r.another(OBJ[1]));
}

const STATUS: Record<string, ParsedTest['status']> = { expected: 'passed', unexpected: 'failed', flaky: 'flaky', skipped: 'skipped' };

function outputOf(chunks: PwResult['stdout']): string {
  let out = '';
  for (const c of chunks ?? []) {
    const text = c.text ?? (c.buffer ? Buffer.from(c.buffer, 'base64').toString('utf8') : '');
    out = appendCapped(out, text);
  }
  return out;
}

function errorOf(r: PwResult): ParsedTest['error'] {
  const e = r.error ?? r.errors?.[0];
  if (!e) return undefined;
  const message = cleanError(e.message ?? e.value ?? 'Error');
  return { message, ...(e.stack ? { stack: cleanError(e.stack) } : {}) };
}

/** The JSON reporter writes no step category; the title says what kind of step it was. */
function categoryOf(s: PwStep): StepInput['category'] {
  if (s.category === 'hook' || /^(Before|After) Hooks$|^(before|after)(Each|All) hook/i.test(s.title ?? '')) return 'hook';
  if (s.category === 'fixture' || /^fixture: /.test(s.title ?? '')) return 'fixture';
  if (s.category === 'expect' || /^(expect|toHave|toBe|toMatch)/.test(s.title ?? '')) return 'assertion';
  return 'action';
}

function stepsOf(steps: PwStep[] | undefined): StepInput[] | undefined {
  if (!steps?.length) return undefined;
  return steps.map((s) => {
    const out: StepInput = {
      title: s.title || '(step)',
      category: categoryOf(s),
      status: s.error ? 'failed' : 'passed',
      duration: Math.max(0, s.duration ?? 0),
      error: s.error ? { message: cleanError(s.error.message ?? 'Error') } : null,
    };
    const nested = stepsOf(s.steps);
    if (nested) out.steps = nested;
    return out;
  });
}

export interface SpecContext {
  /** Put the project name first in fullTitle (docs/decisions.md §7): the report ran more than one project. */
  multiProject: boolean;
  /** Attachment paths in the report are absolute or relative to the report's folder. */
  reportDir: string;
}

/** One test record per spec × project entry, the final attempt's outcome with every attempt's attachments. */
export function specToRecords(ev: SpecEvent, ctx: SpecContext): ReportRecord[] {
  const { spec, suites } = ev;
  const describes = suites.slice(1).map((s) => s.title);
  const filePath = spec.file ?? suites[0]?.filePath;
  return (spec.tests ?? []).map((t) => {
    const results = t.results ?? [];
    const last = results[results.length - 1];
    const title = spec.title || '(untitled)';
    const parts = [...(ctx.multiProject && t.projectName ? [t.projectName] : []), ...describes, title];
    const status = STATUS[t.status ?? ''] ?? (last?.status === 'passed' ? 'passed' : last?.status === 'skipped' ? 'skipped' : 'failed');
    const test: ParsedTest = {
      title,
      fullTitle: parts.join(' > '),
      status,
      duration: Math.max(0, results.reduce((sum, r) => sum + (r.duration ?? 0), 0)),
      retries: Math.max(0, results.length - 1),
      attempt: Math.max(1, results.length),
      isFlaky: status === 'flaky',
    };
    if (filePath) test.filePath = filePath;
    if (Number.isInteger(spec.line) && spec.line! >= 0) test.lineNumber = spec.line;
    const tags = (spec.tags ?? []).filter((x) => typeof x === 'string' && x.length > 0).map((x) => x.replace(/^@/, ''));
    if (tags.length) test.tags = tags;
    const annotations = (t.annotations ?? []).filter((a) => a.type).map((a) => ({ type: a.type!, description: a.description ?? '' }));
    if (annotations.length) test.annotations = annotations;
    // A flaky test's final attempt passed; the failure that made it flaky is still the useful error.
    const failedAttempt = status === 'passed' || status === 'skipped' ? undefined : [...results].reverse().find((r) => r.error || r.errors?.length);
    const error = failedAttempt ? errorOf(failedAttempt) : undefined;
    if (error) test.error = error;
    if (last) {
      const stdout = outputOf(last.stdout);
      const stderr = outputOf(last.stderr);
      if (stdout) test.stdout = stdout;
      if (stderr) test.stderr = stderr;
      const steps = stepsOf(last.steps);
      if (steps) test.steps = steps;
    }
    const attachments: AttachmentRef[] = [];
    for (const r of results) {
      for (const a of r.attachments ?? []) {
        const name = a.name ?? 'attachment';
        if (a.path) attachments.push({ name, contentType: a.contentType, path: isAbsolute(a.path) ? a.path : resolve(ctx.reportDir, a.path) });
        // Decoded here, one spec at a time: only this spec's bodies are in memory, never the report's.
        else if (typeof a.body === 'string' && a.body) attachments.push({ name, contentType: a.contentType, body: Buffer.from(a.body, 'base64') });
      }
    }
    return { kind: 'test', suites, test, attachments, ...(t.projectName ? { project: t.projectName } : {}) };
  });
}

/** Run facts from the config block (version, workers, shard) and stats (duration). */
export function metaOf(ev: PwEvent): ReportMeta | null {
  if (ev.kind === 'config') {
    const c = ev.config ?? {};
    const meta: ReportMeta = { kind: 'meta' };
    if (typeof c.version === 'string') meta.frameworkVersion = c.version;
    const workers = c.metadata?.actualWorkers ?? c.workers;
    if (Number.isInteger(workers) && workers >= 1) meta.workers = workers;
    if (c.shard && Number.isInteger(c.shard.current) && Number.isInteger(c.shard.total) && c.shard.current >= 1 && c.shard.current <= c.shard.total) {
      meta.shardCurrent = c.shard.current;
      meta.shardTotal = c.shard.total;
    }
    const total = c.metadata?.totalTime;
    if (typeof total === 'number' && total >= 0) meta.duration = Math.round(total);
    return meta;
  }
  if (ev.kind === 'stats') {
    const d = ev.stats?.duration;
    return typeof d === 'number' && d >= 0 ? { kind: 'meta', duration: Math.round(d) } : null;
  }
  return null;
}

export function reportDirOf(file: string): string {
  return dirname(resolve(file));
}

