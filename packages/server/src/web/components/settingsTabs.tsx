import type { Child } from 'hono/jsx';
import { roleAllows } from '../../authz/policy.js';
import { Layout, type NavData } from '../layout.js';

export type SettingsTab = 'project' | 'keys' | 'webhooks' | 'members';

/** Only the tabs the user's role can use are shown; the services still decide on every request. */
export function SettingsLayout({ nav, tab, title, notice, error, children }: { nav: NavData; tab: SettingsTab; title: string; notice?: string; error?: string; children: Child }) {
  const { project, role } = nav.current!;
  const base = `/projects/${project.id}/settings`;
  const tabs: [SettingsTab, string, string, boolean][] = [
    ['project', base, 'Project', true],
    ['keys', `${base}/keys`, 'API keys', roleAllows(role, 'apiKeys.list')],
    ['webhooks', `${base}/webhooks`, 'Webhooks', roleAllows(role, 'webhooks')],
    ['members', `${base}/members`, 'Members', roleAllows(role, 'members.read')],
  ];
  return (
    <Layout title={`${title} · Settings`} nav={nav}>
      <h1>Settings · {project.name}</h1>
      <nav class="row" aria-label="Settings">
        {tabs.filter((t) => t[3]).map(([id, href, label]) => (
          <a href={href} aria-current={id === tab ? 'page' : undefined}>{label}</a>
        ))}
      </nav>
      {notice && <p class="notice" role="status">{notice}</p>}
      {error && <p class="notice error" role="alert">{error}</p>}
      <h2>{title}</h2>
      {children}
    </Layout>
  );
}
