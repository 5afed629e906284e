import type { ApiKey, ProjectSettings } from '@testreport/contract';
import { roleAllows } from '../../authz/policy.js';
import { SettingsLayout } from '../components/settingsTabs.js';
import { when } from '../format.js';
import type { NavData } from '../layout.js';
import { DataTable } from '../components/table.js';

type Flash = { notice?: string; error?: string };

export function ProjectSettingsPage({ nav, settings, flash }: { nav: NavData; settings: ProjectSettings; flash: Flash }) {
  const canEdit = roleAllows(nav.current!.role, 'projects.manage');
  const base = `/projects/${nav.current!.project.id}/settings`;
  return (
    <SettingsLayout nav={nav} tab="project" title="Project" {...flash}>
      <form class="stack" method="post" action={base}>
        <label>
          Keep results for (days)
          <input type="number" name="dataRetentionDays" min={1} max={3650} value={String(settings.dataRetentionDays)} disabled={!canEdit} />
        </label>
        <label>
          Flakiness threshold (0 to 1)
          <input type="number" name="flakinessThreshold" min={0} max={1} step="0.01" value={String(settings.flakinessThreshold)} disabled={!canEdit} />
        </label>
        <label>
          Default branch (run summaries count new failures against its last run)
          <input type="text" name="defaultBranch" required maxlength={255} value={settings.defaultBranch} disabled={!canEdit} />
        </label>
        <label>
          Finish a CI build's run after no shard reported for (minutes)
          <input type="number" name="shardTimeoutMinutes" min={1} max={1440} value={String(settings.shardTimeoutMinutes)} disabled={!canEdit} />
        </label>
        <label>
          <span>
            <input type="checkbox" name="autoQuarantineEnabled" value="true" checked={settings.autoQuarantineEnabled} disabled={!canEdit} /> Quarantine tests above the threshold automatically
          </span>
        </label>
        <label>
          Auto-quarantine needs at least this many results; failing this many in a row on the default branch means broken, never auto-quarantined
          <input type="number" name="autoQuarantineMinRuns" min={2} max={50} value={String(settings.autoQuarantineMinRuns)} disabled={!canEdit} />
        </label>
        <label>
          Release a quarantined test after this many clean passes in a row on the default branch (0 = never by itself)
          <input type="number" name="autoReleaseAfterPasses" min={0} max={50} value={String(settings.autoReleaseAfterPasses)} disabled={!canEdit} />
        </label>
        {canEdit ? <button class="primary" type="submit">Save settings</button> : <p class="muted">Only team admins and owners can change these.</p>}
      </form>
    </SettingsLayout>
  );
}

export function ApiKeysPage({ nav, keys, created, flash }: { nav: NavData; keys: ApiKey[]; created?: { name: string; key: string }; flash: Flash }) {
  const canManage = roleAllows(nav.current!.role, 'apiKeys.manage');
  const base = `/projects/${nav.current!.project.id}/settings/keys`;
  return (
    <SettingsLayout nav={nav} tab="keys" title="API keys" {...flash}>
      {created && (
        <div class="notice" role="status">
          <p>
            Key <b>{created.name}</b> created. Copy it now: it is shown only once.
          </p>
          <div class="secret">
            <code id="new-key">{created.key}</code>
            <button type="button" data-copy="new-key">Copy</button>
          </div>
        </div>
      )}
      {keys.length === 0 ? (
        <p class="muted">No API keys yet.</p>
      ) : (
        <DataTable
          head={
            <>
              <th>Name</th><th>Key</th><th>Status</th><th class="hide-narrow">Last used</th><th class="hide-narrow">Expires</th><th></th>
            </>
          }
        >
          {keys.map((k) => (
            <tr>
              <td>{k.name}</td>
              <td><code>{k.maskedKey}</code></td>
              <td>{k.isActive ? 'active' : <span class="muted">revoked</span>}</td>
              <td class="hide-narrow">{when(k.lastUsedAt)}</td>
              <td class="hide-narrow">{k.expiresAt ? when(k.expiresAt) : 'never'}</td>
              <td>
                {canManage && k.isActive && (
                  <form class="inline" method="post" action={`${base}/${k.id}/revoke`} data-confirm={`Revoke the key "${k.name}"? Reporters using it will be refused.`}>
                    <button class="danger" type="submit" aria-label={`Revoke ${k.name}`}>Revoke</button>
                  </form>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {canManage && (
        <>
          <h3>Create a key</h3>
          <form class="filters" method="post" action={base}>
            <label>
              Key name
              <input name="name" required maxlength={100} placeholder="CI on main" />
            </label>
            <label>
              Expires (optional)
              <input type="date" name="expiresAt" />
            </label>
            <button class="primary" type="submit">Create key</button>
          </form>
        </>
      )}
    </SettingsLayout>
  );
}
