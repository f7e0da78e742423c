/**
 * The examples of docs/plugins.md work as written: the manifest example plus the JavaScript class of every kind, loaded
 * with `--plugin DIR` and run through the CLI; the TypeScript examples compile with the repository's tsc and the
 * tsconfig the guide gives. A change of a contract that the guide does not follow fails here.
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
    const classes = blocks('js').filter((b) => /^export class /m.test(b) && !b.includes('ConstantModel2'));
    expect(classes.map((b) => /^export class (\w+)/m.exec(b)![1]).sort()).toEqual(['ClimbSelector', 'ConstantModel', 'ExactScorer', 'VerifyStrategy', 'YesNoDataset']);
    const imports = "import { Tokens } from '@hpt-bench/sdk';\n";
    writeFileSync(join(dir, 'index.js'), imports + classes.map((b) => b.replace(imports, '')).join('\n'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'hpt-bench-plugin-doc', version: '1.0.0', type: 'module', oclif: {}, 'hpt-bench': manifest }));
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'data/riddles.jsonl'), '{"id":"a","question":"Say yes.","answer":"yes"}\n{"id":"b","question":"Say no.","answer":"no"}\n');

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

  it('the TypeScript examples compile with the tsconfig the guide gives', () => {
    const tsconfig = JSON.parse(blocks('json').find((b) => b.includes('"experimentalDecorators": true'))!) as { compilerOptions: Record<string, unknown> };
    tsconfig.compilerOptions.types = [];
    const sources = blocks('ts').filter((b) => /^export class /m.test(b));
    expect(sources.length).toBe(6);
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
