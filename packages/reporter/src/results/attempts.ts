import { closeSync, openSync, readSync } from 'node:fs';
import { relative, sep } from 'node:path';
import type { AttemptInput, StepInput, TestCreate } from '@testreport/contract';
import { appendCapped, cleanError, cleanOutput, LIMITS, stripAnsi, TEXT_CAPS, truncate } from '@testreport/contract/core';
import { parseFormattedError, stackLocation, stackMessage, type Location } from './errors.js';
import { snapshotKey, snapshotPaths } from './snapshots.js';

/**
 * The one mapping of Playwright's results to the contract, used by the live reporter (Playwright's
 * `TestResult`) and by `reporter upload` (the JSON report's `results[]`, which mirror it): every
 * try with its errors, steps, output and text attachments, the test's final error, and the files
 * to upload with the try that made them. Both sources go through the same functions, so what the
 * server stores cannot drift between them (test/reporter/attempts.e2e.test.ts compares the two).
 * Zod-free and Playwright-free at run time: it runs inside Playwright's process.
 */

/** A stdout/stderr chunk: live a string or Buffer, in the JSON report `{text}` or `{buffer}` (base64). */
export type OutputChunk = string | Uint8Array | { text?: string; buffer?: string };

/** An error as Playwright gives it live (`TestError`) or as the JSON report's `errors[]` (message formatted with snippet and stack). */
export interface ErrorLike {
  message?: string;
  value?: string;
  stack?: string;
  snippet?: string;
  location?: Location;
}

export interface StepLike {
  title?: string;
  /** Absent in the JSON report, which keeps only `test.step` steps. */
  category?: string;
  duration?: number;
  error?: ErrorLike;
  location?: Location;
  steps?: readonly StepLike[];
}

export interface AttachmentLikeResult {
  name: string;
  contentType?: string;
  path?: string;
  /** Live a Buffer; in the JSON report base64 text. */
  body?: Uint8Array | string;
}

/** Playwright's `TestResult` and the JSON report's `JSONReportTestResult`, in what both have. */
export interface ResultLike {
  retry?: number;
  status?: string;
  duration?: number;
  startTime?: Date | string;
  errors?: readonly ErrorLike[];
  /** The JSON report's first error in full (its `errors[]` are formatted). */
  error?: ErrorLike;
  steps?: readonly StepLike[];
  stdout?: readonly OutputChunk[];
  stderr?: readonly OutputChunk[];
  annotations?: readonly { type?: string; description?: string }[];
  attachments?: readonly AttachmentLikeResult[];
}

export interface MapContext {
  /** Playwright's `rootDir`: locations are stored relative to it (as the report prints them). */
  rootDir?: string;
  /**
   * The Playwright project's root, where `playwright.config.ts` lives (snapshot paths are relative
   * to it, as the baselines live in the repository); Playwright's `rootDir` is the test folder.
   */
  projectRoot?: string;
  /** Where a relative attachment path points (the JSON report's folder); live paths are absolute. */
  resolvePath?(path: string): string;
}

/** A file of a try, for the artifact planner: the attachment with the retry that made it. */
export interface TryFile {
  retry: number;
  /** A snapshot comparison's file: its baseline's path relative to the project root (results/snapshots.ts). */
  snapshotPath?: string;
  attachment: { name: string; contentType?: string; path?: string; body?: Uint8Array };
}

export type TestError = NonNullable<TestCreate['error']>;
type AttemptErrorInput = NonNullable<AttemptInput['errors']>[number];

const MAX_STEPS = 2_000;
const ATTEMPT_STATUSES = new Set(['passed', 'failed', 'timedOut', 'skipped', 'interrupted']);

// Every step and error of a test names its file again: each path is made relative once per root
// (path.relative resolves both paths on every call: 1.6 µs here, against 0.03 µs for the cached
// answer; with its split and join a fifth of the mapping's time in Playwright's runner).
const relativeByRoot = new Map<string, Map<string, string>>();
const MAX_RELATIVE_PATHS = 10_000;

