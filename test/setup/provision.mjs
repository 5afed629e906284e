// What the suites need from the machine, provided by the test preflight (preflight.mjs) so that
// `npm install && npm test` is all a fresh Debian/Ubuntu needs:
// - Chromium (reporter, CLI, pack and dashboard tests run real Playwright in it), and Debian's ffmpeg,
//   which the dashboard e2e test puts where Playwright looks for its own video recorder (not downloadable here);
// - OpenStack Swift with memcached (the S3 artifact-store tests run against its real S3 API);
// - a PostgreSQL the API suites can use (`npm run test:postgres`): TESTREPORT_TEST_PG_URL, else
//   user postgres without a password on 127.0.0.1:5432.
// As root it installs what is missing with apt-get, starts the local cluster and lets user postgres
// in from 127.0.0.1 without a password; otherwise it names the one command that does all of that.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { findChromium } from './chromium.mjs';

const SWIFT_FILES = ['/usr/bin/swift-proxy-server', '/usr/bin/swift-object-server', '/usr/bin/swift-container-server', '/usr/bin/swift-account-server', '/usr/bin/memcached', '/usr/lib/python3/dist-packages/swift/common/middleware/s3api'];
const SWIFT_PACKAGES = ['swift', 'swift-proxy', 'swift-object', 'swift-container', 'swift-account', 'memcached', 'python3-swift'];
const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const PROVISION_COMMAND = 'sudo node test/setup/preflight.mjs --provision';

const isRoot = () => process.getuid?.() === 0;
const hasApt = () => existsSync('/usr/bin/apt-get');
const log = (line) => process.stdout.write(`preflight: ${line}\n`);

/** Null when the PostgreSQL of the tests answers; else why not. */
export async function pgProblem(url = process.env.TESTREPORT_TEST_PG_URL ?? DEFAULT_PG_URL) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (err) {
    return { code: err.code ?? '', message: `${url.replace(/:[^:@/]*@/, ':***@')}: ${err.message}` };
  } finally {
    await client.end().catch(() => {});
  }
}

/** apt packages for what is missing (PostgreSQL only when it is the local default and not installed). */
function missingPackages(pgMissing) {
  const out = [];
  if (!findChromium()) out.push('chromium');
  if (!existsSync('/usr/bin/ffmpeg')) out.push('ffmpeg');
  if (!SWIFT_FILES.every((f) => existsSync(f))) out.push(...SWIFT_PACKAGES);
  if (pgMissing && !existsSync('/usr/bin/pg_ctlcluster')) out.push('postgresql');
  return out;
}

function run(cmd, args) {
  log(`${cmd} ${args.join(' ')}`);
  execFileSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

/** The local cluster: started, and user postgres let in from 127.0.0.1 without a password (a test machine). */
async function startLocalPostgres() {
  const versions = existsSync('/etc/postgresql') ? readdirSync('/etc/postgresql').sort((a, b) => Number(b) - Number(a)) : [];
  const version = versions[0];
  if (!version) throw new Error('PostgreSQL is installed but has no cluster under /etc/postgresql');
  const hba = `/etc/postgresql/${version}/main/pg_hba.conf`;
  const trust = 'host all postgres 127.0.0.1/32 trust';
  const text = readFileSync(hba, 'utf8');
  if (!text.includes(trust)) {
    log(`${hba}: ${trust} (first line: pg_hba.conf takes the first match)`);
    writeFileSync(hba, `# testreport's tests (test/setup/provision.mjs)\n${trust}\n${text}`);
  }
  const status = spawnSync('pg_ctlcluster', [version, 'main', 'status']).status;
  if (status === 0) run('pg_ctlcluster', [version, 'main', 'reload']);
  else run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start']);
}

/**
 * The first install takes minutes (hundreds of packages); one stopped half-way (Ctrl-C, a killed CI job)
 * leaves the files unpacked but not configured: the checks above would find Chromium and Swift, and
 * PostgreSQL without its cluster ("no cluster under /etc/postgresql"), and apt-get would refuse to run.
 * As root, finish it first (`dpkg --audit` prints nothing when there is nothing to finish).
 */
function finishInterruptedInstall() {
  if (!isRoot() || !existsSync('/usr/bin/dpkg')) return;
  const audit = spawnSync('dpkg', ['--audit'], { encoding: 'utf8' });
  if (audit.status === 0 && audit.stdout.trim() === '') return;
  run('dpkg', ['--configure', '-a']);
}

/**
 * Provides what is missing (as root) or throws the one command that would. Answers what it did.
 * `TESTREPORT_TEST_PG_URL` pointing elsewhere is the operator's: it is checked, never changed.
 */
export async function provision() {
  finishInterruptedInstall();
  const ownPg = process.env.TESTREPORT_TEST_PG_URL !== undefined;
  let pgDown = await pgProblem();
  if (ownPg && pgDown) throw new Error(`TESTREPORT_TEST_PG_URL does not answer (${pgDown.message}); start that server or unset the variable`);
  const packages = missingPackages(pgDown !== null && !ownPg);
  if (packages.length === 0 && pgDown === null) return;
  if (!isRoot() || !hasApt()) {
    const needs = [...packages.length ? [`packages: ${packages.join(' ')}`] : [], ...(pgDown ? [`PostgreSQL: ${pgDown.message}`] : [])];
    throw new Error(`the tests need ${needs.join('; ')}.\nRun once: ${PROVISION_COMMAND}\n(it installs them with apt-get and sets up the local PostgreSQL for the tests)`);
  }
  if (packages.length > 0) {
    run('apt-get', ['update', '-qq']);
    run('apt-get', ['install', '-y', '-qq', ...packages]);
  }
  if (pgDown) {
    await startLocalPostgres();
    pgDown = await pgProblem();
  }
  if (pgDown) throw new Error(`PostgreSQL for the tests does not answer: ${pgDown.message}`);
}
