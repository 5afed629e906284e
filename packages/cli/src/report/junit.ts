import { createReadStream } from 'node:fs';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { appendCapped, cleanError, stripAnsi, TEXT_CAPS } from '@testreport/contract/core';
import { MalformedReportError, type ParsedTest, type ReportRecord, type SuiteRef } from './types.js';

interface OpenCase {
  attrs: Record<string, string>;
  suites: SuiteRef[];
  outcome: 'passed' | 'failed' | 'skipped';
  /** Surefire's rerun dialect: <flakyFailure>/<flakyError> (passed on a rerun) and <rerunFailure>/<rerunError>. */
  reruns: number;
  error?: { message: string; stack?: string };
  stdout: string;
  stderr: string;
}

type Capture = 'failure' | 'stdout' | 'stderr' | 'skip';

const FAILURE_TAGS = new Set(['failure', 'error']);
const RERUN_TAGS = new Set(['flakyFailure', 'flakyError', 'rerunFailure', 'rerunError']);

/** JUnit `time` is seconds, sometimes with thousands separators ("1,234.5"). */
function seconds(value: string | undefined): number {
  if (!value) return 0;
  const n = Number(value.replace(/,/g, ''));
  return Number.isFinite(n) && n > 0 ? Math.round(n * 1000 * 1000) / 1000 : 0;
}

