import type { QuarantineEvent } from '@testreport/contract';
import { percent, when } from '../format.js';

/** Owners of a test (CODEOWNERS), as a line of badges; nothing when none are known. */
export const Owners = ({ owners }: { owners: string[] }) =>
  owners.length ? (
    <span class="owners">
      {owners.map((o) => (
        <>
          <span class="badge mono">{o}</span>{' '}
        </>
      ))}
    </span>
  ) : null;

/** The test page's "Owners" and "Quarantine history" (docs/decisions.md §13): who changed the quarantine, when and why. */
export function QuarantineTrail({ owners, events }: { owners: string[]; events: QuarantineEvent[] }) {
  return (
    <>
      {owners.length > 0 && (
        <p>
          Owners: <Owners owners={owners} />
        </p>
      )}
      <h2 id="quarantine-history">Quarantine history</h2>
      {events.length === 0 ? (
        <p class="muted">Never quarantined.</p>
      ) : (
        <ul class="events">
          {events.map((e) => (
            <li>
              <b>{e.action}</b> {when(e.at)} by {e.actor.name} <span class="muted">({e.actor.type === 'apiKey' ? 'API key' : e.actor.type})</span>: {e.reason}{' '}
              <span class="muted">· score {percent(e.score * 100)}</span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
