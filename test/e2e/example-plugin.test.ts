/**
 * End-to-end: the example community plugin `examples/arc-self-consistency` (hpt-bench-plugin-arc: the ARC multiple-choice
 * dataset and a self-consistency sixth level, ladder hpf-sc), used the way its README says, outside the repository:
 * copied to a temp dir, the SDK vendored as `npm pack` of packages/sdk makes it (`vendor/hpt-bench-sdk-0.1.0.tgz`, not
 * committed), `npm install` offline (the SDK's own dependencies come from tarballs packed from the repository's
 * node_modules), `npm pack`, `hpt-bench plugins verify` on the tarball, `hpt-bench plugins install ./x.tgz` into a fresh
 * HOME and data dir, then a run of its sample file (`--data`) through hpf-sc against a scripted OpenAI-compatible server:
 * levels 1-5 always answer a wrong letter; the self-consistency level's five samples give a majority for the right
 * letter (the first and last draws wrong, so submitting either would fail) on every question but the last, whose
 * majority is wrong (its first and last draws right).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { ARC_EXAMPLE, ARC_HPI_DATASET, ARC_LADDER, ARC_RECORDS, ARC_RIGHT, ARC_UNSOLVED, arcScript, LETTERS } from '../helpers/arc-script.js';
import { startOpenAIServer, type TestServer } from '../helpers/openai-server.js';

const NPM = join(ROOT, 'node_modules/npm/bin/npm-cli.js');
const EXAMPLE = ARC_EXAMPLE;
const NAME = 'hpt-bench-plugin-arc';
const LADDER = ARC_LADDER;
const HPI_DATASET = ARC_HPI_DATASET;
/** Packages the SDK needs at install time, packed from the repository's node_modules. */
const SDK_DEPS = ['ajv', 'ajv-formats', 'fast-deep-equal', 'fast-uri', 'json-schema-traverse', 'require-from-string'];
const RECORDS = ARC_RECORDS;
const RIGHT = ARC_RIGHT;
const UNSOLVED = ARC_UNSOLVED;

let work: string;
let npmEnv: Record<string, string>;
let tarballPath: string;
let server: TestServer;

