/**
 * End-to-end: the built CLI, as a process, runs the manual HPF ladder on the HPT representative sets
 * (../shared/data/hpt-representative) against an OpenAI-compatible server on 127.0.0.1 that answers each level's
 * graded prompt right or wrong by a rule this test knows. The test computes HPI, accuracy and level counts on its own
 * and checks the server never saw a call above a sample's solving level.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertValid } from '@hpt-bench/core';
import { startOpenAIServer, type ReceivedRequest, type Reply, type TestServer } from '../helpers/openai-server.js';
import { runCli, SHARED } from '../helpers/cli.js';

type Gold = boolean | string | number;
interface Item {
  sampleId: string;
  key: string; // the sample's question (in every graded prompt except CSQA/MMLU least-to-most)
  optionsKey?: string; // the options block (the only sample text in CSQA/MMLU least-to-most step 4)
  gold: Gold;
}
interface Spec {
  file: string;
  hpiDataset: number;
  items(records: Record<string, unknown>[]): Item[];
  /** substrings that identify each level's graded prompt, tested in this order */
  markers: [number, string][];
  right(gold: Gold): string;
  wrong(gold: Gold): string;
}

const letters = (n: number) => 'ABCDE'.slice(0, n);
const choiceSpec = (file: string, n: number, hpiDataset: number, l3: string): Spec => ({
  file,
  hpiDataset,
  items: (rs) =>
    rs.map((r, i) => {
      const texts = n === 5 ? ((r.choices as { text: string[] }).text) : (r.choices as string[]);
      return {
        sampleId: typeof r.id === 'string' ? r.id : String(i),
        key: r.question as string,
        optionsKey: texts.map((t, j) => `${letters(n)[j]} ${t}`).join('\n'),
        gold: (n === 5 ? r.answerKey : r.answer) as string,
      };
    }),
  markers: [[3, l3], [4, 'Choose the correct answer from the options'], [5, 'using knowledge of the question'], [1, 'as a critical thinker'], [2, "Let's think step by step"]],
  right: (g) => String(g),
  wrong: (g) => letters(n)[(letters(n).indexOf(String(g)) + 1) % n]!,
});

const SPECS: Record<string, Spec> = {
  boolq: {
    file: 'boolq.json',
    hpiDataset: 1.71,
    items: (rs) => rs.map((r, i) => ({ sampleId: String(i), key: r.question as string, gold: r.answer === 'True' })),
    markers: [[3, 'Harry Potter and the Escape from Gringotts'], [4, 'Based on the passage, what is the answer to this question'], [5, 'using knowledge of the passage'], [1, 'as an Omniscent person'], [2, "Let's think step by step"]],
    right: (g) => (g ? 'True' : 'False'),
    wrong: (g) => (g ? 'False' : 'True'),
  },
  csqa: choiceSpec('csqa.json', 5, 2.52, 'A revolving door is convenient'),
  mmlu: choiceSpec('mmlu.json', 4, 3.03, 'Any set of Boolean operators'),
  gsm8k: {
    file: 'gsm8k.json',
    hpiDataset: 2.14,
    items: (rs) => rs.map((r, i) => ({ sampleId: String(i), key: r.question as string, gold: Number((r.answer as string).split('####').pop()!.trim().replace(/,/g, '')) })),
    markers: [[3, 'Josh decides to try flipping a house'], [4, 'based on the previous calculations'], [5, 'using interpretation of the question'], [1, 'as a expert mathematician'], [2, "Let's think step by step"]],
    right: (g) => `The result is computed above.\n#### ${g}`,
    wrong: (g) => `#### ${Number(g) + 1}`,
  },
};

/** FNV-1a: the rule's level for a question. 1..5 = the level the server answers right; 6 = never. */
function ruleLevel(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return (h % 6) + 1;
}

/** The server's view: which sample a graded prompt is about (the latest-positioned key wins; exemplars come first). */
function identify(text: string, keys: Map<string, Item>): Item | undefined {
  let best: Item | undefined;
  let at = -1;
  for (const [k, item] of keys) {
    const p = text.lastIndexOf(k);
    if (p > at) {
      at = p;
      best = item;
    }
  }
  return best;
}

/** What the server answers at a level for the sample it identified (`owner`). */
function answer(spec: Spec, owner: Item, level: number, ownerLevel: number): string {
  return level === ownerLevel ? spec.right(owner.gold) : spec.wrong(owner.gold);
}

