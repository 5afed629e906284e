import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Counts stored for each shared fixture, from the elements (fixtures/README.md), not root attributes. */
export interface Counts { total: number; passed: number; failed: number; skipped: number; flaky: number }
const c = (total: number, failed: number, skipped: number, flaky = 0): Counts => ({ total, failed, skipped, flaky, passed: total - failed - skipped - flaky });

export const FIXTURE_COUNTS: Record<string, Counts> = {
  'junit/jest-junit-basic.xml': c(6, 4, 1),
  'junit/jest-junit-large-jest-repo.xml': c(4239, 2, 30),
  'junit/pytest-properties-skips.xml': c(10, 2, 2),
  'junit/pytest-horovod-minified.xml': c(97, 0, 17),
  'junit/maven-surefire-email.xml': c(9, 7, 0),
  'junit/maven-surefire-flakyfailure.xml': c(1, 0, 0, 1),
  'junit/java-testng-single-suite.xml': c(2, 1, 1),
  'junit/java-testng-pulsar-merged.xml': c(808, 1, 14),
  'junit/go-junit-report-pass-fail-skip.xml': c(5, 1, 2),
  'junit/mocha-junit-reporter-trimmed.xml': c(1, 0, 0),
  'junit/mocha-xunit-latex-utensils.xml': c(109, 0, 0),
  'junit/phpunit-cli-phpt.xml': c(12, 2, 0),
  'junit/phpunit-nested-phpcheckstyle.xml': c(30, 2, 0),
  'junit/dotnet-junitlogger-nunit.xml': c(52, 14, 6),
  'junit/cargo-nextest-basic.xml': c(3, 1, 0),
  'junit/bazel-suite-logs.xml': c(1, 1, 0),
  'playwright-json/pw-1.37-retries-flaky.json': c(14, 2, 1, 1),
  'playwright-json/pw-1.37-merged-shards.json': c(27, 1, 3, 1),
  'playwright-json/pw-1.38-nested-suites.json': c(45, 0, 0),
};

/**
 * Real reports from public repositories (test/fixtures/reports/README.md: sources, licenses, SHA-256),
 * kept in the repository: they used to be read from a checkout beside it (<repo>/../shared/fixtures),
 * so `npm test` in a fresh clone failed the CLI suites.
 */
export const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/reports/', import.meta.url));
export const fixturesPresent = existsSync(FIXTURES_DIR);
