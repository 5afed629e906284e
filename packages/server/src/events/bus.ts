import type { QuarantineEvent, Run, WebhookPayload } from '@testreport/contract';

/** A quarantine change as webhooks announce it (`test.quarantined` / `test.released`). */
export interface QuarantineChanged extends QuarantineEvent {
  projectId: string;
  caseId: string;
  /** The case's latest result: what its page and links show. */
  testId: string;
  title: string;
  fullTitle: string;
  filePath: string | null;
  owners: string[];
  isBroken: boolean;
}
import type { Logger } from '../lib/logger.js';

/** Internal events. `run.finished` fires once each time a run finishes (docs/decisions.md §8). */
export interface EventMap {
  'run.finished': { run: Run };
  /** Fires once per quarantine change, inside the transaction that made it. */
  'test.quarantine': { change: QuarantineChanged };
  /** Fires once per acceptance that marked at least one snapshot, inside its transaction. */
  'baselines.accepted': { accepted: NonNullable<WebhookPayload['data']['baselines']> };
}
type Listener<K extends keyof EventMap> = (payload: EventMap[K]) => void | Promise<void>;

/**
 * A small in-process bus. `emit` awaits every listener so the work they do (queueing webhook
 * deliveries, auto-quarantine) is done before the request that finished the run is answered; the
 * emitter calls it inside its transaction, so that work commits with the event or not at all.
 * A `durable` listener's failure fails the emit (and so rolls the event back): its work must not
 * be lost (docs/decisions.md §8). Any other failing listener is logged and never fails that request.
 */
export function createEventBus(logger: Logger, opts: { isolate?: (fn: () => Promise<void>) => Promise<void> } = {}) {
  // A failed statement aborts a whole PostgreSQL transaction: a best-effort listener runs in a
  // savepoint of the emitter's transaction, so its failure is undone without taking the event along.
  const isolate = opts.isolate ?? ((fn) => fn());
  const listeners = new Map<keyof EventMap, { fn: Listener<any>; durable: boolean }[]>();
  return {
    on<K extends keyof EventMap>(event: K, fn: Listener<K>, opts: { durable?: boolean } = {}) {
      listeners.set(event, [...(listeners.get(event) ?? []), { fn, durable: opts.durable ?? false }]);
    },
    async emit<K extends keyof EventMap>(event: K, payload: EventMap[K]) {
      for (const { fn, durable } of listeners.get(event) ?? []) {
        try {
          if (durable) await fn(payload);
          else await isolate(async () => fn(payload));
        } catch (err) {
          if (durable) throw err;
          logger.error(`listener for ${event} failed`, err);
        }
      }
    },
  };
}
export type EventBus = ReturnType<typeof createEventBus>;