function lineOf(value: string | undefined): number | undefined {
  const n = value === undefined ? NaN : Number(value);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** The suite path plus the classname when it adds something (jest puts describe blocks there). */
function titlesOf(c: OpenCase): { title: string; fullTitle: string } {
  const name = c.attrs.name?.trim() || c.attrs.classname?.trim() || '(unnamed test)';
  const parts = c.suites.map((s) => s.title);
  const cls = c.attrs.classname?.trim();
  const last = parts[parts.length - 1];
  if (cls && cls !== last && cls !== name) parts.push(cls);
  parts.push(name);
  return { title: name, fullTitle: parts.join(' > ') };
}

function toTest(c: OpenCase): ParsedTest {
  const { title, fullTitle } = titlesOf(c);
  const failed = c.outcome === 'failed';
  const flaky = !failed && c.outcome !== 'skipped' && c.reruns > 0;
  const filePath = c.attrs.file || c.suites.findLast((s) => s.filePath)?.filePath;
  const test: ParsedTest = {
    title,
    fullTitle,
    status: failed ? 'failed' : flaky ? 'flaky' : c.outcome,
    duration: seconds(c.attrs.time),
    retries: c.reruns,
    attempt: c.reruns + 1,
    isFlaky: flaky,
  };
  if (filePath) test.filePath = filePath;
  const line = lineOf(c.attrs.line);
  if (line !== undefined) test.lineNumber = line;
  if (c.error && (failed || flaky)) test.error = c.error;
  if (c.stdout.trim()) test.stdout = c.stdout;
  if (c.stderr.trim()) test.stderr = c.stderr;
  return test;
}

/**
 * Streams one JUnit XML file (any dialect: Surefire, TestNG, pytest, jest-junit, go-junit-report,
 * PHPUnit nested suites, .NET JunitXml, nextest, Bazel, mocha) into test records. Memory is bounded by
 * one <testcase>: the file is fed to saxes chunk by chunk.
 */
export async function* readJunit(file: string): AsyncGenerator<ReportRecord> {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const out: ReportRecord[] = [];
  const suites: SuiteRef[] = [];
  let current: OpenCase | null = null;
  let capture: Capture | null = null;
  let captureDepth = 0;
  let depth = 0;
  let sawRoot = false;
  let failureText = '';
  let failureAttrs: Record<string, string> = {};
  let parseError: Error | null = null;
  // Run duration: the root <testsuites time>, else the sum of the top-level <testsuite time>s.
  let rootTime: number | undefined;
  let topSuitesTime = 0;

  parser.on('error', (err) => {
    parseError ??= err;
  });
  parser.on('opentag', (tag: SaxesTagPlain) => {
    depth++;
    const attrs = tag.attributes as Record<string, string>;
    if (!sawRoot) {
      sawRoot = true;
      if (tag.name !== 'testsuites' && tag.name !== 'testsuite' && tag.name !== 'testcase') {
        parseError ??= new Error(`root element is <${tag.name}>, not <testsuites> or <testsuite>`);
      }
      if (tag.name === 'testsuites' && attrs.time) rootTime = seconds(attrs.time);
    }
    if (tag.name === 'testsuite' && suites.length === 0 && !current) topSuitesTime += seconds(attrs.time);
    if (capture) return;
    if (!current) {
      if (tag.name === 'testsuite') suites.push({ title: attrs.name?.trim() || '(unnamed suite)', ...(attrs.file ? { filePath: attrs.file } : {}) });
      else if (tag.name === 'testcase') current = { attrs, suites: [...suites], outcome: 'passed', reruns: 0, stdout: '', stderr: '' };
      return;
    }
    if (FAILURE_TAGS.has(tag.name)) {
      current.outcome = 'failed';
      if (!current.error) {
        capture = 'failure';
        captureDepth = depth;
        failureText = '';
        failureAttrs = attrs;
      }
    } else if (RERUN_TAGS.has(tag.name)) {
      current.reruns++;
      // The nested <stackTrace>/<system-out> of a rerun belong to the failed attempt, not the test.
      capture = 'skip';
      captureDepth = depth;
      if (!current.error) current.error = { message: cleanError(attrs.message?.trim() || attrs.type || tag.name) };
    } else if (tag.name === 'skipped') {
      if (current.outcome !== 'failed') current.outcome = 'skipped';
    } else if (tag.name === 'system-out') {
      capture = 'stdout';
      captureDepth = depth;
    } else if (tag.name === 'system-err') {
      capture = 'stderr';
      captureDepth = depth;
    }
  });
  const onText = (text: string) => {
    if (!current || !capture) return;
    if (capture === 'failure') failureText = appendCapped(failureText, text, TEXT_CAPS.error);
    else if (capture === 'stdout') current.stdout = appendCapped(current.stdout, text);
    else if (capture === 'stderr') current.stderr = appendCapped(current.stderr, text);
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', (tag) => {
    if (capture && depth === captureDepth) {
      if (capture === 'failure' && current) {
        const body = stripAnsi(failureText.trim());
        const message = stripAnsi(failureAttrs.message?.trim() || body.split('\n')[0] || failureAttrs.type || tag.name);
        current.error = { message: message.slice(0, TEXT_CAPS.error), ...(body ? { stack: body } : {}) };
        // A <failure> replaces what a rerun reported: it is the final word.
      }
      capture = null;
    }
    depth--;
    if (capture) return;
    if (tag.name === 'testcase' && current) {
      out.push({ kind: 'test', suites: current.suites, test: toTest(current), attachments: [] });
      current = null;
    } else if (tag.name === 'testsuite' && !current) {
      suites.pop();
    }
  });

  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 256 * 1024 });
  let first = true;
  try {
    for await (let chunk of stream as AsyncIterable<string>) {
      // .NET's JunitXml logger writes a BOM and no declaration; saxes rejects a BOM as text before the root.
      if (first && chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
      first = false;
      parser.write(chunk);
      if (parseError) break;
      while (out.length) yield out.shift()!;
    }
    if (!parseError) parser.close();
  } catch (err) {
    parseError ??= err as Error;
  } finally {
    stream.destroy();
  }
  if (parseError) throw new MalformedReportError(file, `not valid JUnit XML: ${firstLine((parseError as Error).message)}`);
  if (!sawRoot) throw new MalformedReportError(file, 'not valid JUnit XML: the file has no root element');
  while (out.length) yield out.shift()!;
  yield { kind: 'meta', duration: Math.round(rootTime || topSuitesTime) };
}

function firstLine(text: string): string {
  return text.split('\n')[0];
}
