import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { snapshotPathProblem } from '@testreport/contract/core';
import type { ResponseOf } from '@testreport/contract';
import { detectCi, withBuildIdentity } from '@testreport/reporter';
import type { Command } from 'commander';
import { command } from '../lib/action.js';
import type { Context } from '../lib/context.js';
import { UsageError } from '../lib/errors.js';
import type { Output } from '../lib/output.js';

export type BaselineList = ResponseOf<'runs.baselines'> & { runId: string };
export interface PullInput {
  runId?: string;
  /** Write nothing; report what would change (the command exits 1 when anything would). */
  check?: boolean;
}
export interface PulledFile { snapshotPath: string; testId: string; name: string; status: 'written' | 'unchanged' | 'would change' }
export interface PullResult { runId: string; files: PulledFile[]; changed: number; unchanged: number; check: boolean }

/**
 * The run whose baselines to take: --run, else the newest run of the CI build this job belongs to,
 * else the newest run of the current git branch.
 */
async function resolveRun(ctx: Context, runId: string | undefined): Promise<string> {
  if (runId) return runId;
  const client = ctx.client();
  const projectId = await ctx.projectId(client);
  const ci = withBuildIdentity(detectCi(ctx.env), {}, ctx.env);
  if (ci.ciBuildId) {
    const newest = await client.runs.list({ projectId, ciBuildId: ci.ciBuildId, limit: 1 });
    if (newest.data[0]) return newest.data[0].id;
  }
  if (!ci.branch) throw new UsageError('which run? pass --run <id> (no CI build and no git branch found)');
  const latest = await client.runs.list({ projectId, branch: ci.branch, limit: 1 });
  if (!latest.data[0]) throw new Error(`no run of branch ${ci.branch} in this project`);
  return latest.data[0].id;
}

export async function listBaselines(ctx: Context, input: { runId?: string }): Promise<BaselineList> {
  const runId = await resolveRun(ctx, input.runId);
  return { runId, ...(await ctx.client().runs.baselines(runId)) };
}

/**
 * Where a snapshot path lands under `cwd`; a path that is absolute or leaves the folder is refused
 * (the server refuses them too, this is the second lock: a file is never written outside `cwd`).
 */
export function targetOf(cwd: string, snapshotPath: string): string {
  const problem = snapshotPathProblem(snapshotPath);
  if (problem) throw new Error(`refusing snapshot path ${JSON.stringify(snapshotPath)}: it ${problem}`);
  const target = resolve(cwd, snapshotPath);
  const rel = relative(resolve(cwd), target);
  if (!rel || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) throw new Error(`refusing snapshot path ${JSON.stringify(snapshotPath)}: it leaves ${cwd}`);
  return target;
}

const readIfThere = (path: string) => readFile(path).catch(() => null);

/** `reporter baselines pull`: writes each accepted actual of the run to its snapshotPath under the working folder. */
export async function pullBaselines(ctx: Context, input: PullInput): Promise<PullResult> {
  const { runId, data } = await listBaselines(ctx, input);
  // Every path is checked before anything is downloaded or written: a bad one fails the whole pull.
  const planned = data.map((b) => ({ b, target: targetOf(ctx.cwd, b.snapshotPath) }));
  const files: PulledFile[] = [];
  for (const { b, target } of planned) {
    const res = await fetch(b.url);
    if (!res.ok) throw new Error(`downloading ${b.snapshotPath} failed: HTTP ${res.status}`);
    const bytes = Buffer.from(await res.arrayBuffer());
    const before = await readIfThere(target);
    const same = before !== null && before.equals(bytes);
    if (!same && !input.check) {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, bytes);
    }
    files.push({ snapshotPath: b.snapshotPath, testId: b.testId, name: b.name, status: same ? 'unchanged' : input.check ? 'would change' : 'written' });
  }
  const changed = files.filter((f) => f.status !== 'unchanged').length;
  return { runId, files, changed, unchanged: files.length - changed, check: Boolean(input.check) };
}

function printList(out: Output, r: BaselineList): void {
  out.table(r.data, [
    { header: 'SNAPSHOT PATH', value: (b) => b.snapshotPath },
    { header: 'NAME', value: (b) => b.name },
    { header: 'ACCEPTED BY', value: (b) => b.acceptance.by },
    { header: 'AT', value: (b) => b.acceptance.at },
  ], `no accepted baselines in run ${r.runId}`);
}

function printPull(out: Output, r: PullResult): void {
  for (const f of r.files) out.line(`${f.status.padEnd(12)}  ${f.snapshotPath}`);
  const verb = r.check ? 'would change' : 'written';
  out.line(`${r.changed} ${verb}, ${r.unchanged} unchanged (${r.files.length} accepted baseline${r.files.length === 1 ? '' : 's'} of run ${r.runId})`);
}

export function registerBaselines(program: Command): void {
  const baselines = program.command('baselines').description('screenshot baselines accepted on the dashboard or by API');
  baselines
    .command('list')
    .description('list the accepted snapshots of a run')
    .option('--run <id>', 'the run (default: the newest run of this CI build, else of the current git branch)')
    .action(command({ input: (_a, flags: { run?: string }) => ({ runId: flags.run }), run: listBaselines, print: printList }));
  baselines
    .command('pull')
    .description('write each accepted actual to its snapshot path under the current folder, creating folders')
    .option('--run <id>', 'the run (default: the newest run of this CI build, else of the current git branch)')
    .option('--check', 'write nothing; exit 1 when any baseline would change (for CI)')
    .action(
      command({
        input: (_a, flags: { run?: string; check?: boolean }) => ({ runId: flags.run, check: Boolean(flags.check) }),
        run: async (ctx, input: PullInput) => {
          const r = await pullBaselines(ctx, input);
          if (r.check && r.changed > 0) process.exitCode = 1;
          return r;
        },
        print: printPull,
      }),
    );
}
