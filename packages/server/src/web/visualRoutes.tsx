import type { Context, Hono } from 'hono';
import { roleAllows } from '../authz/policy.js';
import type { Services } from '../services.js';
import { formFields } from './authRoutes.js';
import { VisualPage } from './pages/visual.js';
import { loadNav, render } from './render.js';
import { safeNext, type WebEnv } from './session.js';

type Ctx = Context<WebEnv>;
type PageFn = (services: Services, fn: (c: Ctx) => Promise<Response>) => (c: Ctx) => Promise<Response>;

/** The visual review page of a run and its Accept / Accept all in this file / Undo forms (issue 28). */
export function mountVisualPages(app: Hono<WebEnv>, services: Services, page: PageFn) {
  app.get(
    '/runs/:id/visual',
    page(services, async (c) => {
      const principal = c.get('principal');
      const run = await services.runs.get(principal, c.req.param('id') ?? '');
      const [nav, files, artifacts] = await Promise.all([
        loadNav(services, principal, run.projectId, 'runs'),
        services.baselines.review(principal, run.id),
        services.artifacts.list(principal, { runId: run.id }),
      ]);
      const canAccept = nav.current ? roleAllows(nav.current.role, 'baselines') : false;
      return render(c, services, <VisualPage nav={nav} run={run} files={files} artifacts={new Map(artifacts.data.map((a) => [a.id, a]))} canAccept={canAccept} />);
    }),
  );

  for (const action of ['accept', 'undo'] as const) {
    app.post(
      `/runs/:id/visual/${action}`,
      page(services, async (c) => {
        const principal = c.get('principal');
        const runId = c.req.param('id') ?? '';
        const form = await formFields(c);
        if (action === 'accept' && form.file) await services.baselines.acceptFile(principal, runId, form.file);
        else {
          const testId = form.testId ?? '';
          const names = form.name ? [form.name] : undefined;
          await services.baselines.inRun(principal, runId, testId);
          if (action === 'accept') await services.baselines.accept(principal, testId, { names });
          else await services.baselines.unaccept(principal, testId, { names });
        }
        return c.redirect(safeNext(form.back), 303);
      }),
    );
  }
}
