import type { Handlers } from '../http/handler.js';
import { notImplemented } from '../http/notImplemented.js';

export const membersHandlers: Handlers<'members.list' | 'members.invite' | 'members.update' | 'members.remove' | 'invitations.list' | 'invitations.accept' | 'invitations.revoke'> = {
  'members.list': notImplemented('members.list'),
  'members.invite': notImplemented('members.invite'),
  'members.update': notImplemented('members.update'),
  'members.remove': notImplemented('members.remove'),
  'invitations.list': notImplemented('invitations.list'),
  'invitations.accept': notImplemented('invitations.accept'),
  'invitations.revoke': notImplemented('invitations.revoke'),
};
