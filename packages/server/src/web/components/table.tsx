import type { Child } from 'hono/jsx';

/** A table in its own scrolling box (narrow screens scroll the table, not the page). */
export function DataTable({ head, children }: { head: Child; children: Child }) {
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>{head}</tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