export function relativeTo(rootDir: string | undefined, file: string): string {
  if (!rootDir || !file) return file;
  let paths = relativeByRoot.get(rootDir);
  if (!paths) relativeByRoot.set(rootDir, (paths = new Map()));
  let rel = paths.get(file);
  if (rel === undefined) {
    if (paths.size >= MAX_RELATIVE_PATHS) paths.clear();
    rel = (relative(rootDir, file) || file).split(sep).join('/');
    paths.set(file, rel);
  }
  return rel;
}

function located(loc: Location | undefined, ctx: MapContext): Location | undefined {
  if (!loc?.file) return undefined;
  return { file: relativeTo(ctx.rootDir, loc.file), line: Math.max(0, Math.trunc(loc.line ?? 0)), column: Math.max(0, Math.trunc(loc.column ?? 0)) };
}

/**
 * One error as stored. Live errors and the JSON report's first error are whole (`stack`,
 * `snippet`); the JSON report's others are one formatted text, split back into the same parts.
 * The message is the stack's message part when there is a stack (what Playwright prints).
 */
export function mapError(e: ErrorLike, ctx: MapContext): AttemptErrorInput {
  const whole: ErrorLike = e.stack !== undefined || e.snippet !== undefined ? e : parseFormattedError(e);
  const stack = whole.stack ? stripAnsi(whole.stack) : undefined;
  const message = cleanError((stack ? stackMessage(stack) : '') || whole.message || whole.value || 'Error');
  const location = located(whole.location ?? (stack ? stackLocation(stack) : undefined), ctx);
  const snippet = whole.snippet ? truncate(stripAnsi(whole.snippet), LIMITS.snippetChars) : undefined;
  return { message, ...(stack ? { stack: cleanError(stack) } : {}), ...(location ? { location } : {}), ...(snippet ? { snippet } : {}) };
}

/** The JSON report's `errors[]` are formatted; its `error` is the first one whole: used in its place. */
function errorsOf(r: ResultLike): readonly ErrorLike[] {
  const list = r.errors ?? [];
  if (r.error && list.length > 0 && list[0].stack === undefined && list[0].snippet === undefined) return [r.error, ...list.slice(1)];
  if (list.length === 0 && r.error) return [r.error];
  return list;
}

const STEP_CATEGORY: Record<string, StepInput['category']> = { hook: 'hook', fixture: 'fixture', expect: 'assertion', 'pw:api': 'action', 'test.step': 'action' };

/** The JSON report writes no category: the title says what kind of step it was. */
function categoryOf(s: StepLike): StepInput['category'] {
  if (s.category) return STEP_CATEGORY[s.category] ?? 'action';
  const title = s.title ?? '';
  if (/^(Before|After) Hooks$|^(before|after)(Each|All) hook/i.test(title)) return 'hook';
  if (/^fixture: /.test(title)) return 'fixture';
  if (/^(expect|toHave|toBe|toMatch)/.test(title)) return 'assertion';
  return 'action';
}

export function mapSteps(steps: readonly StepLike[] | undefined, ctx: MapContext): StepInput[] {
  let budget = MAX_STEPS;
  const walk = (list: readonly StepLike[]): StepInput[] => {
    const out: StepInput[] = [];
    for (const s of list) {
      if (budget-- <= 0) break;
      const children = s.steps?.length ? walk(s.steps) : undefined;
      const location = located(s.location, ctx);
      out.push({
        title: s.title || s.category || '(step)',
        category: categoryOf(s),
        status: s.error ? 'failed' : 'passed',
        duration: Math.max(0, s.duration ?? 0),
        error: s.error ? { message: cleanError(s.error.message ?? s.error.value ?? 'Error') } : null,
        ...(location ? { location } : {}),
        ...(children?.length ? { steps: children } : {}),
      });
    }
    return out;
  };
  return walk(steps ?? []);
}

