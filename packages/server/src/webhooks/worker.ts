import type { ServerConfig } from '../config.js';
import type { BackgroundJob } from '../deps.js';
import type { Logger } from '../lib/logger.js';
import type { DeliveryRow, WebhookRepo } from './repo.js';

const BATCH = 20;
const CONCURRENCY = 4;

interface WorkerDeps {
  repo: WebhookRepo;
  config: ServerConfig;
  logger: Logger;
  attempt(d: DeliveryRow): Promise<void>;
}

/**
 * Polls the outbox for due deliveries. Each is leased (`locked_until`, claimed with SKIP LOCKED on
 * PostgreSQL) before it is sent, outside the claiming transaction, so two workers, or two servers
 * on one database, never send the same attempt twice; only the lease holder records the outcome. A
 * lease left by a crashed worker expires and the delivery is picked up again. Pending deliveries survive restarts
 * because the first pass after start finds them.
 */
export function createDeliveryWorker({ repo, config, logger, attempt }: WorkerDeps) {
  const pollMs = Math.min(1000, Math.max(10, Math.floor(config.webhookRetryBaseMs / 4)));
  const leaseMs = config.webhookTimeoutMs + 60_000;
  let running = false;
  let timer: NodeJS.Timeout | null = null;
  let pass: Promise<number> | null = null;
  let again = false;

  async function deliverDueOnce(): Promise<number> {
    const now = config.now();
    const lockedUntil = new Date(now.getTime() + leaseMs).toISOString();
    const claimed = await repo.claimDue(now.toISOString(), lockedUntil, BATCH);
    const queue = [...claimed];
    await Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, queue.length) }, async () => {
        for (let d = queue.shift(); d; d = queue.shift()) {
          try {
            await attempt(d);
          } catch (err) {
            // The lease expires and the delivery is tried again; nothing is lost.
            logger.error(`webhook delivery ${d.id} could not be processed`, err);
          }
        }
      }),
    );
    return claimed.length;
  }

  /** One pass at a time per process; a kick during a pass asks for another right after it. */
  function runPass(): Promise<number> {
    if (pass) {
      again = true;
      return pass;
    }
    pass = deliverDueOnce()
      .catch((err) => {
        logger.error('webhook worker pass failed', err);
        return 0;
      })
      .finally(() => {
        pass = null;
        if (again && running) {
          again = false;
          void runPass();
        }
      });
    return pass;
  }

  const schedule = () => {
    if (!running) return;
    timer = setTimeout(async () => {
      await runPass();
      schedule();
    }, pollMs);
    timer.unref();
  };

  const job: BackgroundJob = {
    start() {
      if (running) return;
      running = true;
      void runPass();
      schedule();
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = null;
      await pass;
    },
  };

  return {
    job,
    deliverDueOnce: () => runPass(),
    /** New deliveries go out now rather than at the next poll. */
    kick() {
      if (running) void runPass();
    },
  };
}
