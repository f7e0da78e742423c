/**
 * End-to-end (hpt.md §2.3): the adaptive HPF through the built CLI, with the real openai SDK against
 * a scripted OpenAI-compatible server on 127.0.0.1. The server plays both the prompt-selector (scripted replies per
 * sample and iteration, including out-of-range levels and replies without a digit) and the evaluated model (right only
 * at a level the test chose per sample). HPI (x + i, or 5 + HPI_Dataset), accuracy, invalidSelections, level counts
 * and calls are computed here independently, for an HPT dataset (BoolQ, real representative items) and a generated one
 * (HiBench formula, generic pack).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertValid, type Json } from '@hpt-bench/core';
import { startOpenAIServer, type ReceivedRequest, type Reply, type TestServer } from '../helpers/openai-server.js';
import { runCli, SHARED } from '../helpers/cli.js';
import { levelOfRequest, questionOf, recordFor, rightAnswer } from '../helpers/generic-ladder.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-adaptive-'));
const SELECTOR_MARK = 'Choose the most effective prompting strategy among five prompting strategies for the task.';
const FEEDBACK = 'The model was unable to solve the task at this level of prompting. The previous response was: ';

/** The scripted selector replies and the level each one means (first digit run; none -> 1): written out by hand. */
const REPLIES: [string, number][] = [
  ['Level: 1', 1],
  ['2', 2],
  ['Level: 3 (three-shot examples help here)', 3],
  ['Strategy 4 is best.', 4],
  ['5', 5],
  ['Level: 0', 0],
  ['Level: 7', 7],
  ['I would pick the second one.', 1],
  ['Level: 12', 12],
];

/** FNV-1a hash. */
function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
/** The selector's scripted reply for a sample at iteration i. */
const replyFor = (key: string, i: number): [string, number] => REPLIES[fnv(`${key}#${i}`) % REPLIES.length]!;
/** The level at which the evaluated model answers a sample right (6 = never). */
const solvingLevel = (key: string): number => (fnv(key) % 6) + 1;

/** How a dataset looks to the scripted server. */
interface World {
  /** the sample key a prompt is about (selector prompt or graded prompt) */
  keyOf(user: string): string | undefined;
  /** the level of a graded prompt */
  levelOf(user: string): number | undefined;
  right(key: string): string;
  wrong(key: string): string;
  /** calls per level (level 4 and 5 chains) */
  callsPerLevel: number[];
  hpiDataset: number;
}

interface Expected {
  hpi: number;
  accuracy: number;
  invalid: number;
  selections: number;
  levelCounts: Record<string, number>;
  calls: number;
  selectorCalls: number;
  perSample: { level: number | null; iteration: number | null; selections: number; raws: string[] }[];
}

/** Independent simulation of Algorithm 2 (hpt.md §2.3) with the strict recommendations (§9 #3, #4). */
function expected(keys: string[], world: World): Expected {
  const levelCounts: Record<string, number> = { '1': 0, '2': 0, '3': 0, '4': 0, '5': 0, unsolved: 0 };
  let hpiSum = 0;
  let solved = 0;
  let invalid = 0;
  let selections = 0;
  let calls = 0;
  const perSample: Expected['perSample'] = [];
  for (const key of keys) {
    let done: { level: number; iteration: number } | undefined;
    const raws: string[] = [];
    for (let i = 1; i <= 5 && !done; i++) {
      const [raw, x] = replyFor(key, i);
      raws.push(raw);
      selections++;
      calls++; // the selector call
      if (x < 1 || x > 5) {
        invalid++;
        continue;
      }
      calls += world.callsPerLevel[x - 1]!;
      if (x === solvingLevel(key)) done = { level: x, iteration: i };
    }
    if (done) {
      hpiSum += done.level + done.iteration;
      solved++;
      levelCounts[String(done.level)]!++;
    } else {
      hpiSum += 5 + world.hpiDataset;
      levelCounts.unsolved!++;
    }
    perSample.push({ level: done?.level ?? null, iteration: done?.iteration ?? null, selections: raws.length, raws });
  }
  return { hpi: hpiSum / keys.length, accuracy: solved / keys.length, invalid, selections, levelCounts, calls, selectorCalls: selections, perSample };
}

