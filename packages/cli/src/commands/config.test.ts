import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../lib/errors.js';
import { tempDir, testContext } from '../testing/context.js';
import { setConfig, showConfig, unsetConfig } from './config.js';

const setting = (shown: Awaited<ReturnType<typeof showConfig>>, key: string) => shown.settings.find((s) => s.key === key);

describe('config', () => {
  it('with nothing configured shows the default address, no key, no session', async () => {
    const shown = await showConfig(testContext());
    expect(setting(shown, 'url')).toEqual({ key: 'url', value: 'http://localhost:4000', source: 'default', origin: 'built-in default' });
    expect(setting(shown, 'apiKey')).toEqual({ key: 'apiKey', value: null, source: null, origin: null });
    expect(shown.session).toBeNull();
  });

  it('flags > environment > ./testreport.config.json > user file, each with where it came from', async () => {
    const configDir = tempDir('cfg-');
    const cwd = tempDir('cwd-');
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ url: 'http://user-file.example:1', projectId: 'from-user-file' }));
    const user = await showConfig(testContext({}, { configDir, cwd }));
    expect(setting(user, 'projectId')).toMatchObject({ value: 'from-user-file', source: 'user file', origin: join(configDir, 'config.json') });

    writeFileSync(join(cwd, 'testreport.config.json'), JSON.stringify({ projectId: 'from-project-file' }));
    const project = await showConfig(testContext({}, { configDir, cwd }));
    expect(setting(project, 'projectId')).toMatchObject({ value: 'from-project-file', source: 'project file' });
    expect(setting(project, 'url')).toMatchObject({ value: 'http://user-file.example:1', source: 'user file' });

    const env = await showConfig(testContext({}, { configDir, cwd, env: { TESTREPORT_PROJECT_ID: 'from-env' } }));
    expect(setting(env, 'projectId')).toMatchObject({ value: 'from-env', source: 'env', origin: 'TESTREPORT_PROJECT_ID' });

    const flag = await showConfig(testContext({ project: 'from-flag' }, { configDir, cwd, env: { TESTREPORT_PROJECT_ID: 'from-env' } }));
    expect(setting(flag, 'projectId')).toMatchObject({ value: 'from-flag', source: 'flag', origin: '--project' });
  });

  it('never shows an API key in full', async () => {
    const key = 'trk_live_' + 'A'.repeat(34) + 'wxyz';
    const shown = await showConfig(testContext({}, { env: { TESTREPORT_API_KEY: key } }));
    expect(setting(shown, 'apiKey')!.value).toBe('trk_live_********wxyz');
    expect(JSON.stringify(shown)).not.toContain(key);
  });

  it('set and unset edit the user file (0600), and the next invocation sees the change', async () => {
    const ctx = testContext();
    const set = await setConfig(ctx, { key: 'url', value: 'https://stored.example.com/' });
    expect(set).toEqual({ key: 'url', file: join(ctx.configDir, 'config.json') });
    expect(statSync(set.file).mode & 0o777).toBe(0o600);
    await setConfig(ctx, { key: 'projectId', value: 'p-1' });
    const next = testContext({}, { configDir: ctx.configDir });
    expect(setting(await showConfig(next), 'url')).toMatchObject({ value: 'https://stored.example.com', source: 'user file' });

    expect(await unsetConfig(next, { key: 'projectId' })).toMatchObject({ key: 'projectId', removed: true });
    expect(JSON.parse(readFileSync(set.file, 'utf8'))).toEqual({ url: 'https://stored.example.com' });
  });

  it('a config file that is not JSON is a usage error naming the file', () => {
    const configDir = tempDir('cfg-');
    writeFileSync(join(configDir, 'config.json'), '{ url: nope');
    expect(() => testContext({}, { configDir })).toThrow(UsageError);
    expect(() => testContext({}, { configDir })).toThrow(join(configDir, 'config.json'));
  });
});
