import type { Command } from 'commander';
import { Context } from './context.js';

/**
 * Adapts a command body to commander: builds the Context (config, output, client) from the global
 * options and passes the positional arguments and the command's own options.
 */
export function action<A extends unknown[]>(fn: (ctx: Context, ...args: A) => Promise<void> | void) {
  return async (...received: unknown[]) => {
    const cmd = received[received.length - 1] as Command;
    const ctx = Context.from(cmd);
    await fn(ctx, ...(received.slice(0, -1) as A));
  };
}
