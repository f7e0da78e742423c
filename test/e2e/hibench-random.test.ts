/**
 * End-to-end (issue 15): the random baseline through the built CLI gives the expected HPI, computed per sample from the
 * probability that one random answer is accepted (test/helpers/random-expectation.ts), on the Code scenario (the
 * shared code.jsonl, strict and reference), the code-structure questions on the same programs, the generated Code programs (code-gen), and the Paper scenario (the embedded demo papers, strict at --threshold 0.5
 * and reference). The run must land within 4 standard errors of the expectation, and the expectation must be far from
 * both "everything solved at level 1" (1) and "nothing solved" (7.6), so a ladder or an HPI account that is off fails.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CompatMode, Dataset, Sample } from '@hpt-bench/core';
import { CodeDataset, CodeGenDataset, CodeStructureDataset, HierarchyPaperScorer, HierarchyScorer, PaperDataset, preloadCodeStructure } from '@hpt-bench/hibench';
import { runCli, SHARED } from '../helpers/cli.js';
import { randomExpectation, type RandomScorer } from '../helpers/random-expectation.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-hibench-random-'));
const CODE = join(SHARED, 'data/hibench-code/code.jsonl');
const LEVELS = 5;
const HPI_DATASET = 2.6;

async function samplesOf(dataset: Dataset, options: { data?: string; seed: number; compat: CompatMode; limit: number }): Promise<Sample[]> {
  const out: Sample[] = [];
  for await (const s of dataset.load({ data: options.data, seed: options.seed, compat: options.compat, onInvalid: 'fail', cacheDir: dir, warn: () => undefined })) {
    out.push(s);
    if (out.length === options.limit) break;
  }
  return out;
}

interface Case {
  name: string;
  dataset: string;
  make: () => Dataset;
  scorer: RandomScorer;
  data?: string;
  compat: CompatMode;
  threshold?: number;
  limit: number;
}

const CASES: Case[] = [
  { name: 'code, strict', dataset: 'hibench/code', make: () => new CodeDataset(), scorer: new HierarchyScorer(), data: CODE, compat: 'strict', limit: 1134 },
  { name: 'code, reference', dataset: 'hibench/code', make: () => new CodeDataset(), scorer: new HierarchyScorer(), data: CODE, compat: 'reference', limit: 1134 },
  { name: 'code-structure, strict', dataset: 'hibench/code-structure', make: () => new CodeStructureDataset(), scorer: new HierarchyScorer(), data: CODE, compat: 'strict', limit: 1881 },
  { name: 'code-structure, reference', dataset: 'hibench/code-structure', make: () => new CodeStructureDataset(), scorer: new HierarchyScorer(), data: CODE, compat: 'reference', limit: 1881 },
  { name: 'code-gen, strict', dataset: 'hibench/code-gen', make: () => new CodeGenDataset(), scorer: new HierarchyScorer(), compat: 'strict', limit: 1800 },
  { name: 'code-gen, reference', dataset: 'hibench/code-gen', make: () => new CodeGenDataset(), scorer: new HierarchyScorer(), compat: 'reference', limit: 1800 },
  { name: 'paper, strict', dataset: 'hibench/paper', make: () => new PaperDataset(), scorer: new HierarchyPaperScorer(), compat: 'strict', threshold: 0.5, limit: 1000 },
  { name: 'paper, reference', dataset: 'hibench/paper', make: () => new PaperDataset(), scorer: new HierarchyPaperScorer(), compat: 'reference', limit: 1000 },
];

describe('the random baseline gives the computed HPI expectation', () => {
  beforeAll(async () => preloadCodeStructure());
  for (const c of CASES) {
    it(c.name, async () => {
      const seed = 11;
      const samples = await samplesOf(c.make(), { data: c.data, seed, compat: c.compat, limit: c.limit });
      const options: Record<string, number> = c.threshold === undefined ? {} : { threshold: c.threshold };
      const expected = randomExpectation(samples, c.scorer, { compat: c.compat, options }, { levels: LEVELS, hpiDataset: HPI_DATASET });
      const args = ['run', '--dataset', c.dataset, '--model', 'baseline:random', '--seed', String(seed), '--compat', c.compat, '--limit', String(c.limit), '--store', join(dir, `${c.name.replace(/\W+/g, '-')}.db`), '--json'];
      if (c.data) args.push('--data', c.data);
      if (c.threshold !== undefined) args.push('--threshold', String(c.threshold));
      const r = await runCli(args);
      expect(r.code, r.stderr).toBe(0);
      const summary = JSON.parse(r.stdout) as { n: number; hpi: number };
      expect(summary.n).toBe(samples.length);
      console.log(`${c.name}: observed HPI ${summary.hpi.toFixed(4)}, expected ${expected.hpi.toFixed(4)} ± ${expected.se.toFixed(4)} (p = ${expected.p.toFixed(3)}, n = ${expected.n})`);
      // the expectation is informative: neither all solved at once nor none solved
      expect(expected.hpi).toBeGreaterThan(1.2);
      expect(expected.hpi).toBeLessThan(LEVELS + HPI_DATASET - 0.3);
      expect(Math.abs(summary.hpi - expected.hpi), `observed ${summary.hpi}, expected ${expected.hpi.toFixed(4)} ± ${expected.se.toFixed(4)} (p = ${expected.p.toFixed(3)}, n = ${expected.n})`).toBeLessThan(Math.max(4 * expected.se, 1e-9));
    }, 120_000);
  }
});
