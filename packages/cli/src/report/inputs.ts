import { open, readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { MalformedReportError } from './types.js';

export type ReportKind = 'playwright' | 'junit' | 'spool';
export interface ReportInputs {
  kind: ReportKind;
  /** Absolute or cwd-relative paths, sorted so hashes and record order are stable. */
  files: string[];
}

export class InputError extends Error {}

/** Looks at the first bytes: a JSON object is Playwright JSON, an XML document is JUnit. */
async function sniff(file: string): Promise<'json' | 'xml' | 'unknown'> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(512);
    const { bytesRead } = await fh.read(buf, 0, 512, 0);
    const head = buf.subarray(0, bytesRead).toString('utf8').replace(/^\uFEFF/, '').trimStart();
    if (head.startsWith('{')) return 'json';
    if (head.startsWith('<')) return 'xml';
    return 'unknown';
  } finally {
    await fh.close();
  }
}

async function walk(dir: string, out: string[]): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) await walk(p, out);
    } else if (entry.isFile()) out.push(p);
  }
}

/**
 * What `reporter upload <path>` was given: a Playwright JSON report (or a folder holding one), JUnit XML
 * files (one file or a folder, searched recursively), or reporter spool files (*.ndjson).
 */
export async function resolveInputs(path: string): Promise<ReportInputs> {
  let info;
  try {
    info = await stat(path);
  } catch {
    throw new InputError(`${path}: no such file or folder`);
  }
  if (info.isFile()) {
    if (extname(path).toLowerCase() === '.ndjson') return { kind: 'spool', files: [path] };
    const kind = await sniff(path);
    if (kind === 'json') return { kind: 'playwright', files: [path] };
    if (kind === 'xml') return { kind: 'junit', files: [path] };
    throw new MalformedReportError(path, 'not a Playwright JSON report, JUnit XML or spool file (it starts with neither "{" nor "<")');
  }
  const all: string[] = [];
  await walk(path, all);
  all.sort();
  const spool = all.filter((f) => extname(f).toLowerCase() === '.ndjson');
  const xml = all.filter((f) => extname(f).toLowerCase() === '.xml');
  const json = all.filter((f) => extname(f).toLowerCase() === '.json');
  const pwJson: string[] = [];
  for (const f of json) if ((await sniff(f)) === 'json') pwJson.push(f);
  if (pwJson.length && xml.length === 0) {
    if (pwJson.length > 1) {
      throw new InputError(`${path} holds ${pwJson.length} JSON files (${pwJson.slice(0, 3).join(', ')}…); pass the report file itself`);
    }
    return { kind: 'playwright', files: pwJson };
  }
  if (xml.length) return { kind: 'junit', files: xml };
  if (spool.length) return { kind: 'spool', files: spool };
  throw new InputError(`${path} holds no Playwright JSON report, JUnit XML (*.xml) or spool file (*.ndjson)`);
}
