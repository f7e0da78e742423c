// The CLI against a real throwaway PostgreSQL server (test/helpers/postgres.ts): run, runs, report, a re-run, the
// HPT_BENCH_STORE default, `store migrate` both ways, and the errors (a run id already in the target, an unreachable
// server, a password never printed). Uses the built dist/ (npm run build first).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { BIN, ROOT, runCli } from '../helpers/cli.js';
import { POSTGRES_MISSING, startPostgres, warnIfPostgresMissing, type TestPostgres } from '../helpers/postgres.js';

warnIfPostgresMissing('postgres-e2e');

const RUN = ['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:random', '--seed', '3'];

/** A report's JSON without what differs between stores (their names, when it was made). */
function comparable(stdout: string): unknown {
  const r = JSON.parse(stdout) as Record<string, unknown>;
  delete r.store;
  delete r.generatedAt;
  return r;
}

describe.skipIf(POSTGRES_MISSING)('the CLI on a PostgreSQL store', () => {
  let server: TestPostgres;
  let dir: string;
  beforeAll(async () => {
    server = await startPostgres();
    dir = mkdtempSync(join(tmpdir(), 'hpt-pg-e2e-'));
  });
  afterAll(() => {
    server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs, lists, reports and recognises the completed run on a re-run, as on SQLite', async () => {
    const url = await server.createDatabase();
    const first = await runCli([...RUN, '--store', url, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const a = JSON.parse(first.stdout) as { runId: string; hpi: number; n: number };
    const sqlite = await runCli([...RUN, '--store', join(dir, 'ref.db'), '--json']);
    const ref = JSON.parse(sqlite.stdout) as { runId: string; hpi: number; n: number };
    expect(a.hpi).toBe(ref.hpi);
    expect(a.n).toBe(ref.n);

    const runs = await runCli(['runs', '--store', url, '--json']);
    expect(runs.code, runs.stderr).toBe(0);
    const listing = JSON.parse(runs.stdout) as { runs: { runId: string; status: string; done: number }[] };
    expect(listing.runs.map((r) => [r.runId, r.status, r.done])).toEqual([[a.runId, 'completed', a.n]]);

    // the same command again: the completed run is recognised, nothing re-evaluated (as on SQLite)
    const again = await runCli([...RUN, '--store', url, '--json']);
    const againRef = await runCli([...RUN, '--store', join(dir, 'ref.db'), '--json']);
    expect(again.code, again.stderr).toBe(0);
    const b = JSON.parse(again.stdout) as Record<string, unknown>;
    const bRef = JSON.parse(againRef.stdout) as Record<string, unknown>;
    expect(b.runId === a.runId).toBe(bRef.runId === ref.runId);
    expect(b.resumed).toBe(bRef.resumed);
    expect(b.hpi).toBe(a.hpi);
    const runs2 = JSON.parse((await runCli(['runs', '--store', url, '--json'])).stdout) as { runs: unknown[] };
    const runs2Ref = JSON.parse((await runCli(['runs', '--store', join(dir, 'ref.db'), '--json'])).stdout) as { runs: unknown[] };
    expect(runs2.runs.length).toBe(runs2Ref.runs.length);

    // HPT_BENCH_STORE is the default store; an explicit --store wins
    const viaEnv = await runCli(['report', '--format', 'json'], { env: { HPT_BENCH_STORE: url } });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    const direct = await runCli(['report', '--format', 'json', '--store', url]);
    const refReport = await runCli(['report', '--format', 'json', '--store', join(dir, 'ref.db')]);
    expect(comparable(viaEnv.stdout)).toEqual(comparable(direct.stdout));
    const flagWins = await runCli(['runs', '--json', '--store', join(dir, 'ref.db')], { env: { HPT_BENCH_STORE: url } });
    expect((JSON.parse(flagWins.stdout) as { store: string }).store).toBe(join(dir, 'ref.db'));
    // the same report as SQLite's, once run ids and times are set aside, and the bootstrap intervals (their random
    // stream is named by the run id, which differs between the two stores)
    const neutral = (stdout: string) =>
      JSON.stringify(comparable(stdout), (k, v: unknown) => (k === 'hpiCi95' || k === 'accuracyCi95' ? undefined : v))
        .replace(/\d{8}T\d{6}-[0-9a-f]+/g, 'RUN')
        .replace(/"\d{4}-\d\d-\d\dT[\d:.]+Z"/g, '"T"');
    expect(neutral(direct.stdout)).toBe(neutral(refReport.stdout));
  });

  it('store migrate: a SQLite store made by a real run reports the same on PostgreSQL, and back', async () => {
    const file = join(dir, 'src.db');
    expect((await runCli([...RUN, '--store', file])).code).toBe(0);
    expect((await runCli(['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:oracle', '--store', file])).code).toBe(0);
    const url = await server.createDatabase();
    const m = await runCli(['store', 'migrate', '--from', file, '--to', url, '--json']);
    expect(m.code, m.stderr).toBe(0);
    const counts = JSON.parse(m.stdout) as { tables: Record<string, number>; rows: number };
    expect(counts.tables.runs).toBe(2);
    expect(counts.tables.samples).toBeGreaterThan(0);
    expect(counts.tables.calls).toBeGreaterThan(0);
    const onSqlite = await runCli(['report', '--format', 'json', '--all', '--store', file]);
    const onPg = await runCli(['report', '--format', 'json', '--all', '--store', url]);
    expect(onPg.code, onPg.stderr).toBe(0);
    expect(comparable(onPg.stdout)).toEqual(comparable(onSqlite.stdout));

    // the other reading commands give the same answers on both stores
    const ids = (JSON.parse((await runCli(['runs', '--store', file, '--json'])).stdout) as { runs: { runId: string }[] }).runs.map((r) => r.runId);
    for (const args of [['compare', ids[0]!, ids[1]!, '--json'], ['runs', 'show', ids[0]!, '--json'], ['cache', 'stats', '--json'], ['plan', ...RUN.slice(1), '--json']]) {
      const [x, y] = [await runCli([...args, '--store', file]), await runCli([...args, '--store', url])];
      expect(y.code, `${args.join(' ')}: ${y.stderr}`).toBe(x.code);
      expect(comparable(y.stdout.startsWith('[') ? `{"a":${y.stdout}}` : y.stdout)).toEqual(comparable(x.stdout.startsWith('[') ? `{"a":${x.stdout}}` : x.stdout));
    }

    // again into the same target: refused, exit 2, nothing written
    const twice = await runCli(['store', 'migrate', '--from', file, '--to', url, '--json']);
    expect(twice.code).toBe(2);
    expect((JSON.parse(twice.stdout) as { error: { code: string; message: string } }).error.message).toMatch(/already holds 2 of the runs/);
    const after = JSON.parse((await runCli(['runs', '--store', url, '--json'])).stdout) as { runs: unknown[] };
    expect(after.runs).toHaveLength(2);

    // bad input: a source that is not there, the same store twice; clear errors, exit 2
    for (const [args, message] of [
      [['--from', join(dir, 'none.db'), '--to', url], /cannot open store .*none\.db/],
      [['--from', url, '--to', url], /same store/],
    ] as const) {
      const bad = await runCli(['store', 'migrate', ...args, '--json']);
      expect(bad.code).toBe(2);
      expect((JSON.parse(bad.stdout) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'E_STORE', message: expect.stringMatching(message) });
    }

    // PostgreSQL -> SQLite gives the same report again
    const back = join(dir, 'back.db');
    const mb = await runCli(['store', 'migrate', '--from', url, '--to', back]);
    expect(mb.code, mb.stderr).toBe(0);
    expect(mb.stdout).toMatch(/copied \d+ rows from postgres:\/\/postgres@127\.0\.0\.1:\d+\/\w+ to /);
    const onBack = await runCli(['report', '--format', 'json', '--all', '--store', back]);
    expect(comparable(onBack.stdout)).toEqual(comparable(onSqlite.stdout));
  });

  it('a run SIGKILLed mid-way on PostgreSQL is continued by the same command, with the result of an uninterrupted run', async () => {
    const url = await server.createDatabase();
    const cmd = ['run', '--dataset', 'binary-tree', '--limit', '1500', '--model', 'baseline:random', '--seed', '5', '--json'];
    const killed = await killWhenStored([...cmd, '--store', url], url, 100);
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.stored).toBeGreaterThanOrEqual(100);
    const resumed = await runCli([...cmd, '--store', url]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const clean = await runCli([...cmd, '--store', join(dir, 'clean.db')]);
    const [a, b] = [JSON.parse(resumed.stdout) as Record<string, unknown>, JSON.parse(clean.stdout) as Record<string, unknown>];
    expect(a.resumed).toBe(true);
    expect([a.n, a.hpi, a.levelCounts]).toEqual([b.n, b.hpi, b.levelCounts]);
    const runs = JSON.parse((await runCli(['runs', '--store', url, '--json'])).stdout) as { runs: { status: string; done: number }[] };
    expect(runs.runs).toEqual([expect.objectContaining({ status: 'completed', done: b.n })]);
  });

  it('an unreachable server is a clear E_STORE error that never shows the password', async () => {
    const url = `postgres://bench:s3cretpass@127.0.0.1:${server.port + 1 === 65536 ? 1 : server.port + 1}/nope`;
    for (const args of [['runs', '--store', url, '--json'], [...RUN, '--store', url, '--json']]) {
      const r = await runCli(args);
      expect(r.code).not.toBe(0);
      expect(r.stdout + r.stderr).not.toContain('s3cretpass');
      expect((JSON.parse(r.stdout) as { error: { code: string; message: string } }).error.code).toBe('E_STORE');
    }
  });
});

/** Start the CLI and SIGKILL it once the PostgreSQL store holds at least `atLeast` samples. */
async function killWhenStored(args: string[], url: string, atLeast: number): Promise<{ signal: string | null; stored: number }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' }, stdio: 'ignore' });
  const closed = new Promise<string | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let stored = 0;
  let exited = false;
  void closed.then(() => (exited = true));
  try {
    while (!exited) {
      try {
        stored = Number((await client.query('SELECT COUNT(*) AS c FROM samples')).rows[0].c);
      } catch {
        // the tables do not exist yet
      }
      if (stored >= atLeast) {
        child.kill('SIGKILL');
        break;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    await client.end();
  }
  return { signal: await closed, stored };
}
