import { dirname, isAbsolute, resolve } from 'node:path';
import { JsonReader, JsonSyntaxError } from './jsonReader.js';
import { MalformedReportError, type AttachmentRef, type ParsedTest, type ReportMeta, type ReportRecord, type SuiteRef } from './types.js';
import { mapResults, type ResultLike } from '@testreport/reporter/delivery';

/* The subset of Playwright's JSON reporter output that is read (JSONReport in @playwright/test/reporter). */
interface PwTest {
  projectName?: string;
  status?: string;
  annotations?: Array<{ type?: string; description?: string }>;
  /** `JSONReportTestResult`s: mapped by the reporter's mapping as `ResultLike`s. */
  results?: ResultLike[];
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

export interface SpecContext {
  /** Put the project name first in fullTitle (docs/decisions.md §7): the report ran more than one project. */
  multiProject: boolean;
  /** Attachment paths in the report are absolute or relative to the report's folder. */
  reportDir: string;
  /** The report's `config.rootDir`: error and step locations are stored relative to it, as the reporter does. */
  rootDir?: string;
  /** The folder of the report's `config.configFile`: snapshot paths are relative to it. */
  projectRoot?: string;
}

/**
 * One test record per spec × project entry: its tries mapped by the reporter's own mapping
 * (`@testreport/reporter/delivery`), so an upload stores what the live reporter would, and every
 * try's attachments with the retry that made them.
 */
export function specToRecords(ev: SpecEvent, ctx: SpecContext): ReportRecord[] {
  const { spec, suites } = ev;
  const describes = suites.slice(1).map((s) => s.title);
  const filePath = spec.file ?? suites[0]?.filePath;
  const mapCtx = { rootDir: ctx.rootDir, projectRoot: ctx.projectRoot, resolvePath: (p: string) => (isAbsolute(p) ? p : resolve(ctx.reportDir, p)) };
  return (spec.tests ?? []).map((t) => {
    const results = t.results ?? [];
    const last = results[results.length - 1];
    const title = spec.title || '(untitled)';
    const parts = [...(ctx.multiProject && t.projectName ? [t.projectName] : []), ...describes, title];
    const status = STATUS[t.status ?? ''] ?? (last?.status === 'passed' ? 'passed' : last?.status === 'skipped' ? 'skipped' : 'failed');
    // Decoded here, one spec at a time: only this spec's bodies are in memory, never the report's.
    const { fields, files } = mapResults(results, status, mapCtx);
    const test: ParsedTest = { title, fullTitle: parts.join(' > '), status, ...fields, isFlaky: status === 'flaky' };
    if (filePath) test.filePath = filePath;
    if (Number.isInteger(spec.line) && spec.line! >= 0) test.lineNumber = spec.line;
    const tags = (spec.tags ?? []).filter((x) => typeof x === 'string' && x.length > 0).map((x) => x.replace(/^@/, ''));
    if (tags.length) test.tags = tags;
    const annotations = (t.annotations ?? []).filter((a) => a.type).map((a) => ({ type: a.type!, description: a.description ?? '' }));
    if (annotations.length) test.annotations = annotations;
    const attachments: AttachmentRef[] = files.map(({ retry, snapshotPath, attachment: a }) => ({
      name: a.name ?? 'attachment', contentType: a.contentType, retry, ...(snapshotPath ? { snapshotPath } : {}),
      ...(a.path ? { path: a.path } : {}), ...(a.body ? { body: Buffer.from(a.body.buffer, a.body.byteOffset, a.body.byteLength) } : {}),
    }));
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

