import ora, { type Ora } from 'ora';
import type { UploadProgress } from './engine.js';

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GiB`;
}

/** A spinner with "tests sent / total, bytes uploaded" on a terminal; nothing when piped or --json. */
export class ProgressView {
  private spinner?: Ora;

  constructor(enabled: boolean, text: string) {
    if (enabled) this.spinner = ora({ text, stream: process.stderr }).start();
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
