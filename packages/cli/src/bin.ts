#!/usr/bin/env node
import { CommanderError } from 'commander';
import { buildProgram } from './program.js';
import { describeFailure } from './lib/failure.js';

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    // --help and --version end through commander's exit hook with code 0; help shown because a
    // subcommand is missing (`reporter runs`) is a usage error.
    if (err instanceof CommanderError && (err.code === 'commander.helpDisplayed' || err.code === 'commander.version')) return 0;
    if (err instanceof CommanderError && err.code === 'commander.help') return 2;
    const f = describeFailure(err);
    const json = argv.includes('--json');
    const debug = argv.includes('--debug');
    if (err instanceof CommanderError) {
      // commander already printed its message and the usage hint.
    } else if (json) {
      process.stdout.write(JSON.stringify(f.body, null, 2) + '\n');
    } else {
      process.stderr.write(`error: ${f.line}\n`);
    }
    if (debug && err instanceof Error && err.stack) process.stderr.write(err.stack + '\n');
    return f.exitCode;
  }
}

main(process.argv).then((code) => {
  process.exitCode = code;
  // Idle keep-alive sockets must not hold the process open once the command is done.
  setTimeout(() => process.exit(code), 100).unref();
});
