import { createInterface } from 'node:readline';

/** Asks one question on the terminal; `hidden` echoes nothing (passwords). */
export function ask(question: string, opts: { hidden?: boolean } = {}): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: Boolean(process.stdin.isTTY) });
  return new Promise((resolve, reject) => {
    if (opts.hidden) {
      const r = rl as unknown as { _writeToOutput: (s: string) => void; output: NodeJS.WritableStream };
      let prompted = false;
      r._writeToOutput = (s: string) => {
        // The prompt itself is shown once; every keystroke after it is swallowed.
        if (!prompted) {
          prompted = true;
          r.output.write(s);
        }
      };
    }
    rl.question(question, (answer) => {
      if (opts.hidden) process.stderr.write('\n');
      rl.close();
      resolve(answer);
    });
    rl.on('SIGINT', () => {
      rl.close();
      reject(new Error('cancelled'));
    });
  });
}

export async function confirm(question: string): Promise<boolean> {
  const a = (await ask(`${question} [y/N] `)).trim().toLowerCase();
  return a === 'y' || a === 'yes';
}