function sh(cmd: string, args: string[], cwd: string, env: Record<string, string> = npmEnv): string {
  const r = spawnSync(cmd, args, { cwd, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}
const npm = (args: string[], cwd: string) => sh(process.execPath, [NPM, ...args, '--offline', '--no-audit', '--no-fund', '--loglevel=error'], cwd);

function sandbox(): Record<string, string> {
  const dir = mkdtempSync(join(work, 'box-'));
  const home = join(dir, 'home');
  mkdirSync(home);
  return { XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config'), XDG_CACHE_HOME: join(dir, 'cache'), HOME: home, npm_config_offline: 'true', npm_config_cache: join(dir, 'npm-cache') };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'hpt-example-plugin-'));
  const home = join(work, 'npm-home');
  mkdirSync(home);
  npmEnv = { HOME: home, npm_config_cache: join(work, 'npm-cache'), npm_config_update_notifier: 'false' };
  const deps = join(work, 'deps');
  mkdirSync(deps);
  const nm = join(ROOT, 'node_modules');
  npm(['pack', '--ignore-scripts', '--pack-destination', deps, join(ROOT, 'packages/sdk'), ...SDK_DEPS.map((d) => join(nm, d))], ROOT);
  // the example, copied as a user would check it out (no node_modules, no vendor tarball: neither is committed)
  const dir = join(work, 'arc-self-consistency');
  cpSync(EXAMPLE, dir, { recursive: true, filter: (src) => !/\/(node_modules|vendor)(\/|$)/.test(src) && !src.endsWith('.tgz') });
  mkdirSync(join(dir, 'vendor'));
  cpSync(join(deps, 'hpt-bench-sdk-0.1.0.tgz'), join(dir, 'vendor/hpt-bench-sdk-0.1.0.tgz'));
  const depTarballs = readdirSync(deps).filter((f) => !f.startsWith('hpt-bench-sdk-')).map((f) => join(deps, f));
  npm(['install', '--no-save', '--no-package-lock', ...depTarballs], dir);
  npm(['install'], dir);
  const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', work], dir)) as { filename: string }[];
  tarballPath = join(work, packed[0]!.filename);
  const reply = arcScript();
  server = await startOpenAIServer((req) => ({ text: reply(req.messages.map((m) => m.content).join('\n')) }));
}, 120_000);
afterAll(async () => {
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

interface VerifyRow {
  contribution: string;
  kind: string;
  id: string;
  check: string;
  status: string;
  detail: string;
}
interface OutRecord {
  sampleId: string;
  level: number | null;
  solved: boolean;
  prediction: unknown;
  attempts: { level: number; strategy: string; notes?: Record<string, unknown> }[];
}

describe('the example plugin examples/arc-self-consistency (hpt-bench-plugin-arc)', () => {
  let env: Record<string, string>;

  it('packs as hpt-bench-plugin-arc 0.1.0 with its bundled SDK, data and pack, and without the vendor tarball', () => {
    expect(tarballPath.endsWith('hpt-bench-plugin-arc-0.1.0.tgz')).toBe(true);
    const listing = sh('tar', ['-tzf', tarballPath], work);
    for (const f of ['package.json', 'index.js', 'README.md', 'data/sample.jsonl', 'packs/arc.json', 'node_modules/@hpt-bench/sdk/dist/index.js', 'node_modules/ajv/package.json']) {
      expect(listing).toMatch(new RegExp(`^package/${f.replace(/[.]/g, '\\.')}$`, 'm'));
    }
    expect(listing).not.toMatch(/vendor\//);
    // the example's source imports nothing but the SDK (and node: built-ins)
    const imports = [...readFileSync(join(EXAMPLE, 'index.js'), 'utf8').matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
    expect(imports).toEqual(['node:url', '@hpt-bench/sdk']);
  });

  it('passes `hpt-bench plugins verify` on its tarball', async () => {
    const r = await runCli(['plugins', 'verify', tarballPath, '--json'], { env: sandbox(), timeoutMs: 60_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { plugin: string; ok: boolean; rows: VerifyRow[] };
    expect(result.plugin).toBe(NAME);
    expect(result.ok).toBe(true);
    const rows = result.rows.map((row) => [row.kind, row.id, row.check, row.status]);
    for (const check of ['load', 'records', 'target solves', 'empty fails', 'wrong fails']) expect(rows).toContainEqual(['datasets', 'arc', check, 'pass']);
    expect(rows).toContainEqual(['strategies', 'self-consistency', 'runs', 'pass']);
    expect(rows).toContainEqual(['ladders', 'hpf-sc', 'levels', 'pass']);
    expect(rows.filter((row) => row[3] === 'fail')).toEqual([]);
  }, 60_000);

  it('installs with `plugins install ./<tarball>` into a fresh HOME and lists its dataset, level and ladder', async () => {
    env = sandbox();
    const install = await runCli(['plugins', 'install', `./${tarballPath.split('/').pop()}`], { env, cwd: work, timeoutMs: 120_000 });
    expect(install.code, install.stderr).toBe(0);
    expect(existsSync(join(env.XDG_DATA_HOME!, 'hpt-bench/node_modules', NAME, 'node_modules/@hpt-bench/sdk/package.json'))).toBe(true);
    const list = await runCli(['list', '--json'], { env });
    const listed = JSON.parse(list.stdout) as Record<string, { id: string; plugin: string; origin: string; levels?: string[] }[]>;
    const mine = (k: string) => listed[k]!.filter((c) => c.plugin === NAME).map((c) => [c.id, c.origin]);
    expect(mine('datasets')).toEqual([['arc', 'installed']]);
    expect(mine('strategies')).toEqual([['self-consistency', 'installed']]);
    expect(mine('ladders')).toEqual([['hpf-sc', 'installed']]);
  }, 120_000);

  it('runs --data sample.jsonl through hpf-sc: levels 1-5 wrong, the self-consistency majority solves all but one', async () => {
    expect(env, 'installed by the previous test').toBeDefined();
    const dir = mkdtempSync(join(work, 'run-'));
    const out = join(dir, 'out.jsonl');
    const data = join(EXAMPLE, 'data/sample.jsonl');
    const r = await runCli(['run', '--dataset', 'arc', '--data', data, '--ladder', 'hpf-sc', '--model', 'openai:scripted', '--base-url', server.url, '--concurrency', '1', '--json', '--out', out, '--store', join(dir, 'store.db')], { env: { ...env, OPENAI_API_KEY: 'sk-test' }, cwd: dir, spawn: true, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const n = RECORDS.length;
    const summary = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ dataset: 'arc', ladder: LADDER, n, hpiDataset: HPI_DATASET, complete: true });
    expect(summary.levelCounts).toEqual({ '1': 0, '2': 0, '3': 0, '4': 0, '5': 0, '6': n - 1, unsolved: 1 });
    expect(summary.hpi).toBeCloseTo(((n - 1) * 6 + (6 + HPI_DATASET)) / n, 12);
    expect(summary.accuracy).toBeCloseTo((n - 1) / n, 12);

    const records = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as OutRecord);
    expect(records.map((o) => [o.sampleId, o.level])).toEqual(RECORDS.map((rec) => [rec.id, rec.id === UNSOLVED ? null : 6]));
    for (const o of records) {
      expect(o.attempts.map((a) => a.strategy)).toEqual(LADDER);
      const sc = o.attempts.find((a) => a.level === 6)!;
      const right = RIGHT.get(o.sampleId)!;
      const n2 = RECORDS.find((rec) => rec.id === o.sampleId)!.choices.text.length;
      const wrong = (k: number) => LETTERS[(LETTERS.indexOf(right) + k) % n2]!;
      // the five answers as the choice scorer reads them, and the majority the level submitted
      if (o.sampleId === UNSOLVED) {
        expect(sc.notes).toEqual({ k: 5, answers: [right, wrong(1), wrong(1), wrong(1), right], majority: { answer: wrong(1), votes: 3 } });
      } else {
        expect(sc.notes).toEqual({ k: 5, answers: [wrong(1), right, right, right, wrong(2)], majority: { answer: right, votes: 3 } });
      }
    }
    // labels 1-4 map to the choice letters: sample-3 (answerKey "3") is C, sample-5 (answerKey "2") is B
    expect([RIGHT.get('sample-3'), RIGHT.get('sample-5')]).toEqual(['C', 'B']);
  }, 60_000);
});
