import type { Handlers } from '../http/handler.js';

export const baselinesHandlers: Handlers<'tests.snapshots' | 'tests.acceptSnapshots' | 'tests.unacceptSnapshots' | 'runs.baselines'> = {
  'tests.snapshots': ({ params, principal, services }) => services.baselines.snapshots(principal, params.id),
  'tests.acceptSnapshots': ({ params, body, principal, services }) => services.baselines.accept(principal, params.id, body),
  'tests.unacceptSnapshots': ({ params, body, principal, services }) => services.baselines.unaccept(principal, params.id, body),
  'runs.baselines': ({ params, principal, services }) => services.baselines.runBaselines(principal, params.id),
};
