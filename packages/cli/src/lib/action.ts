import type { Command } from 'commander';
import { Context } from './context.js';
import type { Output } from './output.js';

/**
 * A CLI command: a plain async function from typed input to result (`run`, exported by
 * `commands/<group>.ts` and called directly by tests), and two thin layers around it for commander:
 * - `input` turns the positional arguments and the command's own options into that input; bad flags
 *   throw UsageError (exit 2) before anything is sent;
 * - `print` shows the result to people. With --json the result itself is the output, so `run`
 *   returns exactly the document scripts read.
 */
export interface CliCommand<I, R, F = Record<string, never>> {
  input?: (args: string[], flags: F) => I | Promise<I>;
  run: (ctx: Context, input: I) => Promise<R>;
  print: (out: Output, result: R, input: I, ctx: Context) => void;
}

/** Adapts a CliCommand to commander's `.action()`: builds the Context from the global options. */
export function command<I, R, F = Record<string, never>>(cmd: CliCommand<I, R, F>) {
  return async (...received: unknown[]) => {
    // commander passes the positional arguments, then the command's options, then the command.
    const ctx = Context.from(received[received.length - 1] as Command);
    const flags = received[received.length - 2] as F;
    const args = received.slice(0, -2) as string[];
    const input = cmd.input ? await cmd.input(args, flags) : (undefined as I);
    const result = await cmd.run(ctx, input);
    if (ctx.out.json) ctx.out.data(result);
    else cmd.print(ctx.out, result, input, ctx);
  };
}