function chunkText(c: OutputChunk): string {
  if (typeof c === 'string') return c;
  if (c instanceof Uint8Array) return Buffer.from(c.buffer, c.byteOffset, c.byteLength).toString('utf8');
  return c.text ?? (c.buffer ? Buffer.from(c.buffer, 'base64').toString('utf8') : '');
}

export function joinOutput(chunks: readonly OutputChunk[] | undefined): string {
  let out = '';
  for (const c of chunks ?? []) {
    out = appendCapped(out, chunkText(c));
    if (out.length >= TEXT_CAPS.output) break;
  }
  return out ? cleanOutput(out) : '';
}

const mediaType = (contentType: string | undefined) => (contentType ?? '').split(';')[0].trim().toLowerCase();

/** Text/*, JSON and Markdown attachments are kept inline (Playwright's `error-context` page snapshot is Markdown). */
export function isTextAttachment(a: { contentType?: string }): boolean {
  const m = mediaType(a.contentType);
  return m.startsWith('text/') || m === 'application/json' || m.endsWith('+json') || m === 'application/x-ndjson';
}

/** The first bytes of a file, enough for the cap: a huge log is not read whole into Playwright's process. */
function readHead(path: string, max: number): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(max + 1);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function bodyBytes(body: Uint8Array | string | undefined): Uint8Array | undefined {
  if (body === undefined) return undefined;
  return typeof body === 'string' ? Buffer.from(body, 'base64') : body;
}

function textOf(a: AttachmentLikeResult, ctx: MapContext): string | undefined {
  // Bytes, not characters, bound what is read; the cut lands on characters below.
  const max = LIMITS.textAttachmentChars * 4;
  if (a.path) return readHead(ctx.resolvePath ? ctx.resolvePath(a.path) : a.path, max);
  const bytes = bodyBytes(a.body);
  return bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, max + 1)).toString('utf8') : undefined;
}

export interface MappedTry {
  attempt: AttemptInput;
  files: TryFile[];
}

/** One try: its text attachments inline (capped), its other attachments as files to upload with its retry. */
export function mapTry(r: ResultLike, index: number, ctx: MapContext): MappedTry {
  const retry = Number.isInteger(r.retry) && r.retry! >= 0 ? r.retry! : index;
  const status = (ATTEMPT_STATUSES.has(r.status ?? '') ? r.status : 'failed') as AttemptInput['status'];
  const texts: NonNullable<AttemptInput['attachments']> = [];
  const files: TryFile[] = [];
  const resolved = (p: string) => (ctx.resolvePath ? ctx.resolvePath(p) : p);
  const paths = snapshotPaths((r.attachments ?? []).map((a) => ({ name: a.name, ...(a.path ? { path: resolved(a.path) } : {}) })), errorsOf(r).map((e) => e.message ?? ''), ctx.projectRoot ?? ctx.rootDir);
  for (const a of r.attachments ?? []) {
    if (isTextAttachment(a) && (a.path || a.body !== undefined)) {
      if (texts.length >= LIMITS.textAttachmentsMax) continue;
      const text = textOf(a, ctx);
      if (text !== undefined) texts.push({ name: a.name || 'attachment', contentType: mediaType(a.contentType) || 'text/plain', body: truncate(text, LIMITS.textAttachmentChars) });
      continue;
    }
    if (!a.path && a.body === undefined) continue;
    const snapshotPath = paths.get(snapshotKey(a.name) ?? '');
    files.push({ retry, ...(snapshotPath ? { snapshotPath } : {}), attachment: { name: a.name, contentType: a.contentType, ...(a.path ? { path: ctx.resolvePath ? ctx.resolvePath(a.path) : a.path } : {}), ...(a.body !== undefined ? { body: bodyBytes(a.body) } : {}) } });
  }
  const errors = errorsOf(r).slice(0, LIMITS.attemptErrorsMax).map((e) => mapError(e, ctx));
  const steps = mapSteps(r.steps, ctx);
  const stdout = joinOutput(r.stdout);
  const stderr = joinOutput(r.stderr);
  const annotations = (r.annotations ?? []).filter((a) => a.type).slice(0, 100).map((a) => ({ type: a.type!, description: a.description ?? '' }));
  const startedAt = r.startTime === undefined ? undefined : new Date(r.startTime);
  const attempt: AttemptInput = {
    retry,
    status,
    duration: Math.max(0, r.duration ?? 0),
    ...(startedAt && !Number.isNaN(startedAt.getTime()) ? { startedAt: startedAt.toISOString() } : {}),
    errors,
    ...(steps.length ? { steps } : {}),
    ...(stdout ? { stdout } : {}),
    ...(stderr ? { stderr } : {}),
    ...(annotations.length ? { annotations } : {}),
    ...(texts.length ? { attachments: texts } : {}),
  };
  return { attempt, files };
}

