import type { Child } from 'hono/jsx';
import type { Project, teamWithRole } from '@testreport/contract';
import type { z } from 'zod';

type TeamWithRole = z.infer<typeof teamWithRole>;
import { ASSET_URLS } from './assets.js';

export interface NavData {
  email: string;
  teams: (TeamWithRole & { projects: Project[] })[];
  /** The project the page belongs to, with the user's role in its team. */
  current: { project: Project; role: TeamWithRole['role'] } | null;
  section: 'runs' | 'flaky' | 'errors' | 'insights' | 'settings' | null;
}

function Document({ title, script, noReferrer, children }: { title: string; script?: string; noReferrer?: boolean; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        {noReferrer && <meta name="referrer" content="no-referrer" />}
        <title>{`${title} · testreport`}</title>
        <link rel="stylesheet" href={ASSET_URLS.css} />
        <script src={ASSET_URLS.js} defer></script>
        {script && <script src={script} defer></script>}
      </head>
      {children}
    </html>
  );
}

function ProjectSwitcher({ nav }: { nav: NavData }) {
  const all = nav.teams.flatMap((t) => t.projects);
  if (all.length === 0) return null;
  return (
    <form method="get" action="/switch">
      <label class="sr-only" for="project-switcher">Team and project</label>
      <select id="project-switcher" name="project" data-autosubmit>
        {nav.teams.map((t) => (
          <optgroup label={t.name}>
            {t.projects.map((p) => (
              <option value={p.id} selected={nav.current?.project.id === p.id}>
                {`${t.name} / ${p.name}`}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
      {/* The select submits itself with script (islands.ts); without script this button does. */}
      <noscript>
        <button type="submit">Go</button>
      </noscript>
    </form>
  );
}

/** Every signed-in page: header with the switcher, the project's sections and sign out. */
export function Layout({ title, nav, children }: { title: string; nav: NavData; children: Child }) {
  const p = nav.current?.project;
  const link = (section: NavData['section'], href: string, label: string) => (
    <a href={href} aria-current={nav.section === section ? 'page' : undefined}>
      {label}
    </a>
  );
  return (
    <Document title={title}>
      <body>
        <a class="skip-link" href="#main">Skip to content</a>
        <header class="top">
          <a class="brand" href="/">testreport</a>
          <ProjectSwitcher nav={nav} />
          {p && (
            <nav aria-label="Project">
              {link('runs', `/projects/${p.id}/runs`, 'Runs')}
              {link('flaky', `/projects/${p.id}/flaky`, 'Flaky tests')}
              {link('errors', `/projects/${p.id}/errors`, 'Errors')}
              {link('insights', `/projects/${p.id}/insights`, 'Insights')}
              {link('settings', `/projects/${p.id}/settings`, 'Settings')}
            </nav>
          )}
          {p && (
            <form method="get" action={`/projects/${p.id}/search`} role="search" aria-label="Search this project" class="header-search">
              <label class="sr-only" for="header-search">Search titles, errors and output</label>
              <input id="header-search" type="search" name="q" placeholder="Search titles, errors, output" minlength={3} maxlength={200} required />
            </form>
          )}
          <span class="spacer"></span>
          <span class="muted small hide-narrow">{nav.email}</span>
          <form method="post" action="/signout">
            <button type="submit">Sign out</button>
          </form>
        </header>
        <main id="main">{children}</main>
      </body>
    </Document>
  );
}

/** Pages without a session: sign in, sign up, password reset, errors for signed-out visitors. */
export function Bare({ title, flow, script, children }: { title: string; flow?: string; script?: string; children: Child }) {
  return (
    <Document title={title} script={script} noReferrer={flow !== undefined}>
      <body data-flow={flow}>
        <main id="main" class="auth">{children}</main>
      </body>
    </Document>
  );
}
