import { z } from 'zod';
import { WEBHOOK_EVENTS, WEBHOOK_FORMATS } from './values.js';
import { id, successResponse, timestamp } from './common.js';

export const webhookEvent = z.enum(WEBHOOK_EVENTS);
/** What a delivery's body looks like: our signed JSON, a Slack Block Kit message or a Teams Adaptive Card. */
export const webhookFormat = z.enum(WEBHOOK_FORMATS);

/** Headers a user may not override: they would corrupt the request framing or its routing. */
export const FORBIDDEN_WEBHOOK_HEADERS = ['host', 'content-length', 'transfer-encoding', 'connection'] as const;
export const MAX_WEBHOOK_HEADERS = 20;

const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
export const webhookHeaders = z
  .record(z.string(), z.string().max(4_000).refine((v) => !/[\r\n\0]/.test(v), 'header values cannot hold line breaks'))
  .superRefine((h, ctx) => {
    const names = Object.keys(h);
    if (names.length > MAX_WEBHOOK_HEADERS) {
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_WEBHOOK_HEADERS} headers`, params: { reason: 'out_of_range' } });
    }
    for (const n of names) {
      if (!headerName.test(n)) ctx.addIssue({ code: 'custom', path: [n], message: 'not a valid header name', params: { reason: 'invalid_value' } });
      else if ((FORBIDDEN_WEBHOOK_HEADERS as readonly string[]).includes(n.toLowerCase()))
        ctx.addIssue({ code: 'custom', path: [n], message: `${n} cannot be overridden`, params: { reason: 'invalid_value' } });
    }
  });

const webhookWritable = {
  url: z.url().max(2_000),
  events: z.array(webhookEvent).min(1).max(WEBHOOK_EVENTS.length),
  format: webhookFormat,
  headers: webhookHeaders,
  secret: z.string().min(1).max(500),
  isActive: z.boolean(),
  active: z.boolean(),
};

export const webhookCreate = z.object({
  projectId: id,
  url: webhookWritable.url,
  events: webhookWritable.events,
  /** Default `generic`. */
  format: webhookWritable.format.optional(),
  headers: webhookWritable.headers.optional(),
  secret: webhookWritable.secret.optional(),
  isActive: webhookWritable.isActive.optional(),
  active: webhookWritable.active.optional(),
});
export type WebhookCreate = z.input<typeof webhookCreate>;
export const webhookUpdate = z.object({
  url: webhookWritable.url.optional(),
  events: webhookWritable.events.optional(),
  format: webhookWritable.format.optional(),
  headers: webhookWritable.headers.optional(),
  /** null removes the secret. */
  secret: webhookWritable.secret.nullable().optional(),
  isActive: webhookWritable.isActive.optional(),
  active: webhookWritable.active.optional(),
});
export type WebhookUpdate = z.input<typeof webhookUpdate>;

export const webhook = z.object({
  id,
  projectId: id,
  url: z.string(),
  events: z.array(webhookEvent),
  format: webhookFormat,
  headers: z.record(z.string(), z.string()),
  hasSecret: z.boolean(),
  isActive: z.boolean(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type Webhook = z.infer<typeof webhook>;
export const webhookListQuery = z.object({ projectId: id });
export const webhookList = z.object({ data: z.array(webhook) });
export const webhookDeleted = successResponse;

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export const deliveryAttempt = z.object({
  attempt: z.number().int(),
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number(),
  createdAt: timestamp,
});
export const delivery = z.object({
  id,
  webhookId: id,
  event: z.enum([...WEBHOOK_EVENTS, 'ping']),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.array(deliveryAttempt),
  nextAttemptAt: timestamp.nullable(),
  createdAt: timestamp,
});
export type WebhookDelivery = z.infer<typeof delivery>;
export const deliveryListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});
export const deliveryList = z.object({ data: z.array(delivery), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
export const webhookTestResult = delivery;

/** The JSON body of every delivery (docs/decisions.md §8). */
export const webhookPayload = z.object({
  id,
  event: z.enum([...WEBHOOK_EVENTS, 'ping']),
  createdAt: timestamp,
  data: z.object({
    run: z
      .object({
        id, projectId: id, status: z.string(),
        /** The run's dashboard page, {app_url}/runs/<id>. */
        url: z.string().optional(), branch: z.string().nullable(), commitSha: z.string().nullable(),
        commitMessage: z.string().nullable(), ciBuildUrl: z.string().nullable(), totalTests: z.number(),
        passedTests: z.number(), failedTests: z.number(), skippedTests: z.number(), flakyTests: z.number(),
        passRate: z.number(), duration: z.number().nullable(),
        /** CI builds (issue 12): how many times this run has finished; reopened = a repeat finish after a late shard or re-run. */
        finishCount: z.number().optional(), reopened: z.boolean().optional(),
        finishReason: z.string().nullable().optional(), shardTotal: z.number().nullable().optional(), finishedShards: z.number().nullable().optional(),
        group: z.string().nullable().optional(),
      })
      .optional(),
    webhookId: id.optional(),
    /** test.quarantined / test.released (docs/decisions.md §13): the case, its latest result, who did it and why. */
    test: z
      .object({
        testId: id, caseId: id, projectId: id, title: z.string(), fullTitle: z.string(), filePath: z.string().nullable(),
        url: z.string(), owners: z.array(z.string()), isBroken: z.boolean(),
        action: z.enum(['quarantined', 'released']),
        actor: z.object({ type: z.enum(['user', 'apiKey', 'policy']), id: z.string(), name: z.string() }),
        reason: z.string(), score: z.number(), at: timestamp,
      })
      .optional(),
    /** baselines.accepted (docs/decisions.md §13): the snapshots one acceptance marked, with who and when. */
    baselines: z
      .object({
        runId: id, testId: id, projectId: id, fullTitle: z.string(), url: z.string(),
        snapshots: z.array(z.object({ name: z.string(), snapshotPath: z.string(), actual: id })),
        by: z.string(), at: timestamp,
      })
      .optional(),
  }),
});
export type WebhookPayload = z.infer<typeof webhookPayload>;