let server: TestServer;
let world: World;
/** selector prompts seen, by sample key, in order */
let selectorPrompts: Map<string, string[]>;
let violations: string[];

beforeAll(async () => {
  server = await startOpenAIServer((req: ReceivedRequest): Reply => {
    const user = req.messages.find((m) => m.role === 'user')!.content;
    if (user.includes(SELECTOR_MARK)) {
      const key = world.keyOf(user);
      if (!key) {
        violations.push(`selector prompt about no known sample: ${user.slice(0, 120)}`);
        return { text: '' };
      }
      const seen = selectorPrompts.get(key) ?? [];
      seen.push(user);
      selectorPrompts.set(key, seen);
      return { text: replyFor(key, seen.length)[0] };
    }
    if (req.logprobs) return { text: 'Knowledge candidate.', logprobs: [-0.1, -0.2] };
    if (!req.messages.some((m) => m.role === 'system')) return { text: 'Intermediate notes.' };
    const level = world.levelOf(user);
    const key = world.keyOf(user);
    if (!level || !key) {
      violations.push(`unrecognised graded prompt: ${user.slice(0, 120)}`);
      return { text: '' };
    }
    return { text: level === solvingLevel(key) ? world.right(key) : world.wrong(key) };
  });
});
afterAll(async () => server?.close());

/** Run the CLI in adaptive mode and check everything against `expected`. */
async function check(name: string, keys: string[], args: string[]): Promise<void> {
  selectorPrompts = new Map();
  violations = [];
  expect(new Set(keys).size, 'the chosen samples must have distinct keys').toBe(keys.length);
  const before = server.requests.length;
  const store = join(dir, `${name}.db`);
  const out = join(dir, `${name}.jsonl`);
  const r = await runCli([...args, '--mode', 'adaptive', '--selector', 'openai:selector-llm', '--model', 'openai:evaluated', '--base-url', server.url, '-c', '4', '--store', store, '--out', out, '--json']);
  expect(r.code, r.stderr).toBe(0);
  expect(violations).toEqual([]);
  const exp = expected(keys, world);
  const s = JSON.parse(r.stdout) as Record<string, unknown>;
  assertValid('run-summary', s, 'run summary');
  expect(s).toMatchObject({ mode: 'adaptive', selector: 'llm:openai:selector-llm', n: keys.length, levelCounts: exp.levelCounts, invalidSelections: exp.invalid, selections: exp.selections, calls: exp.calls, errored: 0 });
  expect(s.hpi as number).toBeCloseTo(exp.hpi, 10);
  expect(s.accuracy as number).toBeCloseTo(exp.accuracy, 10);
  expect((s.selectorUsage as { calls: number }).calls).toBe(exp.selectorCalls);
  // the script exercises every path: invalid selections, digit-less replies, solves and unsolved samples
  expect(exp.invalid).toBeGreaterThan(0);
  expect(exp.perSample.some((p) => p.raws.includes('I would pick the second one.'))).toBe(true);
  expect(exp.levelCounts.unsolved).toBeGreaterThan(0);
  expect(keys.length - exp.levelCounts.unsolved!).toBeGreaterThan(0);

  // server side: exactly the expected requests; the selector model is the one named
  const mine = server.requests.slice(before);
  expect(mine.length).toBe(exp.calls);
  expect(mine.filter((q) => q.model === 'selector-llm').length).toBe(exp.selectorCalls);

  // feedback: '' until an attempt fails; then the sentence around the failed completion (strict: completion only)
  for (const key of keys) {
    const prompts = selectorPrompts.get(key)!;
    let feedback = '';
    for (const [j, p] of prompts.entries()) {
      expect(p.startsWith(feedback + SELECTOR_MARK), `selector prompt ${j + 1} of ${key.slice(0, 40)}`).toBe(true);
      const x = replyFor(key, j + 1)[1];
      if (x >= 1 && x <= 5 && x !== solvingLevel(key)) feedback = `${FEEDBACK}${world.wrong(key)}\n`;
    }
  }

  // --out: every selection kept, in order, with the raw reply and its selector call
  const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, Json>);
  for (const l of lines) assertValid('sample-record', l, 'adaptive --out line');
  expect(lines.map((l) => l.level)).toEqual(exp.perSample.map((p) => p.level));
  expect(lines.map((l) => l.iteration ?? null)).toEqual(exp.perSample.map((p) => p.iteration));
  expect(lines.map((l) => (l.selections as { raw: string }[]).map((x) => x.raw))).toEqual(exp.perSample.map((p) => p.raws));
  expect(lines.every((l) => (l.selections as { call?: { purpose: string } }[]).every((x) => x.call?.purpose === 'selector'))).toBe(true);
}

