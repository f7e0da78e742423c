/**
 * End-to-end: IWSLT 2017 en-fr, SamSum and HumanEval through the manual HPF ladder (the built CLI as a process)
 * against an OpenAI-compatible server on 127.0.0.1 that answers each level right or wrong by a rule this test knows.
 * The test computes the expected HPI, level counts and dataset metrics itself: which prediction each sample records
 * (the solving level's, else level 5's, hpt.md §3 "Counting at the last level"), then corpus BLEU / mean ROUGE over
 * those predictions with the metric functions (unit-tested against published values in test/metrics).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertValid } from '@hpt-bench/core';
import { bleuHf, bleuHfSentence, rougeScore, sacreBleuCorpus } from '../../plugins/metrics/src/index.js';
import { startOpenAIServer, type ReceivedRequest, type Reply, type TestServer } from '../helpers/openai-server.js';
import { runCli, SHARED } from '../helpers/cli.js';

interface Item {
  sampleId: string;
  key: string;
  target: string;
  right: string;
  wrong: string;
}
interface Spec {
  file: string;
  hpiDataset: number;
  threshold?: number;
  items(records: Record<string, unknown>[]): Item[];
  markers: [number, string][];
  /** whether the completion `text` solves `item` (the dataset's solve test) */
  solves(item: Item, text: string, threshold?: number): boolean;
}

const SPECS: Record<string, Spec> = {
  iwslt: {
    file: 'iwslt.json',
    hpiDataset: 1.92,
    threshold: 0.2,
    items: (rs) =>
      rs.map((r, i) => {
        const t = r.translation as { en: string; fr: string };
        return { sampleId: String(i), key: t.en, target: t.fr, right: t.fr, wrong: 'Je ne sais vraiment pas.' };
      }),
    markers: [[3, 'This drying around the world'], [4, 'incorporating the translations of the key phrases'], [5, 'using definitions of the keywords'], [1, 'as a Translator'], [2, "Let's think step by step"]],
    solves: (it, text, thr) => bleuHfSentence(text, [it.target]).bleu >= thr!,
  },
  samsum: {
    file: 'samsum.json',
    hpiDataset: 2.23,
    threshold: 0.15,
    items: (rs) => rs.map((r) => ({ sampleId: r.id as string, key: r.dialogue as string, target: r.summary as string, right: r.summary as string, wrong: 'Nothing at all.' })),
    markers: [[3, 'Antonio: Is everything okay?'], [4, 'Refine this draft summary'], [5, 'using interpretation of the dialogue'], [1, 'as a Summariser'], [2, "Let's think step by step"]],
    solves: (it, text, thr) => rougeScore(it.target, text, ['rouge1']).rouge1!.fmeasure >= thr!,
  },
  humaneval: {
    file: 'humaneval.json',
    hpiDataset: 4.68,
    items: (rs) =>
      rs.map((r) => ({
        sampleId: r.task_id as string,
        key: r.prompt as string,
        target: r.canonical_solution as string,
        right: `Here is the code:\n\`\`\`python\n${r.prompt as string}${r.canonical_solution as string}\`\`\`\n`,
        wrong: `\`\`\`python\n${r.prompt as string}    return None\n\`\`\``,
      })),
    markers: [[3, 'def has_close_elements'], [4, 'based on the previous calculations'], [5, 'using knowledge of the constraints'], [1, 'as an expert programmer'], [2, "Let's think step by step"]],
    solves: (it, text) => text === it.right, // canonical solutions pass and `return None` fails every check (test/metrics)
  },
};

function ruleLevel(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return (h % 6) + 1;
}

function identify(text: string, items: Item[]): Item | undefined {
  let best: Item | undefined;
  let at = -1;
  for (const it of items) {
    const p = text.lastIndexOf(it.key);
    if (p > at) {
      at = p;
      best = it;
    }
  }
  return best;
}

