import { dirname, isAbsolute, resolve } from 'node:path';
import type { Token } from 'stream-json';
import { jsonTokens, ValueBuilder } from './jsonTokens.js';
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

type Role = 'root' | 'suites' | 'suite' | 'specs';
interface Frame {
  role: Role;
  key: string | null;
  title?: string;
  file?: string;
}

/** Where a value opening under `parent` goes: walked structurally, or built (spec, config) or skipped. */
function roleOf(parent: Frame | undefined, isArray: boolean): Role | 'spec' | 'config' | 'stats' | 'skip' {
  if (!parent) return isArray ? 'skip' : 'root';
  if (parent.role === 'root') {
    if (parent.key === 'suites' && isArray) return 'suites';
    if (parent.key === 'config' && !isArray) return 'config';
    if (parent.key === 'stats' && !isArray) return 'stats';
    return 'skip';
  }
  if (parent.role === 'suites') return isArray ? 'skip' : 'suite';
  if (parent.role === 'suite') {
    if (parent.key === 'specs' && isArray) return 'specs';
    if (parent.key === 'suites' && isArray) return 'suites';
    return 'skip';
  }
  return isArray ? 'skip' : 'spec';
}

export type PwEvent = { kind: 'spec'; event: SpecEvent } | { kind: 'config'; config: any } | { kind: 'stats'; stats: any };

/**
 * Walks a Playwright JSON report token by token and emits one spec at a time, with its suite path.
 * Only a spec (and the config block) is ever held whole, so a 1 GB report streams in bounded memory.
 */
export async function* walkPlaywright(file: string): AsyncGenerator<PwEvent> {
  const stack: Frame[] = [];
  let builder: { b: ValueBuilder; role: 'spec' | 'config' | 'stats' | 'skip' } | null = null;
  let sawSuites = false;
  let sawRoot = false;
  try {
    for await (const token of jsonTokens(file)) {
      if (builder) {
        if (!builder.b.consume(token)) continue;
        const { b, role } = builder;
        builder = null;
        if (role === 'spec') yield { kind: 'spec', event: { spec: b.value as PwSpec, suites: suitePath(stack) } };
        else if (role === 'config') yield { kind: 'config', config: b.value };
        else if (role === 'stats') yield { kind: 'stats', stats: b.value };
        clearKey(stack);
        continue;
      }
      const top = stack[stack.length - 1];
      switch (token.name) {
        case 'startObject':
        case 'startArray': {
          const role = roleOf(top, token.name === 'startArray');
          if (role === 'root' || role === 'suites' || role === 'suite' || role === 'specs') {
            if (role === 'root') sawRoot = true;
            if (role === 'suites' && top?.role === 'root') sawSuites = true;
            stack.push({ role, key: null });
          } else {
            builder = { b: new ValueBuilder(role === 'skip'), role };
            builder.b.consume(token);
          }
          break;
        }
        case 'endObject':
        case 'endArray':
          stack.pop();
          clearKey(stack);
          break;
        case 'keyValue':
          if (top) top.key = token.value as string;
          break;
        default:
          if (!top) {
            throw new MalformedReportError(file, 'not a Playwright JSON report: the document is not an object');
          }
          if (top.role === 'suite' && top.key === 'title') top.title = String(token.value);
          if (top.role === 'suite' && top.key === 'file') top.file = String(token.value);
          top.key = null;
      }
    }
  } catch (err) {
    if (err instanceof MalformedReportError) throw err;
    throw new MalformedReportError(file, `not valid JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!sawRoot || !sawSuites) throw new MalformedReportError(file, 'not a Playwright JSON report: it has no "suites" array');
}

function clearKey(stack: Frame[]) {
  const top = stack[stack.length - 1];
  if (top) top.key = null;
}

function suitePath(stack: Frame[]): SuiteRef[] {
  const out: SuiteRef[] = [];
  let file: string | undefined;
  for (const f of stack) {
    if (f.role !== 'suite') continue;
    file ??= f.file;
    out.push({ title: f.title || f.file || '(untitled)', ...(f.file || file ? { filePath: f.file || file } : {}) });
  }
  return out;
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
  /** Put the project name first in fullTitle (decisions §7): the report ran more than one project. */
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

export type { Token };
