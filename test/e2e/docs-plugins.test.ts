/**
 * The examples of docs/plugins.md work as written: the manifest example plus the JavaScript class of every kind
 * (and the report-view manifest and the pack-extension file), loaded with `--plugin DIR` and run through the CLI
 * (`run`, `score`, `report --table`, `sandbox check`, `list`); the TypeScript examples compile with the repository's
 * tsc and the tsconfig the guide gives. A change of a contract that the guide does not follow fails here.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';

const DOC = readFileSync(join(ROOT, 'docs/plugins.md'), 'utf8');
const blocks = (lang: string) => [...DOC.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hpt-doc-plugin-'));
  mkdirSync(join(dir, 'node_modules/@hpt-bench'), { recursive: true });
  symlinkSync(join(ROOT, 'packages/sdk'), join(dir, 'node_modules/@hpt-bench/sdk'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('docs/plugins.md examples', () => {
  it('the manifest example with the JavaScript classes of each kind runs (model, scorer, strategies, ladder, dataset, selector)', async () => {
    const manifest = JSON.parse(blocks('json').find((b) => b.includes('"apiVersion": 1') && b.includes('"ladders"'))!) as { contributes: Record<string, Record<string, unknown>[]> };
    // the guide's code dataset beside the manifest example's declarative one
    manifest.contributes.datasets!.push({ id: 'yes-no', module: './index.js', export: 'YesNoDataset', scorer: 'boolean', hpiDataset: 1 });
    // the complete report-view manifest of "Report views"
    const views = JSON.parse(blocks('json').find((b) => b.includes('"apiVersion": 1') && b.includes('"reports"'))!) as { contributes: { reports: Record<string, unknown>[] } };
    manifest.contributes.reports = views.contributes.reports;
    const classes = blocks('js').filter((b) => /^export class /m.test(b) && !b.includes('ConstantModel2'));
    expect(classes.map((b) => /^export class (\w+)/m.exec(b)![1]).sort()).toEqual(['ClimbSelector', 'ConstantModel', 'ExactMatchMetric', 'ExactScorer', 'LevelsReportView', 'PythonOutputScorer', 'VerifyStrategy', 'YesNoDataset']);
    // one module: the blocks' imports merged (one import of the SDK), then their code
    const sdk = new Set<string>();
    const other = new Set<string>();
    for (const b of classes) {
      for (const line of b.split('\n').filter((l) => l.startsWith('import '))) {
        const m = /^import \{ ([^}]+) \} from '@hpt-bench\/sdk';$/.exec(line);
        if (m) m[1]!.split(',').forEach((n) => sdk.add(n.trim()));
        else other.add(line);
      }
    }
    const code = classes.map((b) => b.split('\n').filter((l) => !l.startsWith('import ')).join('\n'));
    writeFileSync(join(dir, 'index.js'), [`import { ${[...sdk].join(', ')} } from '@hpt-bench/sdk';`, ...other, ...code].join('\n'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'hpt-bench-plugin-doc', version: '1.0.0', type: 'module', oclif: {}, 'hpt-bench': manifest }));
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'data/riddles.jsonl'), '{"id":"a","question":"Say yes.","answer":"yes"}\n{"id":"b","question":"Say no.","answer":"no"}\n');
    // the pack file of "Prompt-pack extensions", where the manifest's packs entry names it
    const packFile = blocks('json').map((b) => { try { return JSON.parse(b) as Record<string, unknown>; } catch { return undefined; } }).find((j) => j && 'strategies' in j && !('id' in j));
    const packPath = (manifest.contributes.packs![0] as { promptPack: string }).promptPack;
    mkdirSync(join(dir, 'packs'));
    writeFileSync(join(dir, packPath), JSON.stringify(packFile));

    const run = async (...args: string[]) => {
      const r = await runCli(['run', '--plugin', dir, '--json', '--no-cache', '--store', join(dir, 'store.db'), ...args]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as Record<string, unknown>;
    };
    // constant:yes answers "yes" everywhere: sample a at level 1, sample b never (m = 7 levels, HPI_Dataset 1.5)
    expect(await run('--dataset', 'riddles', '--ladder', 'hpf7', '--model', 'constant:yes')).toMatchObject({ n: 2, levelCounts: { '1': 1, '7': 0, unsolved: 1 }, hpi: (1 + 7 + 1.5) / 2 });
    expect(await run('--dataset', 'yes-no', '--model', 'baseline:oracle')).toMatchObject({ n: 2, hpi: 1, accuracy: 1 });
    // climb:2 picks level 2 at iteration 1; the oracle solves there: 2 + 1
    expect(await run('--dataset', 'riddles', '--mode', 'adaptive', '--selector', 'climb:2', '--model', 'baseline:oracle')).toMatchObject({ mode: 'adaptive', n: 2, hpi: 3 });
  });

  it('the pack extension words the recheck level for boolq', async () => {
    writeFileSync(join(dir, 'recheck.json'), JSON.stringify({ id: 'recheck-only', levels: ['recheck'] }));
    const out = join(dir, 'boolq.jsonl');
    const r = await runCli(['run', '--plugin', dir, '--json', '--no-cache', '--store', join(dir, 'boolq.db'), '--dataset', 'boolq', '--split', 'mini', '--limit', '1', '--ladder', join(dir, 'recheck.json'), '--model', 'baseline:oracle', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('Check your answer against the passage, then give it.');
    const list = await runCli(['list', 'packs', '--plugin', dir, '--json']);
    expect(JSON.parse(list.stdout).packs).toEqual(expect.arrayContaining([expect.objectContaining({ dataset: 'boolq', plugin: 'hpt-bench-plugin-doc' })]));
  });

  it('the standalone metric scores with hpt-bench score', async () => {
    writeFileSync(join(dir, 'hyp.txt'), 'yes\nNo\nmaybe\n');
    writeFileSync(join(dir, 'ref.txt'), 'yes\nno\nperhaps\n');
    const r = await runCli(['score', 'exact-match', '--plugin', dir, '--predictions', join(dir, 'hyp.txt'), '--references', join(dir, 'ref.txt'), '--option', 'lowercase=true', '--per-sample', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ exact: 2 / 3, matched: 2, n: 3, scores: [1, 1, 0] });
    const bad = await runCli(['score', 'exact-match', '--plugin', dir, '--predictions', join(dir, 'hyp.txt'), '--references', join(dir, 'ref.txt'), '--option', 'case=lower']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("exact-match: unknown option 'case'");
  });

  it('the report view lays out the runs (declarative tables, code table, chart)', async () => {
    const report = async (...args: string[]) => {
      const r = await runCli(['report', '--plugin', dir, '--store', join(dir, 'store.db'), ...args]);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    };
    const riddles = (await report('--format', 'csv', '--table', 'riddles')).split('\r\n');
    expect(riddles[0]).toBe('Model,HPI,HPI lo,HPI hi,Exact %,Exact % lo,Exact % hi');
    // two ladders in one report: each row says which (reports group runs by ladder, README "Groups and selection")
    expect(riddles.filter((l) => l.startsWith('constant:yes · 7-level ladder (hpf7),4.75,') || l.startsWith('"baseline:oracle (adaptive, climb:2) · 5-level ladder (hpf)",3,'))).toHaveLength(2);
    expect((await report('--format', 'csv', '--table', 'yes-no')).split('\r\n')[0]).toBe('Model,Yes/No HPI,Yes/No HPI lo,Yes/No HPI hi,Yes/No Acc,Yes/No Acc lo,Yes/No Acc hi');
    const levels = (await report('--format', 'csv', '--table', 'riddles-levels')).split('\r\n');
    expect(levels[0]).toBe('Model,Dataset,L1,L2,L3,L4,L5,L6,L7,Unsolved');
    expect(levels).toContain('constant:yes · 7-level ladder (hpf7),Riddles,50,0,0,0,0,0,0,50');
    expect(await report('--format', 'html')).toContain('HPI by source');
    const list = await runCli(['list', 'reports', '--plugin', dir, '--json']);
    expect(JSON.parse(list.stdout).reports).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'riddles', plugin: 'hpt-bench-plugin-doc' })]));
  });

  it('the environment check runs with hpt-bench sandbox check', async () => {
    const r = await runCli(['sandbox', 'check', '--plugin', dir, '--scorer', 'python-output', '--json']);
    expect([0, 1], r.stderr).toContain(r.code);
    const record = JSON.parse(r.stdout) as { python: string; holds: boolean; failed: string[] };
    expect(record.python).toBe('python3');
    expect(record.holds).toBe(r.code === 0);
    expect(record.failed.every((f) => ['interpreter', 'timeout', 'workdir', 'unprivileged'].includes(f))).toBe(true);
    const text = await runCli(['sandbox', 'check', '--plugin', dir, '--scorer', 'python-output']);
    expect(text.stdout).toContain('unprivileged');
  });

  it('the TypeScript examples compile with the tsconfig the guide gives', () => {
    const tsconfig = JSON.parse(blocks('json').find((b) => b.includes('"experimentalDecorators": true'))!) as { compilerOptions: Record<string, unknown> };
    tsconfig.compilerOptions.types = [];
    const sources = blocks('ts').filter((b) => /^export class /m.test(b));
    expect(sources.length).toBe(8);
    const tsDir = join(dir, 'ts');
    mkdirSync(join(tsDir, 'src'), { recursive: true });
    symlinkSync(join(dir, 'node_modules'), join(tsDir, 'node_modules'));
    sources.forEach((s, i) => writeFileSync(join(tsDir, `src/example${i}.ts`), s));
    writeFileSync(join(tsDir, 'tsconfig.json'), JSON.stringify(tsconfig));
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', tsDir], { encoding: 'utf8' });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  });
});
