import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testDbKind } from '../testing/database.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { createRun, postTests, testBody } from '../testing/results.js';
import * as migration from './migrations/029_byte_collation_pg.js';

/**
 * PostgreSQL's text columns compare by bytes (migration 029). A table or column added later under
 * the database's collation would be compared with them in joins, where PostgreSQL uses an index only
 * under the index's own collation: this fails until the new column says `collate "C"`.
 */
const onPostgres = testDbKind() === 'postgres';
let t: TestServer;

beforeAll(async () => {
  if (onPostgres) t = await startTestServer();
}, 120_000);
afterAll(async () => {
  await t?.close();
});

it.runIf(onPostgres)('every text column compares by bytes, but the trigram-searched ones', async () => {
  const { rows } = await sql<{ col: string }>`
    select c.table_name || '.' || c.column_name as col
    from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = current_schema() and t.table_type = 'BASE TABLE' and c.data_type = 'text'
      and c.collation_name is distinct from 'C' and c.table_name not like 'kysely%'
    order by 1`.execute(t.server.services.deps.db);
  expect(rows.map((r) => r.col)).toEqual([...migration.SEARCHED_COLUMNS].sort());
});

it.runIf(onPostgres)('the migration analyzes what it changed: a column loses its statistics with its collation', async () => {
  const db = t.server.services.deps.db;
  const run = await createRun(t);
  await postTests(t, Array.from({ length: 50 }, (_, i) => testBody(run.id, t.projectId, { fullTitle: `stats > ${i}` })));
  const statistics = async () =>
    (await sql<{ attname: string }>`select attname from pg_stats where schemaname = current_schema() and tablename = 'tests' and attname in ('id', 'run_id', 'full_title') order by 1`.execute(db)).rows.map((r) => r.attname);
  await migration.down(db);
  expect(await statistics()).toEqual(['full_title', 'id', 'run_id']);
  await migration.up(db);
  expect(await statistics()).toEqual(['full_title', 'id', 'run_id']);
});

it.runIf(onPostgres)('searching titles and paths still folds capitals beyond ASCII, as the database locale does', async () => {
  const run = await createRun(t);
  const [umlaut] = await postTests(t, [
    testBody(run.id, t.projectId, { title: 'Überprüft die Größe', fullTitle: 'Äpfel > Überprüft die Größe', filePath: 'tests/Äpfel.spec.ts' }),
    testBody(run.id, t.projectId, { title: 'plain', fullTitle: 'plain', filePath: 'tests/plain.spec.ts' }),
  ]);
  for (const search of ['überprüft', 'äpfel.spec', 'GRÖSSE'.slice(0, 3)]) {
    const res = await t.api('GET', `/tests?projectId=${t.projectId}&runId=${run.id}&search=${encodeURIComponent(search)}`, { auth: t.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.data.map((x: { id: string }) => x.id), search).toEqual([umlaut!.id]);
  }
  // The run page's own search (runs/insightsRepo.ts suitePage).
  const page = await fetch(`${t.url}/runs/${run.id}?q=${encodeURIComponent('äpfel >')}`, { headers: { cookie: t.owner.cookie } });
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain('Überprüft die Größe');
  expect(html).not.toContain('>plain</a>');
});
