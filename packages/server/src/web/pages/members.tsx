import { INVITABLE_ROLES, TEAM_ROLES, type Invitation, type TeamMember } from '@testreport/contract';
import { roleAllows } from '../../authz/policy.js';
import { SettingsLayout } from '../components/settingsTabs.js';
import { when } from '../format.js';
import type { NavData } from '../layout.js';
import { DataTable } from '../components/table.js';

type Flash = { notice?: string; error?: string };

export function MembersPage({ nav, members, invitations, flash }: { nav: NavData; members: TeamMember[]; invitations: Invitation[] | null; flash: Flash }) {
  const role = nav.current!.role;
  const canManage = roleAllows(role, 'members.manage');
  const canInvite = roleAllows(role, 'members.invite');
  const base = `/projects/${nav.current!.project.id}/settings/members`;
  return (
    <SettingsLayout nav={nav} tab="members" title="Members of the team" {...flash}>
      <DataTable
        head={
          <>
            <th>Name</th><th>Email</th><th>Role</th><th class="hide-narrow">Joined</th>{canManage && <th></th>}
          </>
        }
      >
        {members.map((m) => (
          <tr>
            <td>{m.name}</td>
            <td>{m.email}</td>
            <td>
              {canManage && m.role !== 'owner' ? (
                <form class="inline" method="post" action={`${base}/${m.id}/role`}>
                  <label class="sr-only" for={`role-${m.id}`}>Role of {m.email}</label>
                  <select id={`role-${m.id}`} name="role" data-autosubmit>
                    {TEAM_ROLES.filter((r) => r !== 'owner' || role === 'owner').map((r) => (
                      <option value={r} selected={m.role === r}>{r}</option>
                    ))}
                  </select>{' '}
                  <button type="submit">Change</button>
                </form>
              ) : (
                m.role
              )}
            </td>
            <td class="hide-narrow">{when(m.joinedAt)}</td>
            {canManage && (
              <td>
                {m.role !== 'owner' && (
                  <form class="inline" method="post" action={`${base}/${m.id}/remove`} data-confirm={`Remove ${m.email} from the team?`}>
                    <button class="danger" type="submit" aria-label={`Remove ${m.email}`}>Remove</button>
                  </form>
                )}
              </td>
            )}
          </tr>
        ))}
      </DataTable>
      {invitations && (
        <>
          <h3>Invitations</h3>
          {invitations.length === 0 ? (
            <p class="muted">No invitations.</p>
          ) : (
            <ul>
              {invitations.map((i) => (
                <li>
                  {i.email} as {i.role} · {i.status} · expires {when(i.expiresAt)}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      {canInvite && (
        <>
          <h3>Invite someone</h3>
          <form class="filters" method="post" action={`${base}/invite`}>
            <label>
              Email to invite
              <input type="email" name="email" required />
            </label>
            <label>
              Role
              <select name="role">
                {INVITABLE_ROLES.filter((r) => r !== 'admin' || canManage).map((r) => (
                  <option value={r} selected={r === 'member'}>{r}</option>
                ))}
              </select>
            </label>
            <button class="primary" type="submit">Send invitation</button>
          </form>
        </>
      )}
    </SettingsLayout>
  );
}
