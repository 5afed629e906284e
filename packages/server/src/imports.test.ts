import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The server's imports flow one way (docs/architecture.md, "Server layers"): a resource reaches
 * another resource's data only through its service, and only the app and the HTTP layer know the
 * router. Top-level wiring (app.ts, services.ts) builds everything and is exempt, and so is
 * testing/ (test support seeds rows directly).
 */
const SRC = dirname(fileURLToPath(import.meta.url));

type Source = { path: string; text: string };

function sources(dir = SRC): Source[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'assets' ? [] : sources(full);
    if (!/\.tsx?$/.test(e.name) || /\.test\.tsx?$/.test(e.name)) return [];
    return [{ path: relative(SRC, full).split('\\').join('/'), text: readFileSync(full, 'utf8') }];
  });
}

/** Relative import specifiers, resolved to paths under src/ (`teams/repo.js`). */
function importsOf(file: Source): string[] {
  const specs = [...file.text.matchAll(/(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g)];
  return specs.map((m) => posix.normalize(posix.join(posix.dirname(file.path), m[1] ?? m[2])));
}

const folder = (path: string) => (path.includes('/') ? path.slice(0, path.indexOf('/')) : null);
const isRepo = (path: string) => /(^|\/)(repo|[A-Za-z]*Repo)\.js$/.test(path);

export function violations(files: Source[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const own = folder(file.path);
    for (const target of importsOf(file)) {
      if (own && own !== 'testing' && folder(target) !== own && isRepo(target)) {
        found.push(`${file.path} imports ${target}: go through that resource's service`);
      }
      if (target === 'http/router.js' && own !== 'http' && file.path !== 'app.ts') {
        found.push(`${file.path} imports http/router.js: only app.ts mounts the router`);
      }
    }
    // A service's `internal` methods skip authorization: only other services may call them.
    if ((/(^|\/)route\.ts$/.test(file.path) || own === 'web') && /\.internal\./.test(file.text)) {
      found.push(`${file.path} calls a service's internal methods, which skip authorization`);
    }
  }
  return found;
}

describe('server imports flow one way', () => {
  it('no resource imports another resource\'s repository, and only app.ts and http/ import the router', () => {
    const files = sources();
    // The scan reads the real tree: a broken walk or import pattern would pass vacuously.
    expect(importsOf(files.find((f) => f.path === 'accounts/service.ts')!)).toContain('teams/service.js');
    expect(importsOf(files.find((f) => f.path === 'app.ts')!)).toContain('http/router.js');
    expect(violations(files)).toEqual([]);
  });

  it('flags each kind of crossing', () => {
    const bad: Source[] = [
      { path: 'teams/service.ts', text: "import { createProjectRepo } from '../projects/repo.js';" },
      { path: 'me/service.ts', text: "import type { UserRepo } from '../accounts/userRepo.js';" },
      { path: 'runs/route.ts', text: "import { mountEndpoints } from '../http/router.js';\nservices.teams.internal.listForUser(id);" },
      { path: 'web/pages/x.tsx', text: "const t = await import('../../teams/repo.js');" },
    ];
    expect(violations(bad)).toEqual([
      'teams/service.ts imports projects/repo.js: go through that resource\'s service',
      'me/service.ts imports accounts/userRepo.js: go through that resource\'s service',
      'runs/route.ts imports http/router.js: only app.ts mounts the router',
      'runs/route.ts calls a service\'s internal methods, which skip authorization',
      'web/pages/x.tsx imports teams/repo.js: go through that resource\'s service',
    ]);
    // Its own repository, a service, a presenter, and the wiring are fine.
    const fine: Source[] = [
      { path: 'teams/service.ts', text: "import { createTeamRepo } from './repo.js';\nimport type { ProjectService } from '../projects/service.js';\nimport { toProject } from '../projects/present.js';" },
      { path: 'services.ts', text: "import { createApiKeyRepo } from './apiKeys/repo.js';" },
      { path: 'http/edge.ts', text: "import { mountEndpoints } from './router.js';" },
    ];
    expect(violations(fine)).toEqual([]);
  });
});
