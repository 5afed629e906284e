import type { Ora } from 'ora';
import type { UploadProgress } from './engine.js';

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GiB`;
}

/**
 * Whether to animate: a real terminal of known width, outside CI. A pseudo-terminal without a size
 * (columns 0, as some CI runners and `script` give) makes a spinner's redraw arithmetic run away.
 */
export function canAnimate(stream: NodeJS.WriteStream = process.stderr, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(stream.isTTY) && (stream.columns ?? 0) > 0 && !env.CI;
}

/** A spinner with "tests sent / total, bytes uploaded" on a terminal; nothing when piped or --json. */
export class ProgressView {
  private constructor(private readonly spinner?: Ora) {}

  /** ora (and the terminal-width tables it brings) is loaded only when a spinner shows: every other command starts without it. */
  static async open(enabled: boolean, text: string): Promise<ProgressView> {
    if (!enabled) return new ProgressView();
    const { default: ora } = await import('ora');
    // stdin is left alone: ora would otherwise put it in raw mode, and a CI pseudo-terminal may never feed it.
    return new ProgressView(ora({ text, stream: process.stderr, discardStdin: false }).start());
  }

  set text(text: string) {
    if (this.spinner) this.spinner.text = text;
  }

  upload(p: UploadProgress): void {
    const bytes = p.bytesTotal > 0 ? `, ${formatBytes(p.bytesUploaded)} / ${formatBytes(p.bytesTotal)} of attachments` : '';
    this.text = `Uploading: ${p.testsSent} / ${p.testsTotal} tests sent${bytes}`;
  }

  stop(): void {
    this.spinner?.stop();
  }
}
