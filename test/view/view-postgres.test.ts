/**
 * `hpt-bench view` (issue 29) over a PostgreSQL store: the same API answers as over SQLite (the store's new reads —
 * `runProgress`, `samplePage`, `getSample` — are portable SQL through one SqlHandle). Two runs written by the built CLI
 * into a throwaway server; the viewer opens the URL read-only. Skipped when PostgreSQL's binaries are missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStore, storeLabel } from '@hpt-bench/core';
import { createViewServer, type ViewServer } from '../../packages/cli/src/view/server.js';
import { runCli } from '../helpers/cli.js';
import { POSTGRES_MISSING, startPostgres, warnIfPostgresMissing, type TestPostgres } from '../helpers/postgres.js';

warnIfPostgresMissing('view-postgres');

describe.skipIf(POSTGRES_MISSING)('hpt-bench view on a PostgreSQL store', () => {
  let pg: TestPostgres;
  let url: string;
  let store: RunStore;
  let view: ViewServer;
  let random: string;
  let oracle: string;
  const get = async (path: string) => {
    const r = await view.app.request(`http://127.0.0.1${path}`, { headers: { host: '127.0.0.1:1' } });
    return { status: r.status, body: (await r.json()) as any };
  };

  beforeAll(async () => {
    pg = await startPostgres();
    url = await pg.createDatabase();
    const ok = (r: { code: number | null; stdout: string; stderr: string }) => {
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { runId: string }).runId;
    };
    random = ok(await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:random', '--store', url, '--json']));
    oracle = ok(await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:oracle', '--store', url, '--json']));
    store = new RunStore(url, { readonly: true });
    view = createViewServer({ store, label: storeLabel(url), resamples: 200 });
  });

  afterAll(() => {
    store?.close();
    pg?.stop();
  });

  it('lists, pages, shows and compares runs as on SQLite', async () => {
    const runs = (await get('/api/runs')).body;
    expect(runs.total).toBe(2);
    expect(runs.runs.find((r: { id: string }) => r.id === oracle)).toMatchObject({ done: 8, errored: 0, hpi: 1, accuracy: 1 });
    const page = (await get(`/api/runs/${random}/samples?offset=6&limit=5`)).body;
    expect(page.total).toBe(8);
    expect(page.samples.map((s: { index: number }) => s.index)).toEqual([6, 7]);
    expect(page.samples.every((s: { attempts: number }) => s.attempts >= 1)).toBe(true);
    // LOWER(...) LIKE ... ESCAPE: a literal % matches nothing; an id's digits match it
    expect((await get(`/api/runs/${random}/samples?q=%25`)).body.total).toBe(0);
    expect((await get(`/api/runs/${random}/samples?q=7`)).body.samples.map((s: { sampleId: string }) => s.sampleId)).toContain('7');
    const solved = (await get(`/api/runs/${random}/samples?outcome=solved`)).body.total;
    const unsolved = (await get(`/api/runs/${random}/samples?outcome=unsolved`)).body.total;
    expect(solved + unsolved).toBe(8);
    const sample = (await get(`/api/runs/${random}/samples/3`)).body.sample;
    expect(sample.index).toBe(3);
    expect(sample.attempts[0].calls[0].messages.length).toBeGreaterThan(0);
    const run = (await get(`/api/runs/${oracle}`)).body;
    expect(run.tables.map((t: { id: string }) => t.id)).toContain('runs');
    expect(run.progress).toMatchObject({ done: 8, errored: 0, hpi: 1, accuracy: 1 });
    const cmp = (await get(`/api/compare/${oracle}/${random}`)).body;
    expect(cmp.paired).toBe(8);
    expect(cmp.a.hpi).toBe(1);
  });
});
