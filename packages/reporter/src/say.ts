const PREFIX = '[testreport]';

/** One line of the reporter's own output, on stderr (the test output stays Playwright's). */
export function say(line: string): void {
  process.stderr.write(`${PREFIX} ${line}\n`);
}
