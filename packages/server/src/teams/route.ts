import type { Handlers } from '../http/handler.js';
import { notImplemented } from '../http/notImplemented.js';

export const teamsHandlers: Handlers<'teams.list' | 'teams.create' | 'teams.update' | 'teams.delete'> = {
  'teams.list': notImplemented('teams.list'),
  'teams.create': notImplemented('teams.create'),
  'teams.update': notImplemented('teams.update'),
  'teams.delete': notImplemented('teams.delete'),
};
