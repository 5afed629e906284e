export const StatusBadge = ({ status }: { status: string }) => <span class={`badge s-${status}`}>{status}</span>;

export const Counts = ({ passed, failed, flaky, skipped }: { passed: number; failed: number; flaky: number; skipped: number }) => (
  <span class="mono">
    <span class="s-passed" title="passed">{passed}✓</span> <span class="s-failed" title="failed">{failed}✗</span>{' '}
    <span class="s-flaky" title="flaky">{flaky}~</span> <span class="s-skipped" title="skipped">{skipped}–</span>
  </span>
);
