import type { Child } from 'hono/jsx';

/**
 * A table in its own scrolling box (narrow screens scroll the table, not the page). The box takes
 * the focus, so a keyboard can scroll it too (WCAG 2.1.1; axe `scrollable-region-focusable`).
 */
export function DataTable({ head, children, label = 'Table' }: { head: Child; children: Child; label?: string }) {
  return (
    <div class="table-wrap" tabindex={0} role="region" aria-label={label}>
      <table>
        <thead>
          <tr>{head}</tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