/** expect() failures print "Expected: …" and "Received: …" lines; Playwright does not expose them apart. */
function matcherValues(message: string): { expected?: string; actual?: string } {
  const expected = /^\s*Expected(?: [\w ]+)?: (.*)$/m.exec(message)?.[1];
  const actual = /^\s*Received(?: [\w ]+)?: (.*)$/m.exec(message)?.[1];
  return { ...(expected !== undefined ? { expected } : {}), ...(actual !== undefined ? { actual } : {}) };
}

/** Output of every try, labelled when there was more than one (the test's own stdout/stderr, for search and older readers). */
function labelledOutput(tries: readonly AttemptInput[], pick: (a: AttemptInput) => string | undefined): string | undefined {
  const parts = tries.filter((a) => pick(a)).map((a) => (tries.length > 1 ? `--- attempt ${a.retry + 1} ---\n${pick(a)}` : pick(a)!));
  const text = parts.join(tries.length > 1 ? '\n' : '');
  return text ? cleanOutput(text) : undefined;
}

export type FinalStatus = TestCreate['status'];

export interface MappedResults {
  /** The test's own fields that come from its tries: its final outcome. */
  fields: Pick<TestCreate, 'duration' | 'retries' | 'attempt' | 'error' | 'attempts' | 'stdout' | 'stderr'>;
  files: TryFile[];
}

/**
 * Every try of a test and the test's fields that follow from them: duration and attempt of the
 * last try; the error of the try that decided the status (a flaky test's last failure, so it
 * shows why it flaked). Steps are sent once, inside the tries (the server gives a test without
 * steps of its own its last try's).
 */
export function mapResults(results: readonly ResultLike[], status: FinalStatus, ctx: MapContext): MappedResults {
  const tries = results.slice(-LIMITS.attemptsMax).map((r, i) => mapTry(r, results.length > LIMITS.attemptsMax ? results.length - LIMITS.attemptsMax + i : i, ctx));
  const attempts = tries.map((t) => t.attempt);
  const last = attempts[attempts.length - 1];
  let decided: AttemptInput | undefined;
  if (status === 'failed') decided = last?.errors?.length ? last : [...attempts].reverse().find((a) => a.errors?.length);
  else if (status === 'flaky') decided = [...attempts].reverse().find((a) => a.errors?.length);
  const first = decided?.errors?.[0];
  const error: TestError | null = first ? { message: first.message, ...(first.stack ? { stack: first.stack } : {}), ...matcherValues(first.message) } : null;
  const stdout = labelledOutput(attempts, (a) => a.stdout);
  const stderr = labelledOutput(attempts, (a) => a.stderr);
  return {
    fields: {
      duration: last?.duration ?? 0,
      retries: last?.retry ?? 0,
      attempt: (last?.retry ?? 0) + 1,
      error,
      attempts,
      ...(stdout ? { stdout } : {}),
      ...(stderr ? { stderr } : {}),
    },
    files: tries.flatMap((t) => t.files),
  };
}
