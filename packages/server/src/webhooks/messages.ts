import type { WebhookFormat, WebhookPayload } from '@testreport/contract';

/** One failing test as a chat message shows it. */
export interface FailureLine {
  title: string;
  filePath: string | null;
  errorMessage: string | null;
  /** CODEOWNERS owners of its file; named next to new failures. */
  owners?: string[];
}

type RunData = NonNullable<WebhookPayload['data']['run']>;

/** Slack's documented Block Kit limits for a message (incoming webhooks reject a message past them). */
export const SLACK_LIMITS = { blocks: 50, sectionText: 3000, headerText: 150, contextElements: 10, contextText: 3000 } as const;
/** How many failures a chat message lists; the rest are counted and left to the run's page. */
export const MAX_LISTED_FAILURES = 10;
/** Per failure, the first line of its error is kept, cut to this many characters. */
const ERROR_LINE_MAX = 300;

/** Cuts `text` to `max` characters, ending with an ellipsis when it was cut. */
export function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

// Slack's mrkdwn treats these three as control characters; its docs ask senders to escape them.
const slackEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const firstLine = (s: string | null) => (s ?? '').replace(/\x1b\[[0-9;]*m/g, '').split('\n').map((l) => l.trim()).find(Boolean) ?? '';

const verdict = (run: RunData) => (run.failedTests > 0 ? 'failed' : run.status);
const title = (run: RunData) => `Test run ${verdict(run)}${run.branch ? ` on ${run.branch}` : ''}`;
/**
 * What a CI build's run adds (issue 12): a run finished without all its shards says so, and a
 * repeat finish (a late shard or a re-run reopened the run) reads as an update of the earlier message.
 */
function buildNote(run: RunData): string {
  const notes: string[] = [];
  if (run.reopened) notes.push(`Updated result (finish ${run.finishCount}): a late shard or a re-run reopened this run.`);
  if (run.finishedShards != null && run.shardTotal != null && run.finishedShards < run.shardTotal) notes.push(`Only ${run.finishedShards} of ${run.shardTotal} shards reported.`);
  return notes.length ? ` ${notes.join(' ')}` : '';
}
const counts = (run: RunData) =>
  `${run.totalTests} tests: ${run.passedTests} passed, ${run.failedTests} failed, ${run.flakyTests} flaky, ${run.skippedTests} skipped (${run.passRate}% pass rate)${buildNote(run)}`;
const shortSha = (sha: string | null) => (sha ? sha.slice(0, 12) : null);

/**
 * Failures that are new against the last finished run on the base branch (the run summary's
 * comparison); null when there is no such run to compare with.
 */
export interface NewFailures {
  base: string;
  total: number;
  /** The first ones, in suite order. */
  items: FailureLine[];
}

/** What a chat message shows besides the run: read once per finish, shared by every chat webhook. */
export interface ChatFacts {
  /** The first failures, in suite order; `failedTests` on the run says how many there are in all. */
  failures: FailureLine[];
  newFailures: NewFailures | null;
}
export const NO_CHAT_FACTS: ChatFacts = { failures: [], newFailures: null };

type TestData = NonNullable<WebhookPayload['data']['test']>;

interface Message extends ChatFacts {
  /** The event, `ping` included. */
  event: WebhookPayload['event'];
  run?: RunData;
  test?: TestData;
}

/** One line for a quarantine change: what, who, why, and whose test it is. */
const quarantineLine = (t: TestData) =>
  `Test ${t.action}${t.isBroken ? ' (broken)' : ''}: ${clip(t.fullTitle, 300)}${t.filePath ? ` — ${clip(t.filePath, 200)}` : ''}. ` +
  `By ${t.actor.name}: ${clip(t.reason, 300)} (score ${t.score}).${t.owners.length ? ` Owners: ${t.owners.join(' ')}` : ''}`;

/** ` (owners: @a @b)` after a new failure whose file has owners. */
const ownersNote = (f: FailureLine, escape: (s: string) => string) => (f.owners?.length ? ` (owners: ${escape(clip(f.owners.join(' '), 200))})` : '');

/** The heading of the new-failures part, or the line saying there are none. */
const newHeading = (n: NewFailures, failed: number) =>
  n.total > 0
    ? `New failures: ${n.total} since the last run on ${n.base}`
    : failed > 0 ? `No new failures since the last run on ${n.base}` : null;

/** A Slack incoming-webhook message: `text` is the notification fallback, `blocks` the message. */
export function slackMessage({ event, run, test, failures, newFailures }: Message): { text: string; blocks: unknown[] } {
  if (test) {
    const text = quarantineLine(test);
    return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: clip(`${slackEscape(text)}\n<${test.url}|Open the test>`, SLACK_LIMITS.sectionText) } }] };
  }
  if (!run) {
    const text = event === 'ping' ? 'testreport: this webhook is connected.' : `testreport: ${event}`;
    return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: slackEscape(text) } }] };
  }
  const heading = title(run);
  const blocks: unknown[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(heading, SLACK_LIMITS.headerText), emoji: true } },
    { type: 'section', text: { type: 'mrkdwn', text: clip(slackEscape(counts(run)), SLACK_LIMITS.sectionText) } },
  ];
  const context: string[] = [];
  if (run.branch) context.push(`Branch: *${slackEscape(clip(run.branch, 200))}*`);
  if (run.commitSha) context.push(`Commit: \`${shortSha(run.commitSha)}\`${run.commitMessage ? ` ${slackEscape(clip(firstLine(run.commitMessage), 200))}` : ''}`);
  if (run.ciBuildUrl) context.push(`<${run.ciBuildUrl}|CI build>`);
  if (context.length) blocks.push({ type: 'context', elements: context.slice(0, SLACK_LIMITS.contextElements).map((text) => ({ type: 'mrkdwn', text })) });
  const newLine = newFailures && newHeading(newFailures, run.failedTests);
  if (newFailures && newLine) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: clip(`*${slackEscape(newLine)}*`, SLACK_LIMITS.sectionText) } });
    // One section, filled with whole lines while they fit; the rest are counted below it.
    const lines: string[] = [];
    let size = 0;
    for (const f of newFailures.items.slice(0, MAX_LISTED_FAILURES)) {
      const line = `:new: ${slackEscape(clip(f.title, 300))}${f.filePath ? ` — ${slackEscape(clip(f.filePath, 200))}` : ''}${ownersNote(f, slackEscape)}`;
      if (size + line.length + 1 > SLACK_LIMITS.sectionText) break;
      lines.push(line);
      size += line.length + 1;
    }
    if (lines.length) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: lines.join('\n') } });
    if (newFailures.total > lines.length) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `…and ${newFailures.total - lines.length} more new failures` }] });
  }
  const listed = failures.slice(0, MAX_LISTED_FAILURES);
  if (listed.length) {
    // One section per failure keeps each inside 3,000 characters whatever the error says.
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `*First failures* (${listed.length} of ${run.failedTests})` } });
    for (const f of listed) {
      const error = clip(firstLine(f.errorMessage), ERROR_LINE_MAX);
      const where = f.filePath ? ` — ${f.filePath}` : '';
      const text = `:x: *${slackEscape(f.title)}*${slackEscape(where)}${error ? `\n\`\`\`${slackEscape(error)}\`\`\`` : ''}`;
      blocks.push({ type: 'section', text: { type: 'mrkdwn', text: clip(text, SLACK_LIMITS.sectionText) } });
    }
    if (run.failedTests > listed.length) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `…and ${run.failedTests - listed.length} more failures` }] });
  }
  if (run.url) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `<${run.url}|Open the run>` } });
  const fallback = `${heading}: ${counts(run)}${newFailures?.total ? `; ${newFailures.total} new since ${newFailures.base}` : ''}`;
  return { text: fallback, blocks: blocks.slice(0, SLACK_LIMITS.blocks) };
}

/**
 * A Teams incoming-webhook message: an activity of type `message` carrying one Adaptive Card
 * attachment (version 1.4, what Teams renders for incoming webhooks).
 */
export function teamsMessage({ event, run, test, failures, newFailures }: Message) {
  const body: unknown[] = [];
  const actions: unknown[] = [];
  if (test) {
    body.push({ type: 'TextBlock', text: quarantineLine(test), wrap: true });
    actions.push({ type: 'Action.OpenUrl', title: 'Open the test', url: test.url });
  } else if (!run) {
    body.push({ type: 'TextBlock', text: event === 'ping' ? 'testreport: this webhook is connected.' : `testreport: ${event}`, wrap: true });
  } else {
    body.push({ type: 'TextBlock', text: title(run), size: 'Large', weight: 'Bolder', wrap: true, color: run.failedTests > 0 ? 'Attention' : 'Good' });
    body.push({ type: 'TextBlock', text: counts(run), wrap: true });
    const facts = [
      run.branch ? { title: 'Branch', value: clip(run.branch, 200) } : null,
      run.commitSha ? { title: 'Commit', value: `${shortSha(run.commitSha)}${run.commitMessage ? ` ${clip(firstLine(run.commitMessage), 200)}` : ''}` } : null,
    ].filter(Boolean);
    if (facts.length) body.push({ type: 'FactSet', facts });
    const newLine = newFailures && newHeading(newFailures, run.failedTests);
    if (newFailures && newLine) {
      body.push({ type: 'TextBlock', text: newLine, weight: 'Bolder', wrap: true, spacing: 'Medium', color: newFailures.total > 0 ? 'Attention' : 'Good' });
      const shown = newFailures.items.slice(0, MAX_LISTED_FAILURES);
      for (const f of shown) body.push({ type: 'TextBlock', text: `${clip(f.title, 300)}${f.filePath ? ` — ${clip(f.filePath, 200)}` : ''}${ownersNote(f, (s) => s)}`, wrap: true, spacing: 'Small' });
      if (newFailures.total > shown.length) body.push({ type: 'TextBlock', text: `…and ${newFailures.total - shown.length} more new failures`, wrap: true, isSubtle: true });
    }
    const listed = failures.slice(0, MAX_LISTED_FAILURES);
    if (listed.length) {
      body.push({ type: 'TextBlock', text: `First failures (${listed.length} of ${run.failedTests})`, weight: 'Bolder', wrap: true, spacing: 'Medium' });
      for (const f of listed) {
        body.push({ type: 'TextBlock', text: `${f.title}${f.filePath ? ` — ${f.filePath}` : ''}`, wrap: true, weight: 'Bolder', spacing: 'Small' });
        const error = clip(firstLine(f.errorMessage), ERROR_LINE_MAX);
        if (error) body.push({ type: 'TextBlock', text: error, wrap: true, fontType: 'Monospace', isSubtle: true, spacing: 'None' });
      }
      if (run.failedTests > listed.length) body.push({ type: 'TextBlock', text: `…and ${run.failedTests - listed.length} more failures`, wrap: true, isSubtle: true });
    }
    if (run.url) actions.push({ type: 'Action.OpenUrl', title: 'Open the run', url: run.url });
    if (run.ciBuildUrl) actions.push({ type: 'Action.OpenUrl', title: 'CI build', url: run.ciBuildUrl });
  }
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: { $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', type: 'AdaptiveCard', version: '1.4', body, ...(actions.length ? { actions } : {}) },
      },
    ],
  };
}

/** The exact body a webhook of `format` is sent for `payload` (the generic one is the payload itself). */
export function deliveryBody(format: WebhookFormat, payload: WebhookPayload, facts: ChatFacts): string {
  if (format === 'slack') return JSON.stringify(slackMessage({ event: payload.event, run: payload.data.run, test: payload.data.test, ...facts }));
  if (format === 'teams') return JSON.stringify(teamsMessage({ event: payload.event, run: payload.data.run, test: payload.data.test, ...facts }));
  return JSON.stringify(payload);
}