describe('hpt-bench run --mode adaptive', () => {
  it('BoolQ (representative items): HPI x + i, accuracy, invalidSelections and calls match the independent computation', async () => {
    const records = (JSON.parse(readFileSync(join(SHARED, 'data/hpt-representative/boolq.json'), 'utf8')) as Record<string, string>[]).slice(0, 40);
    const gold = new Map(records.map((r) => [r.question!, r.answer === 'True']));
    world = {
      keyOf: (user) => {
        // the latest-positioned question wins (three-shot exemplars come before the sample)
        let best: string | undefined;
        let at = -1;
        for (const q of gold.keys()) {
          const p = user.lastIndexOf(q);
          if (p > at) [at, best] = [p, q];
        }
        return best;
      },
      levelOf: (user) =>
        ([[3, 'Harry Potter and the Escape from Gringotts'], [4, 'Based on the passage, what is the answer to this question'], [5, 'using knowledge of the passage'], [1, 'as an Omniscent person'], [2, "Let's think step by step"]] as [number, string][]).find(([, m]) => user.includes(m))?.[0],
      right: (key) => (gold.get(key) ? 'True' : 'False'),
      wrong: (key) => (gold.get(key) ? 'False' : 'True'),
      callsPerLevel: [1, 1, 1, 4, 4],
      hpiDataset: 1.71,
    };
    await check('boolq', records.map((r) => r.question!), ['run', '--dataset', 'boolq', '--data', join(SHARED, 'data/hpt-representative/boolq.json'), '--limit', '40']);
  });

  it('a generated dataset (HiBench formula, generic pack) works the same way', async () => {
    const GEN = ['--preset', 'easy', '--task', 'calculate', '--seed', '4'];
    const g = await runCli(['generate', 'hibench/formula', ...GEN, '--limit', '30', '--out', '-']);
    expect(g.code, g.stderr).toBe(0);
    const records = g.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, Json>);
    world = {
      keyOf: (user) => {
        const r = recordFor(records, user);
        return r ? questionOf(r) : undefined;
      },
      levelOf: (user) => levelOfRequest(user),
      right: (key) => `Working.\n${rightAnswer(records.find((r) => questionOf(r) === key)!.target)}`,
      wrong: () => '{"answer": "zzz"}',
      callsPerLevel: [1, 1, 1, 3, 4],
      hpiDataset: 2.6,
    };
    await check('formula', records.map(questionOf), ['run', '--dataset', 'hibench/formula', ...GEN, '--limit', '30']);
  });

  it('bad selector input gives one clear error line and no run', async () => {
    const store = join(dir, 'bad.db');
    const base = ['run', '--dataset', 'boolq', '--split', 'mini', '--model', 'baseline:random', '--store', store];
    const cases: [string[], RegExp][] = [
      [['--mode', 'adaptive'], /--mode adaptive needs --selector/],
      [['--selector', 'fixed:2'], /apply to --mode adaptive only/],
      [['--mode', 'adaptive', '--selector', 'fixed:two'], /fixed selector needs a level/],
      [['--mode', 'adaptive', '--selector', 'nosuch:model'], /unknown selector 'nosuch:model'/],
    ];
    for (const [extra, message] of cases) {
      const r = await runCli([...base, ...extra]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
