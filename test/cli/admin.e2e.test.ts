import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '@testreport/server/testing';
import { FIXTURES_DIR } from './fixtureCounts.js';
import { assertBuilt, cli, tempDir } from './helpers.js';

// Each check spawns the binary (about a second of start-up on a busy 2-core machine).
vi.setConfig({ testTimeout: 120_000 });

let srv: TestServer;
let keyEnv: Record<string, string>;
let runId: string;
let flakyTestId: string;
let hookServer: Server;
let hookUrl: string;
const received: string[] = [];

beforeAll(async () => {
  assertBuilt();
  srv = await startTestServer();
  keyEnv = { TESTREPORT_URL: srv.url, TESTREPORT_API_KEY: srv.apiKey, TESTREPORT_CONFIG_DIR: tempDir('cfg-') };
  // Results to look at: a Playwright report with a failure, a flaky test and a skip.
  const up = await cli(['upload', join(FIXTURES_DIR, 'playwright-json/pw-1.37-retries-flaky.json'), '--json'], keyEnv);
  expect(up.code).toBe(0);
  runId = up.json.runId;
  const flaky = await srv.api('GET', `/tests?projectId=${srv.projectId}&runId=${runId}&status=flaky`, { auth: srv.apiKey });
  flakyTestId = flaky.body.data[0].id;
  hookServer = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      received.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => hookServer.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hook`;
}, 120_000);

afterAll(async () => {
  await srv?.close();
  await new Promise((r) => hookServer?.close(r));
});

/** Runs a command twice, for people and for scripts, and checks both succeed. */
async function both(args: string[], env = keyEnv) {
  const human = await cli(args, env);
  expect(human.code, `${args.join(' ')}: ${human.stderr}`).toBe(0);
  expect(human.stderr).not.toMatch(/error:/);
  const json = await cli([...args, '--json'], env);
  expect(json.code, `${args.join(' ')} --json: ${json.stderr}`).toBe(0);
  expect(json.json, `${args.join(' ')} --json printed no JSON`).toBeDefined();
  return { human: human.stdout, json: json.json };
}

describe('runs, tests and flaky commands', () => {
  it('runs list and get', async () => {
    const list = await both(['runs', 'list']);
    expect(list.human).toMatch(/^ID\s+STATUS\s+BRANCH/);
    expect(list.human).toContain(runId);
    expect(list.json.data.map((r: any) => r.id)).toContain(runId);
    const failedOnly = await cli(['runs', 'list', '--status', 'passed', '--json'], keyEnv);
    expect(failedOnly.json.data.map((r: any) => r.id)).not.toContain(runId);
    const get = await both(['runs', 'get', runId]);
    expect(get.human).toMatch(/tests\s+14 \(10 passed, 2 failed, 1 flaky, 1 skipped\)/);
    expect(get.json).toMatchObject({ id: runId, totalTests: 14, status: 'failed' });
  });

  it('tests list, get (with steps) and history', async () => {
    const list = await both(['tests', 'list', '--run', runId, '--status', 'failed']);
    expect(list.json.total).toBe(2);
    expect(list.human).toMatch(/failed/);
    const id = list.json.data[0].id;
    const get = await both(['tests', 'get', id, '--steps']);
    expect(get.json).toMatchObject({ id, status: 'failed', steps: [] });
    expect(get.human).toMatch(/Expected/);
    const history = await both(['tests', 'history', id]);
    expect(history.json.data[0]).toMatchObject({ runId, status: 'failed' });
    expect(history.human).toMatch(/^RESULT\s+STATUS/);
  });

  it('flaky list, quarantine and release', async () => {
    const list = await both(['flaky', 'list', '--min-score', '0.5']);
    expect(list.json.data.map((f: any) => f.testId)).toContain(flakyTestId);
    expect(list.human).toMatch(/1 flaky, 0 quarantined/);
    const q = await cli(['flaky', 'quarantine', flakyTestId, '--json'], keyEnv);
    expect(q.code).toBe(0);
    expect(q.json).toMatchObject({ testId: flakyTestId, isQuarantined: true });
    const quarantined = await both(['flaky', 'list', '--quarantined']);
    expect(quarantined.json.data).toHaveLength(1);
    const r = await cli(['flaky', 'release', flakyTestId, '--reason', 'fixed in #123'], keyEnv);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/released from quarantine/);
    const events = await both(['flaky', 'events', flakyTestId]);
    expect(events.json.data.map((e: any) => [e.action, e.actor.type, e.reason])).toEqual([['released', 'apiKey', 'fixed in #123'], ['quarantined', 'apiKey', 'quarantined by hand']]);
    expect(events.human).toMatch(/released .*fixed in #123/);
    expect((await cli(['flaky', 'list', '--quarantined', '--json'], keyEnv)).json.data).toHaveLength(0);
    const bad = await cli(['flaky', 'list', '--min-score', '2'], keyEnv);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--min-score must be a number from 0 to 1/);
  });

  it('runs delete asks for --yes without a terminal, then deletes', async () => {
    const up = await cli(['upload', join(FIXTURES_DIR, 'junit/cargo-nextest-basic.xml'), '--json', '--run-title', 'to delete'], keyEnv);
    const id = up.json.runId;
    const refused = await cli(['runs', 'delete', id], keyEnv);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/pass --yes/);
    const del = await cli(['runs', 'delete', id, '--yes', '--json'], keyEnv);
    expect(del.code).toBe(0);
    expect(del.json.success).toBe(true);
    const gone = await cli(['runs', 'get', id], keyEnv);
    expect(gone.code).toBe(1);
    expect(gone.stderr.trim()).toMatch(/^error: .*\[NOT_FOUND, HTTP 404\]/);
    expect(gone.stderr.trim().split('\n')).toHaveLength(1);
    const json = await cli(['runs', 'get', id, '--json'], keyEnv);
    expect(json.json.error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('upload sends the repository\'s CODEOWNERS; tests list and flaky list filter by --owner', async () => {
    const repo = tempDir('repo-');
    mkdirSync(join(repo, '.git'));
    mkdirSync(join(repo, '.github'));
    mkdirSync(join(repo, 'e2e'));
    // Playwright's rootDir is e2e/: the report's paths (add.spec.ts, nested.spec.ts) are under it.
    writeFileSync(join(repo, '.github/CODEOWNERS'), '* @acme/all\n/e2e/nested.spec.ts @acme/nested\n');
    const up = await cli(['upload', join(FIXTURES_DIR, 'playwright-json/pw-1.38-nested-suites.json'), '--root-dir', join(repo, 'e2e'), '--json'], keyEnv);
    expect(up.code, up.stderr).toBe(0);
    const owned = await both(['tests', 'list', '--run', up.json.runId, '--owner', '@acme/nested']);
    expect(owned.json.data.length).toBeGreaterThan(0);
    expect(owned.json.data.every((t: any) => t.filePath === 'nested.spec.ts' && t.owners.includes('@acme/nested'))).toBe(true);
    const all = await cli(['tests', 'list', '--run', up.json.runId, '--json', '--limit', '500'], keyEnv);
    expect(all.json.data.filter((t: any) => t.filePath === 'nested.spec.ts').length).toBe(owned.json.data.length);
    expect(all.json.data.filter((t: any) => t.filePath !== 'nested.spec.ts').every((t: any) => t.owners.join() === '@acme/all')).toBe(true);
    expect((await cli(['flaky', 'list', '--owner', '@nobody', '--json'], keyEnv)).json.data).toEqual([]);
  });
});

describe('sessions, keys, projects and settings', () => {
  const cfg = tempDir('session-');
  // No API key anywhere: everything below runs on the stored session.
  const env = () => ({ TESTREPORT_URL: srv.url, TESTREPORT_CONFIG_DIR: cfg });

  it('login stores a 0600 session; whoami and logout use it', async () => {
    const noSession = await cli(['whoami'], env());
    expect(noSession.code).toBe(2);
    const wrong = await cli(['login', '--email', srv.owner.email, '--password', 'not the password'], env());
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/UNAUTHORIZED/);
    const login = await cli(['login', '--email', srv.owner.email], { ...env(), TESTREPORT_PASSWORD: srv.owner.password });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(`as ${srv.owner.email}`);
    expect(statSync(join(cfg, 'credentials.json')).mode & 0o777).toBe(0o600);
    const who = await both(['whoami'], env());
    expect(who.json).toMatchObject({ type: 'user', user: { email: srv.owner.email } });
    expect(who.human).toContain(srv.owner.email);
  });

  it('keys create prints the key once with a warning; the key works; list, disable, enable, delete', async () => {
    const created = await cli(['keys', 'create', '--name', 'ci', '--project', srv.projectId], env());
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.match(/trk_live_[0-9A-Za-z]{38}/)![0];
    expect(created.stderr).toMatch(/shown only once/);
    const asKey = await cli(['whoami', '--json'], { TESTREPORT_URL: srv.url, TESTREPORT_API_KEY: key, TESTREPORT_CONFIG_DIR: tempDir('none-') });
    expect(asKey.json).toMatchObject({ type: 'apiKey', apiKey: { name: 'ci', projectId: srv.projectId } });

    const list = await both(['keys', 'list', '--project', srv.projectId], env());
    const row = list.json.data.find((k: any) => k.name === 'ci');
    expect(row.maskedKey).toMatch(/^trk_live_\*+/);
    expect(list.human).not.toContain(key);

    expect((await cli(['keys', 'disable', row.id], env())).code).toBe(0);
    const rejected = await cli(['whoami'], { TESTREPORT_URL: srv.url, TESTREPORT_API_KEY: key, TESTREPORT_CONFIG_DIR: tempDir('none-') });
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toMatch(/UNAUTHORIZED/);
    const enabled = await cli(['keys', 'enable', row.id, '--json'], env());
    expect(enabled.json).toMatchObject({ id: row.id, isActive: true });
    expect((await cli(['keys', 'delete', row.id, '--yes'], env())).code).toBe(0);
    expect((await cli(['keys', 'list', '--project', srv.projectId, '--json'], env())).json.data.find((k: any) => k.id === row.id)).toBeUndefined();

    const json = await cli(['keys', 'create', '--name', 'scripted', '--project', srv.projectId, '--json'], env());
    expect(json.json.key).toMatch(/^trk_live_/);
    const noName = await cli(['keys', 'create', '--project', srv.projectId], env());
    expect(noName.code).toBe(2);
  });

  it('projects list, create, get, delete', async () => {
    const list = await both(['projects', 'list'], env());
    expect(list.json.data.map((p: any) => p.id)).toContain(srv.projectId);
    const created = await cli(['projects', 'create', '--name', 'cli-made', '--json'], env());
    expect(created.code, created.stderr).toBe(0);
    const id = created.json.id;
    const get = await both(['projects', 'get', id], env());
    expect(get.json).toMatchObject({ id, name: 'cli-made', teamId: srv.teamId });
    expect(get.human).toMatch(/name\s+cli-made/);
    const del = await cli(['projects', 'delete', id, '--yes'], env());
    expect(del.code).toBe(0);
    expect((await cli(['projects', 'get', id], env())).code).toBe(1);
  });

  it('settings get and set', async () => {
    const get = await both(['settings', 'get', '--project', srv.projectId], env());
    expect(get.json).toMatchObject({ projectId: srv.projectId, dataRetentionDays: 30, flakinessThreshold: 0.3, autoQuarantineEnabled: false });
    const set = await cli(['settings', 'set', '--project', srv.projectId, '--retention-days', '90', '--auto-quarantine', 'on', '--json'], env());
    expect(set.code, set.stderr).toBe(0);
    expect(set.json).toMatchObject({ dataRetentionDays: 90, autoQuarantineEnabled: true, flakinessThreshold: 0.3 });
    const human = await cli(['settings', 'set', '--project', srv.projectId, '--flakiness-threshold', '0.25'], env());
    expect(human.stdout).toMatch(/flakiness threshold\s+0\.25/);
    const policy = await cli(['settings', 'set', '--project', srv.projectId, '--auto-release-after', '10', '--auto-quarantine-min-runs', '5'], env());
    expect(policy.code, policy.stderr).toBe(0);
    expect(policy.stdout).toMatch(/auto-quarantine\s+on \(after 5 results\)/);
    expect(policy.stdout).toMatch(/auto-release\s+after 10 clean passes on main/);
    expect((await cli(['settings', 'set', '--project', srv.projectId, '--auto-release-after', '51'], env())).code).toBe(2);
    expect((await cli(['settings', 'set', '--project', srv.projectId], env())).code).toBe(2);
    expect((await cli(['settings', 'set', '--project', srv.projectId, '--retention-days', '0'], env())).code).toBe(2);
    // A key may read settings but not change them (docs/decisions.md §6).
    const byKey = await cli(['settings', 'set', '--retention-days', '5'], { ...keyEnv, TESTREPORT_CONFIG_DIR: tempDir('none-') });
    expect(byKey.code).toBe(1);
    expect(byKey.stderr).toMatch(/FORBIDDEN|UNAUTHORIZED/);
  });

  it('logout forgets the session', async () => {
    const out = await cli(['logout'], env());
    expect(out.code).toBe(0);
    expect((await cli(['whoami'], env())).code).toBe(2);
  });
});

describe('webhooks commands', () => {
  it('create, list, update, test, deliveries, delete', async () => {
    const created = await cli(['webhooks', 'create', hookUrl, '--events', 'run.failed', '--header', 'X-Team=qa', '--secret', 's3cret-value', '--json'], keyEnv);
    expect(created.code, created.stderr).toBe(0);
    const id = created.json.id;
    expect(created.json).toMatchObject({ url: hookUrl, events: ['run.failed'], headers: { 'X-Team': 'qa' }, isActive: true });
    expect(JSON.stringify(created.json)).not.toContain('s3cret-value');

    const list = await both(['webhooks', 'list']);
    expect(list.json.data.map((w: any) => w.id)).toContain(id);
    expect(list.human).toContain(hookUrl);

    const upd = await cli(['webhooks', 'update', id, '--events', 'run.completed,run.failed', '--active', 'off', '--json'], keyEnv);
    expect(upd.code, upd.stderr).toBe(0);
    expect(upd.json).toMatchObject({ events: ['run.completed', 'run.failed'], isActive: false });
    expect((await cli(['webhooks', 'update', id], keyEnv)).code).toBe(2);
    expect((await cli(['webhooks', 'update', id, '--events', 'run.exploded'], keyEnv)).code).toBe(2);
    await cli(['webhooks', 'update', id, '--active', 'on'], keyEnv);

    const ping = await cli(['webhooks', 'test', id], keyEnv);
    expect(ping.code, ping.stderr).toBe(0);
    expect(ping.stdout).toMatch(/ping delivery/);
    const pingJson = await cli(['webhooks', 'test', id, '--json'], keyEnv);
    expect(pingJson.json).toMatchObject({ webhookId: id, event: 'ping' });

    const deliveries = await both(['webhooks', 'deliveries', id]);
    expect(deliveries.json.data.length).toBeGreaterThanOrEqual(2);
    expect(deliveries.human).toMatch(/ping/);

    expect((await cli(['webhooks', 'delete', id, '--yes'], keyEnv)).code).toBe(0);
    expect((await cli(['webhooks', 'list', '--json'], keyEnv)).json.data.map((w: any) => w.id)).not.toContain(id);
  });
});

describe('configuration and usage errors', () => {
  it('config shows each value with its source, keys masked; flags > env > project file > user file', async () => {
    const cfg = tempDir('prec-');
    const cwd = tempDir('cwd-');
    writeFileSync(join(cfg, 'config.json'), JSON.stringify({ url: 'http://user-file.example:1', projectId: 'from-user-file' }));
    const userOnly = await cli(['config', '--json'], { TESTREPORT_CONFIG_DIR: cfg }, { cwd });
    const setting = (r: any, key: string) => r.json.settings.find((s: any) => s.key === key);
    expect(setting(userOnly, 'projectId')).toMatchObject({ value: 'from-user-file', source: 'user file' });

    writeFileSync(join(cwd, 'testreport.config.json'), JSON.stringify({ projectId: 'from-project-file' }));
    const project = await cli(['config', '--json'], { TESTREPORT_CONFIG_DIR: cfg }, { cwd });
    expect(setting(project, 'projectId')).toMatchObject({ value: 'from-project-file', source: 'project file' });
    expect(setting(project, 'url')).toMatchObject({ value: 'http://user-file.example:1', source: 'user file' });

    const envWins = await cli(['config', '--json'], { TESTREPORT_CONFIG_DIR: cfg, TESTREPORT_PROJECT_ID: 'from-env', TESTREPORT_API_KEY: srv.apiKey }, { cwd });
    expect(setting(envWins, 'projectId')).toMatchObject({ value: 'from-env', source: 'env', origin: 'TESTREPORT_PROJECT_ID' });
    expect(setting(envWins, 'apiKey').value).toBe(`trk_live_********${srv.apiKey.slice(-4)}`);
    expect(envWins.stdout).not.toContain(srv.apiKey);

    const flagWins = await cli(['config', '--project', 'from-flag'], { TESTREPORT_CONFIG_DIR: cfg, TESTREPORT_PROJECT_ID: 'from-env' }, { cwd });
    expect(flagWins.stdout).toMatch(/projectId\s+from-flag\s+flag\s+--project/);

    const set = await cli(['config', 'set', 'url', 'https://stored.example.com/'], { TESTREPORT_CONFIG_DIR: cfg }, { cwd: tempDir('cwd-') });
    expect(set.code).toBe(0);
    const after = await cli(['config', '--json'], { TESTREPORT_CONFIG_DIR: cfg }, { cwd: tempDir('cwd-') });
    expect(setting(after, 'url')).toMatchObject({ value: 'https://stored.example.com', source: 'user file' });
    expect((await cli(['config', 'set', 'colour', 'red'], { TESTREPORT_CONFIG_DIR: cfg })).code).toBe(2);
  });

  it('an upload reads the project file in the working directory', async () => {
    const cwd = tempDir('cwd-');
    mkdirSync(join(cwd, 'results'));
    writeFileSync(join(cwd, 'testreport.config.json'), JSON.stringify({ url: srv.url, projectId: srv.projectId }));
    const res = await cli(['upload', join(FIXTURES_DIR, 'junit/bazel-suite-logs.xml'), '--json'], { TESTREPORT_API_KEY: srv.apiKey, TESTREPORT_CONFIG_DIR: tempDir('none-') }, { cwd });
    expect(res.code, res.stderr).toBe(0);
    expect(res.json.projectId).toBe(srv.projectId);
  });

  it('a key scoped to another project is refused with the reason', async () => {
    const other = await srv.createOtherTenant();
    const res = await cli(['runs', 'list', '--project', other.projectId], keyEnv);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/FORBIDDEN/);
  });

  it('usage errors exit 2 with one line; --help has examples', async () => {
    const unknown = await cli(['runz'], keyEnv);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'runz'/);
    const badFlag = await cli(['runs', 'list', '--limit', 'many'], keyEnv);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr.trim()).toBe('error: --limit must be a whole number from 1 to 500, got "many"');
    expect((await cli(['runs', 'list', '--status', 'green'], keyEnv)).code).toBe(2);
    const noSub = await cli(['runs'], keyEnv);
    expect(noSub.code).toBe(2);
    expect(noSub.stderr).toMatch(/Usage: reporter runs/);
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Examples:/);
    for (const cmd of ['upload', 'summary', 'runs', 'tests', 'flaky', 'keys', 'webhooks', 'projects', 'settings', 'config', 'login']) {
      const h = await cli([cmd, '--help']);
      expect(h.code, cmd).toBe(0);
      expect(h.stdout, cmd).toMatch(/Examples?:/);
    }
    const version = await cli(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  }, 120_000);

  it('never prints a stack trace unless --debug', async () => {
    const res = await cli(['runs', 'list'], { TESTREPORT_URL: 'http://127.0.0.1:9', TESTREPORT_API_KEY: srv.apiKey, TESTREPORT_CONFIG_DIR: tempDir('none-'), TESTREPORT_PROJECT_ID: 'p' });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^error: cannot reach the server/);
    expect(res.stderr).not.toMatch(/\n\s+at /);
    const debug = await cli(['runs', 'list', '--debug'], { TESTREPORT_URL: 'http://127.0.0.1:9', TESTREPORT_API_KEY: srv.apiKey, TESTREPORT_CONFIG_DIR: tempDir('none-'), TESTREPORT_PROJECT_ID: 'p' });
    expect(debug.stderr).toMatch(/\n\s+at /);
  }, 120_000);
});
