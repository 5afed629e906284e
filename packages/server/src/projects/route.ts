import type { Handlers } from '../http/handler.js';
import { notImplemented } from '../http/notImplemented.js';

export const projectsHandlers: Handlers<'projects.list' | 'projects.create' | 'projects.get' | 'projects.update' | 'projects.delete' | 'projects.getSettings' | 'projects.updateSettings'> = {
  'projects.list': notImplemented('projects.list'),
  'projects.create': notImplemented('projects.create'),
  'projects.get': notImplemented('projects.get'),
  'projects.update': notImplemented('projects.update'),
  'projects.delete': notImplemented('projects.delete'),
  'projects.getSettings': notImplemented('projects.getSettings'),
  'projects.updateSettings': notImplemented('projects.updateSettings'),
};