describe('hpt-bench run on IWSLT, SamSum and HumanEval against an OpenAI-compatible server', () => {
  let server: TestServer;
  let current: { spec: Spec; items: Item[]; violations: string[]; graded?: (req: ReceivedRequest, owner: Item) => string };
  const dir = mkdtempSync(join(tmpdir(), 'hpt-e2e-gen-'));

  beforeAll(async () => {
    server = await startOpenAIServer((req: ReceivedRequest): Reply => {
      const { spec, items, violations } = current;
      const user = req.messages.find((m) => m.role === 'user')!.content;
      if (!req.messages.some((m) => m.role === 'system')) return req.logprobs ? { text: 'Some knowledge.', logprobs: [-0.2] } : { text: 'Intermediate notes.' };
      const level = spec.markers.find(([, m]) => user.includes(m))?.[0];
      const owner = identify(user, items);
      if (!level || !owner) {
        violations.push(`unrecognised graded prompt: ${user.slice(0, 100)}`);
        return { text: '' };
      }
      if (current.graded) return { text: current.graded(req, owner) };
      return { text: level === ruleLevel(owner.key) ? owner.right : owner.wrong };
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  for (const dataset of ['iwslt', 'samsum', 'humaneval']) {
    it(`${dataset}: HPI, level counts and the dataset metric match the independent computation`, async () => {
      const spec = SPECS[dataset]!;
      const dataFile = join(SHARED, 'data/hpt-representative', spec.file);
      const items = spec.items(JSON.parse(readFileSync(dataFile, 'utf8')) as Record<string, unknown>[]);
      current = { spec, items, violations: [] };
      const before = server.requests.length;
      const args = ['run', '--dataset', dataset, '--data', dataFile, '--model', 'openai:m', '--base-url', server.url, '--store', join(dir, `${dataset}.db`), '--out', join(dir, `${dataset}.jsonl`), '--json', '--concurrency', '4'];
      if (spec.threshold !== undefined) args.push('--threshold', String(spec.threshold));
      const r = await runCli(args, { env: { OPENAI_API_KEY: 'k' } });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout) as Record<string, unknown> & { metrics: Record<string, number> };
      assertValid('run-summary', summary, 'summary');
      expect(current.violations).toEqual([]);

      // independent simulation
      const levels: (number | null)[] = [];
      const predictions: string[] = [];
      let calls = 0;
      for (const it of items) {
        let solvedAt: number | null = null;
        let text = '';
        for (let level = 1; level <= 5; level++) {
          calls += [1, 1, 1, 4, 4][level - 1]!;
          text = level === ruleLevel(identify(it.key, items)!.key) ? it.right : it.wrong;
          if (spec.solves(it, text, spec.threshold)) {
            solvedAt = level;
            break;
          }
        }
        levels.push(solvedAt);
        predictions.push(text.trim()); // strict extraction: the first line (IWSLT) / the completion (SamSum), trimmed
      }
      const hpi = levels.reduce<number>((a, l) => a + (l ?? 5 + spec.hpiDataset), 0) / items.length;
      const levelCounts: Record<string, number> = { '1': 0, '2': 0, '3': 0, '4': 0, '5': 0, unsolved: 0 };
      for (const l of levels) levelCounts[l === null ? 'unsolved' : String(l)]!++;
      expect(summary).toMatchObject({ dataset, n: items.length, levelCounts, calls, hpiDataset: spec.hpiDataset });
      expect(summary.hpi as number).toBeCloseTo(hpi, 10);
      expect(server.requests.length - before).toBe(calls);
      expect(levelCounts.unsolved).toBeGreaterThan(0);
      expect(levels.filter((l) => l !== null).length).toBeGreaterThan(0);

      const out = readFileSync(join(dir, `${dataset}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { sampleId: string; level: number | null; prediction: string });
      expect(out.map((o) => o.level)).toEqual(levels);
      if (dataset === 'iwslt') {
        expect(summary.threshold).toBe(0.2);
        expect(out.map((o) => o.prediction)).toEqual(predictions);
        expect(summary.metrics.bleu).toBeCloseTo(bleuHf(predictions, items.map((i) => [i.target])).bleu, 12);
        expect(summary.metrics.sacrebleu).toBeCloseTo(sacreBleuCorpus(predictions, [items.map((i) => i.target)]).score, 10);
      } else if (dataset === 'samsum') {
        expect(out.map((o) => o.prediction)).toEqual(predictions);
        for (const t of ['rouge1', 'rouge2', 'rougeL', 'rougeLsum']) {
          const meanF = predictions.reduce((a, p, i) => a + rougeScore(items[i]!.target, p, [t])[t]!.fmeasure, 0) / items.length;
          expect(summary.metrics[t]).toBeCloseTo(meanF, 12);
        }
      } else {
        expect(summary.metrics['pass@1']).toBeCloseTo(levels.filter((l) => l !== null).length / items.length, 12);
        expect(summary.accuracy).toBeCloseTo(summary.metrics['pass@1']!, 12);
      }
    });
  }

  it('humaneval --replicates 10: every problem climbs 10 ladders with distinct endpoint seeds; pass@1 and pass@10 by the unbiased estimator', async () => {
    const spec = SPECS.humaneval!;
    const dataFile = join(SHARED, 'data/hpt-representative', spec.file);
    const items = spec.items(JSON.parse(readFileSync(dataFile, 'utf8')) as Record<string, unknown>[]);
    // a replicate is solved (at level 1) iff (its seed + the problem's hash) % 4 == 0; otherwise no level solves it
    const solvesAt = (seed: number, it: Item) => (seed + ruleLevel(it.key)) % 4 === 0;
    current = { spec, items, violations: [], graded: (req, owner) => (solvesAt(req.seed!, owner) ? owner.right : owner.wrong) };
    const before = server.requests.length;
    const n = 10;
    const r = await runCli(['run', '--dataset', 'humaneval', '--data', dataFile, '--model', 'openai:m', '--base-url', server.url, '--seed', '100', '--replicates', String(n), '--store', join(dir, 'samples.db'), '--out', join(dir, 'samples.jsonl'), '--json'], { env: { OPENAI_API_KEY: 'k' } });
    expect(r.stderr).toBe('');
    const summary = JSON.parse(r.stdout) as Record<string, unknown> & { metrics: Record<string, number> };
    assertValid('run-summary', summary, 'summary');
    let hpiSum = 0;
    let pass1 = 0;
    let pass10 = 0;
    for (const it of items) {
      let c = 0;
      for (let rep = 0; rep < n; rep++) {
        const ok = solvesAt(100 + rep, it);
        c += ok ? 1 : 0;
        hpiSum += ok ? 1 : 5 + spec.hpiDataset;
      }
      pass1 += c / n;
      pass10 += c > 0 ? 1 : 0;
    }
    expect(summary).toMatchObject({ n: items.length * n, samples: n });
    expect(summary.hpi as number).toBeCloseTo(hpiSum / (items.length * n), 10);
    expect(summary.metrics['pass@1']).toBeCloseTo(pass1 / items.length, 12);
    expect(summary.metrics['pass@10']).toBeCloseTo(pass10 / items.length, 12);
    // endpoint seeds: 100 + replicate on every call of that replicate
    const seeds = new Set(server.requests.slice(before).map((q) => q.seed));
    expect([...seeds].sort((a, b) => a! - b!)).toEqual(Array.from({ length: n }, (_, i) => 100 + i));
    const out = readFileSync(join(dir, 'samples.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { sampleId: string; replicate: number });
    expect(out.length).toBe(items.length * n);
    expect(out.slice(0, n).map((o) => [o.sampleId, o.replicate])).toEqual(Array.from({ length: n }, (_, i) => [items[0]!.sampleId, i]));
  });

  it('iwslt and samsum without --threshold fail before any model call, with a clear error', async () => {
    for (const dataset of ['iwslt', 'samsum']) {
      const before = server.requests.length;
      const r = await runCli(['run', '--dataset', dataset, '--split', 'mini', '--model', 'openai:m', '--base-url', server.url, '--store', join(dir, 'nothr.db')], { env: { OPENAI_API_KEY: 'k' } });
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe('Error: --threshold is required for this dataset (the paper uses 0.15 and 0.20)');
      expect(server.requests.length).toBe(before);
    }
  });
});
