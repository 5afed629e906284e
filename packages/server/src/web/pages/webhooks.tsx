import { WEBHOOK_EVENTS, WEBHOOK_FORMATS, type Webhook, type WebhookFormat, type WebhookDelivery } from '@testreport/contract';
import { Pager } from '../components/pager.js';
import { SettingsLayout } from '../components/settingsTabs.js';
import { when } from '../format.js';
import type { NavData } from '../layout.js';
import { DataTable } from '../components/table.js';

type Flash = { notice?: string; error?: string };

const FORMAT_LABELS: Record<WebhookFormat, string> = {
  generic: 'Generic JSON (signed testreport payload)',
  slack: 'Slack incoming webhook',
  teams: 'Microsoft Teams incoming webhook',
};

function WebhookForm({ action, hook, submit }: { action: string; hook?: Webhook; submit: string }) {
  return (
    <form class="stack" method="post" action={action}>
      <label>
        Receiver URL
        <input type="url" name="url" required value={hook?.url ?? ''} placeholder="https://ci.example.com/hooks/testreport" />
      </label>
      <label>
        Message format
        <select name="format">
          {WEBHOOK_FORMATS.map((f) => (
            <option value={f} selected={(hook?.format ?? 'generic') === f}>{FORMAT_LABELS[f]}</option>
          ))}
        </select>
      </label>
      <fieldset>
        <legend>Events</legend>
        {WEBHOOK_EVENTS.map((e) => (
          <label>
            <span>
              <input type="checkbox" name="events" value={e} checked={hook ? hook.events.includes(e) : true} /> {e}
            </span>
          </label>
        ))}
      </fieldset>
      <label>
        Signing secret {hook?.hasSecret ? '(set; leave empty to keep it)' : '(optional)'}
        <input type="password" name="secret" autocomplete="off" maxlength={500} />
      </label>
      <label>
        <span>
          <input type="checkbox" name="isActive" value="true" checked={hook ? hook.isActive : true} /> Active
        </span>
      </label>
      <button class="primary" type="submit">{submit}</button>
    </form>
  );
}

export function WebhooksPage({ nav, hooks, flash }: { nav: NavData; hooks: Webhook[]; flash: Flash }) {
  const base = `/projects/${nav.current!.project.id}/settings/webhooks`;
  return (
    <SettingsLayout nav={nav} tab="webhooks" title="Webhooks" {...flash}>
      {hooks.length === 0 ? (
        <p class="muted">No webhooks yet.</p>
      ) : (
        <DataTable
          head={
            <>
              <th>URL</th><th>Format</th><th>Events</th><th>Status</th><th></th>
            </>
          }
        >
          {hooks.map((h) => (
            <tr>
              <td class="mono"><a href={`${base}/${h.id}`}>{h.url}</a></td>
              <td>{h.format}</td>
              <td>{h.events.join(', ')}</td>
              <td>{h.isActive ? 'active' : <span class="muted">paused</span>}</td>
              <td>
                <form class="inline" method="post" action={`${base}/${h.id}/delete`} data-confirm={`Delete the webhook to ${h.url}?`}>
                  <button class="danger" type="submit" aria-label={`Delete webhook ${h.url}`}>Delete</button>
                </form>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <h3>Add a webhook</h3>
      <WebhookForm action={base} submit="Add webhook" />
    </SettingsLayout>
  );
}

export function WebhookPage(props: { nav: NavData; hook: Webhook; deliveries: WebhookDelivery[]; total: number; page: number; pageSize: number; flash: Flash }) {
  const base = `/projects/${props.nav.current!.project.id}/settings/webhooks/${props.hook.id}`;
  return (
    <SettingsLayout nav={props.nav} tab="webhooks" title={`Webhook to ${props.hook.url}`} {...props.flash}>
      <WebhookForm action={base} hook={props.hook} submit="Save webhook" />
      <form method="post" action={`${base}/test`}>
        <p><button type="submit">Send a test ping</button></p>
      </form>
      <h3>Deliveries</h3>
      {props.deliveries.length === 0 ? (
        <p class="muted">Nothing sent yet.</p>
      ) : (
        <DataTable
          head={
            <>
              <th>Event</th><th>Status</th><th>Attempts</th><th>Last answer</th><th class="hide-narrow">Created</th>
            </>
          }
        >
          {props.deliveries.map((d) => {
            const last = d.attempts[d.attempts.length - 1];
            return (
              <tr>
                <td>{d.event}</td>
                <td class={d.status === 'succeeded' ? 's-passed' : d.status === 'failed' ? 's-failed' : 's-running'}>{d.status}</td>
                <td class="num">{d.attempts.length}</td>
                <td>{last ? (last.statusCode ? `HTTP ${last.statusCode}` : last.error ?? '') : d.nextAttemptAt ? `next try ${when(d.nextAttemptAt)}` : ''}</td>
                <td class="hide-narrow">{when(d.createdAt)}</td>
              </tr>
            );
          })}
        </DataTable>
      )}
      <Pager path={base} query={{}} page={props.page} pageSize={props.pageSize} total={props.total} label="deliveries" />
    </SettingsLayout>
  );
}