interface Expected {
  levels: (number | null)[];
  hpi: number;
  accuracy: number;
  levelCounts: Record<string, number>;
  calls: number;
  gradedPerLevel: number[];
}

/** Independent simulation of the manual HPF on the rule (hpt.md §2.1): first solved level, else 5 + HPI_Dataset. */
function expected(spec: Spec, items: Item[], compat: 'strict' | 'reference'): Expected {
  const firstByKey = new Map<string, Item>();
  const firstByOptions = new Map<string, Item>();
  for (const it of items) {
    if (!firstByKey.has(it.key)) firstByKey.set(it.key, it);
    if (it.optionsKey && !firstByOptions.has(it.optionsKey)) firstByOptions.set(it.optionsKey, it);
  }
  const callsPerLevel = [1, 1, 1, 4, 4];
  const levels: (number | null)[] = [];
  const gradedPerLevel = [0, 0, 0, 0, 0];
  let calls = 0;
  for (const it of items) {
    let solvedAt: number | null = null;
    for (let level = 1; level <= 5; level++) {
      calls += callsPerLevel[level - 1]!;
      gradedPerLevel[level - 1]!++;
      const owner = level === 4 && it.optionsKey ? firstByOptions.get(it.optionsKey)! : firstByKey.get(it.key)!;
      const text = answer(spec, owner, level, ruleLevel(owner.key));
      let solved = text === spec.right(it.gold);
      // Reference parsers see the three-shot exemplars first: BoolQ level 3 always parses as True (hpt.md §4).
      if (compat === 'reference' && level === 3 && spec === SPECS.boolq) solved = it.gold === true;
      if (solved) {
        solvedAt = level;
        break;
      }
    }
    levels.push(solvedAt);
  }
  const hpis = levels.map((l) => l ?? 5 + spec.hpiDataset);
  const levelCounts: Record<string, number> = { '1': 0, '2': 0, '3': 0, '4': 0, '5': 0, unsolved: 0 };
  for (const l of levels) levelCounts[l === null ? 'unsolved' : String(l)]!++;
  return {
    levels,
    hpi: hpis.reduce((a, b) => a + b, 0) / items.length,
    accuracy: levels.filter((l) => l !== null).length / items.length,
    levelCounts,
    calls,
    gradedPerLevel,
  };
}

const API_KEY = 'sk-test-e2e-SECRET-7f3a9c';

