import type { Run } from '@testreport/contract';
import type { Logger } from '../lib/logger.js';

/** Internal events. `run.finished` fires once each time a run finishes (decisions §8). */
export interface EventMap {
  'run.finished': { run: Run };
}
type Listener<K extends keyof EventMap> = (payload: EventMap[K]) => void | Promise<void>;

/**
 * A small in-process bus. `emit` awaits every listener so the work they do (queueing webhook
 * deliveries, auto-quarantine) is durable before the request that finished the run is answered;
 * a failing listener is logged and never fails that request.
 */
export function createEventBus(logger: Logger) {
  const listeners = new Map<keyof EventMap, Listener<any>[]>();
  return {
    on<K extends keyof EventMap>(event: K, fn: Listener<K>) {
      listeners.set(event, [...(listeners.get(event) ?? []), fn]);
    },
    async emit<K extends keyof EventMap>(event: K, payload: EventMap[K]) {
      for (const fn of listeners.get(event) ?? []) {
        try {
          await fn(payload);
        } catch (err) {
          logger.error(`listener for ${event} failed`, err);
        }
      }
    },
  };
}
export type EventBus = ReturnType<typeof createEventBus>;
