import { Chalk, type ChalkInstance } from 'chalk';

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
  align?: 'left' | 'right';
  color?: (text: string, row: T) => string;
  /** Cut long values (titles, URLs) so a row fits on one line. */
  max?: number;
}

/** Colour only for a person at a terminal: never with NO_COLOR, --no-color, or when piped. */
export function colorLevel(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv, disabled: boolean): 0 | 1 | 2 | 3 {
  if (disabled || 'NO_COLOR' in env || env.TERM === 'dumb') return 0;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') return 1;
  return stream.isTTY ? 1 : 0;
}

const visibleLength = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '').length;

export function display(v: unknown): string {
  if (v === null || v === undefined || v === '') return '-';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (Array.isArray(v)) return v.length ? v.join(',') : '-';
  return String(v);
}

function cut(s: string, max?: number): string {
  return max && s.length > max ? s.slice(0, max - 1) + '…' : s;
}

export class Output {
  readonly c: ChalkInstance;
  constructor(
    readonly json: boolean,
    colour: 0 | 1 | 2 | 3,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly stderr: NodeJS.WritableStream = process.stderr,
  ) {
    this.c = new Chalk({ level: colour });
  }

  line(text = ''): void {
    this.stdout.write(text + '\n');
  }

  /** Scripts read stdout: with --json it holds exactly one JSON document. */
  data(value: unknown): void {
    this.stdout.write(JSON.stringify(value, null, 2) + '\n');
  }

  /** Notes for people go to stderr, so `--json` output stays parseable. */
  note(text: string): void {
    this.stderr.write(text + '\n');
  }

  warn(text: string): void {
    this.stderr.write(this.c.yellow(`warning: ${text}`) + '\n');
  }

  success(text: string): void {
    if (!this.json) this.line(this.c.green('✓ ') + text);
  }

  table<T>(rows: T[], columns: Column<T>[], empty = 'Nothing to show.'): void {
    if (rows.length === 0) {
      this.line(this.c.dim(empty));
      return;
    }
    const cells = rows.map((r) => columns.map((col) => cut(display(col.value(r)), col.max)));
    const widths = columns.map((col, i) => Math.max(col.header.length, ...cells.map((row) => row[i].length)));
    const pad = (text: string, i: number, shown = text) => {
      const fill = ' '.repeat(Math.max(0, widths[i] - visibleLength(shown)));
      return columns[i].align === 'right' ? fill + shown : shown + fill;
    };
    this.line(columns.map((col, i) => this.c.bold(pad(col.header, i))).join('  ').trimEnd());
    rows.forEach((r, ri) => {
      this.line(
        cells[ri]
          .map((text, i) => pad(text, i, columns[i].color ? columns[i].color!(text, r) : text))
          .join('  ')
          .trimEnd(),
      );
    });
  }

  /** One record as aligned `label  value` lines. */
  fields(pairs: Array<[string, unknown]>): void {
    const width = Math.max(...pairs.map(([k]) => k.length));
    for (const [k, v] of pairs) this.line(`${this.c.dim(k.padEnd(width))}  ${display(v)}`);
  }

  status(s: string): string {
    const colours: Record<string, (t: string) => string> = {
      passed: this.c.green, failed: this.c.red, flaky: this.c.yellow, skipped: this.c.dim, running: this.c.cyan, cancelled: this.c.dim,
      succeeded: this.c.green, pending: this.c.cyan,
    };
    return (colours[s] ?? ((t: string) => t))(s);
  }
}