describe('hpt-bench run (manual HPF) against an OpenAI-compatible server', () => {
  let server: TestServer;
  let current: { spec: Spec; byKey: Map<string, Item>; byOptions: Map<string, Item>; knowledgeSeen: Map<string, number>; violations: string[] };
  const dir = mkdtempSync(join(tmpdir(), 'hpt-e2e-'));

  beforeAll(async () => {
    server = await startOpenAIServer((req: ReceivedRequest): Reply => {
      if (req.authorization !== `Bearer ${API_KEY}`) return { status: 401, body: { error: { message: 'invalid api key' } } };
      const { spec, byKey, byOptions, knowledgeSeen, violations } = current;
      const user = req.messages.find((m) => m.role === 'user')!.content;
      const graded = req.messages.some((m) => m.role === 'system');
      if (!graded && req.logprobs) {
        // knowledge candidates: the 2nd of every 3 has the highest mean token probability
        const n = (knowledgeSeen.get(user) ?? 0) % 3;
        knowledgeSeen.set(user, n + 1);
        return { text: `Knowledge candidate ${n + 1}`, logprobs: [[-1, -1], [-0.1, -0.2], [-0.5, -2]][n]! };
      }
      if (!graded) return { text: 'Intermediate notes.' };
      const level = spec.markers.find(([, m]) => user.includes(m))?.[0];
      if (!level) {
        violations.push(`unrecognised graded prompt: ${user.slice(0, 80)}`);
        return { text: '' };
      }
      if (level === 5 && !user.includes('Knowledge candidate 2')) violations.push('level 5 did not use the most probable knowledge candidate');
      const owner = level === 4 && spec !== SPECS.boolq && spec !== SPECS.gsm8k ? identify(user, byOptions) : identify(user, byKey);
      if (!owner) {
        violations.push(`no sample found in: ${user.slice(0, 80)}`);
        return { text: '' };
      }
      return { text: answer(spec, owner, level, ruleLevel(owner.key)) };
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  const cases: [string, 'strict' | 'reference'][] = [
    ['boolq', 'strict'],
    ['csqa', 'strict'],
    ['mmlu', 'strict'],
    ['gsm8k', 'strict'],
    ['boolq', 'reference'],
  ];
  for (const [dataset, compat] of cases) {
    it(`${dataset} (${compat}): HPI, accuracy, level counts and calls match the independent computation`, async () => {
      const spec = SPECS[dataset]!;
      const dataFile = join(SHARED, 'data/hpt-representative', spec.file);
      const records = JSON.parse(readFileSync(dataFile, 'utf8')) as Record<string, unknown>[];
      const items = spec.items(records);
      const byKey = new Map<string, Item>();
      const byOptions = new Map<string, Item>();
      for (const it of items) {
        if (!byKey.has(it.key)) byKey.set(it.key, it);
        if (it.optionsKey && !byOptions.has(it.optionsKey)) byOptions.set(it.optionsKey, it);
      }
      current = { spec, byKey, byOptions, knowledgeSeen: new Map(), violations: [] };
      const before = server.requests.length;
      const store = join(dir, `${dataset}-${compat}.db`);
      const out = join(dir, `${dataset}-${compat}.jsonl`);
      const r = await runCli(
        ['run', '--dataset', dataset, '--data', dataFile, '--model', 'openai:test-model', '--base-url', server.url, '--compat', compat, '--concurrency', '8', '--store', store, '--out', out, '--json'],
        { env: { OPENAI_API_KEY: API_KEY } },
      );
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const exp = expected(spec, items, compat);
      const summary = JSON.parse(r.stdout) as Record<string, unknown>;
      expect(current.violations).toEqual([]);
      assertValid('run-summary', summary, 'run summary');
      expect(summary).toMatchObject({ dataset, model: 'openai:test-model', mode: 'manual', n: items.length, hpiDataset: spec.hpiDataset, levelCounts: exp.levelCounts, calls: exp.calls });
      expect(summary.ladder).toEqual(['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge']);
      expect(summary.hpi as number).toBeCloseTo(exp.hpi, 10);
      expect(summary.accuracy as number).toBeCloseTo(exp.accuracy, 10);
      // the rule spreads samples over every level and leaves some unsolved, so each count is exercised
      for (const k of ['1', '2', '3', '4', '5', 'unsolved']) expect(exp.levelCounts[k]).toBeGreaterThan(0);

      // Server side: exactly the expected calls, and graded calls per level only for samples not yet solved.
      const mine = server.requests.slice(before);
      expect(mine.length).toBe(exp.calls);
      const gradedPerLevel = [0, 0, 0, 0, 0];
      for (const q of mine) {
        if (!q.messages.some((m) => m.role === 'system')) continue;
        const level = spec.markers.find(([, m]) => q.messages.find((x) => x.role === 'user')!.content.includes(m))![0];
        gradedPerLevel[level - 1]!++;
      }
      expect(gradedPerLevel).toEqual(exp.gradedPerLevel);
      expect(mine.every((q) => q.model === 'test-model' && q.temperature === 0.6 && q.top_p === 0.9 && q.max_tokens === 1024)).toBe(true);

      // --out: one line per sample, in input order, with the solving level and the attempts up to it.
      const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { sampleId: string; level: number | null; hpi: number; attempts: { level: number; calls: unknown[] }[] });
      for (const l of lines) assertValid('sample-record', l, `--out line of ${l.sampleId}`);
      expect(lines.map((l) => l.sampleId)).toEqual(items.map((i) => i.sampleId));
      expect(lines.map((l) => l.level)).toEqual(exp.levels);
      expect(lines.map((l) => l.attempts.length)).toEqual(exp.levels.map((l) => l ?? 5));

      // The API key never reaches the store, the --out file, or the logs.
      for (const f of readdirSync(dir).filter((f) => f.startsWith(`${dataset}-${compat}`))) {
        expect(readFileSync(join(dir, f)).includes(API_KEY)).toBe(false);
      }
      expect(r.stdout.includes(API_KEY) || r.stderr.includes(API_KEY)).toBe(false);
      expect(existsSync(store)).toBe(true);
    });
  }
});
