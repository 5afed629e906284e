import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, startTestServer, type Receiver, type TestServer } from '@testreport/server/testing';
import { UsageError } from '../lib/errors.js';
import { keyContext } from '../testing/context.js';
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, testWebhook, updateWebhook, webhookFormat } from './webhooks.js';

let srv: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  srv = await startTestServer();
  receiver = await startReceiver((_n, _req, res) => res.writeHead(204).end());
});

afterAll(async () => {
  await receiver?.close();
  await srv?.close();
});

describe('webhooks', () => {
  it('create, list, ping (signed, with its headers), deliveries, update, delete', async () => {
    const ctx = keyContext(srv);
    const created = await createWebhook(ctx, { url: receiver.url, events: ['run.failed'], headers: { 'X-Team': 'qa' }, secret: 's3cret-value', isActive: true });
    expect(created).toMatchObject({ url: receiver.url, events: ['run.failed'], headers: { 'X-Team': 'qa' }, isActive: true, hasSecret: true, projectId: srv.projectId });
    expect(JSON.stringify(created)).not.toContain('s3cret-value');
    expect((await listWebhooks(ctx)).data.map((w) => w.id)).toEqual([created.id]);

    const ping = await testWebhook(ctx, { webhookId: created.id });
    expect(ping).toMatchObject({ webhookId: created.id, event: 'ping' });
    await receiver.waitFor(1);
    const got = receiver.received[0];
    expect(got.headers['x-team']).toBe('qa');
    expect(got.headers['x-testreport-signature']).toContain(createHmac('sha256', 's3cret-value').update(got.body).digest('hex'));

    const log = await listDeliveries(ctx, { webhookId: created.id, limit: 50, offset: 0 });
    expect(log.data.map((d) => [d.id, d.event])).toContainEqual([ping.id, 'ping']);

    const updated = await updateWebhook(ctx, { webhookId: created.id, changes: { events: ['run.completed', 'run.failed'], isActive: false, secret: null } });
    expect(updated).toMatchObject({ events: ['run.completed', 'run.failed'], isActive: false, hasSecret: false, headers: { 'X-Team': 'qa' } });

    await expect(deleteWebhook(ctx, { webhookId: created.id })).rejects.toThrow(/pass --yes/);
    expect((await listWebhooks(ctx)).data).toHaveLength(1);
    expect(await deleteWebhook(keyContext(srv, { yes: true }), { webhookId: created.id })).toMatchObject({ success: true });
    expect((await listWebhooks(ctx)).data).toHaveLength(0);
  });

  it('--format slack creates a Slack webhook whose ping is a Block Kit message; an unknown format is a usage error', async () => {
    const ctx = keyContext(srv);
    expect(() => webhookFormat('discord')).toThrow(UsageError);
    expect(() => webhookFormat('discord')).toThrow(/--format: unknown format "discord" \(use generic, slack, teams\)/);
    const created = await createWebhook(ctx, { url: receiver.url, events: ['run.failed'], format: webhookFormat('Slack') });
    expect(created.format).toBe('slack');
    const before = receiver.received.length;
    await testWebhook(ctx, { webhookId: created.id });
    await receiver.waitFor(before + 1);
    const body = JSON.parse(receiver.received[before].body);
    expect(body).toEqual({ text: 'testreport: this webhook is connected.', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'testreport: this webhook is connected.' } }] });
    expect((await updateWebhook(ctx, { webhookId: created.id, changes: { format: webhookFormat('teams') } })).format).toBe('teams');
    await deleteWebhook(keyContext(srv, { yes: true }), { webhookId: created.id });
  });

  it('an update with nothing to change is a usage error', async () => {
    const ctx = keyContext(srv);
    const { id } = await createWebhook(ctx, { url: receiver.url, events: ['run.completed'] });
    await expect(updateWebhook(ctx, { webhookId: id, changes: {} })).rejects.toBeInstanceOf(UsageError);
  });

  it('a bad delivery URL is refused by the server naming the field; nothing is created', async () => {
    const ctx = keyContext(srv);
    const before = (await listWebhooks(ctx)).data.length;
    await expect(createWebhook(ctx, { url: 'ftp://example.com/hook', events: ['run.failed'] })).rejects.toMatchObject({ status: 400, details: { field: 'url' } });
    expect((await listWebhooks(ctx)).data.length).toBe(before);
  });

  it('webhooks of another project are out of reach', async () => {
    const other = await srv.createOtherTenant();
    const theirs = await createWebhook(keyContext(srv, { apiKey: other.apiKey }), { url: receiver.url, events: ['run.failed'] });
    await expect(testWebhook(keyContext(srv), { webhookId: theirs.id })).rejects.toMatchObject({ status: 404 });
  });
});
