/**
 * End-to-end: the built CLI, as a process, runs `hpt-bench judge` against an OpenAI-compatible server on 127.0.0.1 whose
 * judge (recognised by the judge system prompt of specs/hpt-templates.json) answers with scores that are a
 * deterministic function of the judge's user message, and whose helper answers with a deterministic function of its
 * prompt. This test rebuilds every judged prompt on its own (from the prompt-pack JSON, the representative-set records
 * and the helper rule), computes the expected per-level rule means, totals, n and invalid, and checks the CLI's
 * `--json` against them, plus the helper wiring of levels 4 and 5, the BoolQ gold, the structured-output fallback on an
 * endpoint that rejects `response_format`, and the call cache.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type ReceivedRequest, type Reply, type TestServer } from '../helpers/openai-server.js';
import { errorLine, ROOT, runCli, SHARED } from '../helpers/cli.js';

const JUDGE_PROMPT = (JSON.parse(readFileSync(join(SHARED, 'specs/hpt-templates.json'), 'utf8')) as { judge: string }).judge;
const LEVELS = ['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge'];
const LIMIT = 6;

interface PackJson {
  strategies: Record<string, { template?: string; steps?: { template: string; pred: number | null }[]; knowledge?: string }>;
}

/** FNV-1a 32-bit. */
function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** The scripted judge's four scores for a user message. */
function scoresFor(user: string): number[] {
  const h = fnv(user);
  return [0, 1, 2, 3].map((i) => ((h >>> (i * 7)) % 5) + 1);
}

/** The scripted helper's completion for a prompt. */
const helperText = (prompt: string) => `helper notes ${fnv(prompt).toString(16)} {pred}`;

/** This test's own one-pass placeholder fill. */
function fill(template: string, vars: Record<string, string>): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
    if (!(name in vars)) throw new Error(`no value for {${name}}`);
    return vars[name]!;
  });
}

interface Item {
  input: Record<string, string>;
  gold: string;
}

const DATASETS: Record<string, { file: string; items(records: Record<string, unknown>[]): Item[] }> = {
  boolq: { file: 'boolq.json', items: (rs) => rs.map((r) => ({ input: { passage: r.passage as string, question: r.question as string }, gold: r.answer as string })) },
  csqa: {
    file: 'csqa.json',
    items: (rs) =>
      rs.map((r) => ({
        input: { question: r.question as string, ...Object.fromEntries((r.choices as { text: string[] }).text.map((t, i) => [`text${i + 1}`, t])) },
        gold: r.answerKey as string,
      })),
  },
};

/** Every expected judge user message (per level) and helper prompt, built from the pack JSON and the records. */
function expected(dataset: string, limit: number) {
  const spec = DATASETS[dataset]!;
  const pack = JSON.parse(readFileSync(join(ROOT, 'plugins/hpt-datasets/packs', `${dataset}.json`), 'utf8')) as PackJson;
  const records = (JSON.parse(readFileSync(join(SHARED, 'data/hpt-representative', spec.file), 'utf8')) as Record<string, unknown>[]).slice(0, limit);
  const judge: { level: number; user: string; gold: string }[] = [];
  const helpers: { level: number; prompt: string }[] = [];
  for (const item of spec.items(records)) {
    LEVELS.forEach((strategy, li) => {
      const entry = pack.strategies[strategy]!;
      let prompt: string;
      let k: string;
      if (entry.steps) {
        const outs: string[] = [];
        for (const s of entry.steps.slice(0, -1)) {
          const p = fill(s.template, { ...item.input, pred: s.pred === null ? '' : outs[s.pred - 1]! });
          helpers.push({ level: li + 1, prompt: p });
          outs.push(helperText(p));
        }
        const last = entry.steps[entry.steps.length - 1]!;
        prompt = fill(last.template, { ...item.input, pred: last.pred === null ? '' : outs[last.pred - 1]! });
        k = String(entry.steps.length - 1);
      } else if (entry.knowledge) {
        const kp = fill(entry.knowledge, item.input);
        helpers.push({ level: li + 1, prompt: kp });
        prompt = fill(entry.template!, { ...item.input, pred: helperText(kp) });
        k = '1 (for external knowledge)';
      } else {
        prompt = fill(entry.template!, item.input);
        k = '0';
      }
      judge.push({ level: li + 1, user: `${prompt}\nAnswer: ${item.gold}\nMulti-step prompts: ${k}`, gold: item.gold });
    });
  }
  return { judge, helpers };
}

/** Expected per-level means from the judge messages, leaving out the invalid ones. */
function expectedLevels(judge: { level: number; user: string }[], invalid: Set<string>) {
  return LEVELS.map((strategy, li) => {
    const mine = judge.filter((j) => j.level === li + 1);
    const valid = mine.filter((j) => !invalid.has(j.user)).map((j) => scoresFor(j.user));
    const means = [0, 1, 2, 3].map((r) => valid.reduce((s, v) => s + v[r]!, 0) / valid.length);
    return { level: li + 1, strategy, means, total: (means[0]! + means[1]! + means[2]! + means[3]!) / 4, n: valid.length, invalid: mine.length - valid.length };
  });
}

/** The scripted server: judge calls by the judge system prompt, helper calls otherwise. */
function rule(options: { invalid: Set<string>; rejectFormat?: boolean }) {
  return (req: ReceivedRequest): Reply => {
    const first = req.messages[0]!;
    if (first.role === 'system' && first.content === JUDGE_PROMPT) {
      const user = req.messages[1]!.content;
      if (options.rejectFormat && req.responseFormat) return { status: 400, body: { error: { message: "Invalid parameter: 'response_format' is not supported by this model" } } };
      if (options.invalid.has(user)) return { text: 'I would rather not assign scores to this prompt.' };
      const [a, b, c, d] = scoresFor(user);
      return req.responseFormat ? { text: JSON.stringify({ score1: a, score2: b, score3: c, score4: d }) } : { text: `Here is my assessment.\nscore1: ${a}\nscore2: ${b}\nscore3: ${c}\nscore4: ${d}` };
    }
    return { text: helperText(req.messages.map((m) => m.content).join('\n')) };
  };
}

interface JudgeJson {
  levels: { level: number; strategy: string; score1: number; score2: number; score3: number; score4: number; total: number; n: number; invalid: number }[];
  dataset: string;
  model: string;
  helperModel: string;
  items: number;
}

function checkLevels(out: JudgeJson, want: ReturnType<typeof expectedLevels>) {
  expect(out.levels.map((l) => [l.level, l.strategy])).toEqual(want.map((w) => [w.level, w.strategy]));
  for (const [i, w] of want.entries()) {
    const got = out.levels[i]!;
    expect(got.n, `level ${w.level} n`).toBe(w.n);
    expect(got.invalid, `level ${w.level} invalid`).toBe(w.invalid);
    [got.score1, got.score2, got.score3, got.score4].forEach((s, r) => expect(s, `level ${w.level} rule ${r + 1}`).toBeCloseTo(w.means[r]!, 12));
    expect(got.total, `level ${w.level} total`).toBeCloseTo(w.total, 12);
  }
}

const boolqData = join(SHARED, 'data/hpt-representative/boolq.json');
const csqaData = join(SHARED, 'data/hpt-representative/csqa.json');

describe('hpt-bench judge (e2e, scripted judge)', () => {
  const exp = expected('boolq', LIMIT);
  // one invalid reply: item 2 at level 2
  const invalidUser = exp.judge.filter((j) => j.level === 2)[2]!.user;
  const invalid = new Set([invalidUser]);
  const want = expectedLevels(exp.judge, invalid);
  let server: TestServer;
  let dir: string;
  let first: JudgeJson;

  beforeAll(async () => {
    server = await startOpenAIServer(rule({ invalid }));
    dir = mkdtempSync(join(tmpdir(), 'hpt-judge-'));
  });
  afterAll(async () => {
    await server?.close();
  });

  const args = () => ['judge', '--model', 'openai:judge', '--base-url', server.url, '--dataset', 'boolq', '--data', boolqData, '--limit', String(LIMIT), '--json', '--store', join(dir, 'store.db'), '-c', '3'];

  it('gets the expected per-level rule means, totals, n and invalid', async () => {
    const r = await runCli([...args(), '--out', join(dir, 'judge.jsonl')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    first = JSON.parse(r.stdout) as JudgeJson;
    expect(first).toMatchObject({ dataset: 'boolq', model: 'openai:judge', helperModel: 'openai:judge', items: LIMIT });
    checkLevels(first, want);
    expect(want[1]!.invalid).toBe(1);
    expect(want.reduce((s, w) => s + w.invalid, 0)).toBe(1);
    // the --out file has one line per (level, item); the invalid one has null scores and the raw reply
    const lines = readFileSync(join(dir, 'judge.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { level: number; scores: number[] | null; raw: string; gold: string; helperCalls: unknown[] });
    expect(lines.length).toBe(LIMIT * LEVELS.length);
    expect(lines.filter((l) => l.scores === null).map((l) => [l.level, l.raw])).toEqual([[2, 'I would rather not assign scores to this prompt.']]);
    expect(lines.filter((l) => l.level === 4).every((l) => l.helperCalls.length === 3)).toBe(true);
  });

  it('sent exactly the expected judge messages, with structured output and the judge settings', () => {
    const judgeReqs = server.requests.filter((q) => q.messages[0]?.content === JUDGE_PROMPT);
    expect(judgeReqs.length).toBe(LIMIT * LEVELS.length);
    expect(judgeReqs.map((q) => q.messages[1]!.content).sort()).toEqual(exp.judge.map((j) => j.user).sort());
    for (const q of judgeReqs) {
      expect(q.messages.map((m) => m.role)).toEqual(['system', 'user']);
      expect(q.temperature).toBe(0);
      expect(q.responseFormat).toMatchObject({ type: 'json_schema', json_schema: { name: 'hpt_judge_scores', strict: true } });
      // no chat wrapper and no cue anywhere
      expect(q.messages[1]!.content).not.toMatch(/<\|startoftext\|>|<\|start_header_id\|>/);
    }
  });

  it('level 4 ran k-1 = 3 helper steps and level 5 one knowledge call, with the {pred} wiring', () => {
    const helperReqs = server.requests.filter((q) => q.messages[0]?.content !== JUDGE_PROMPT);
    expect(helperReqs.length).toBe(LIMIT * (3 + 1));
    expect(exp.helpers.filter((h) => h.level === 4).length).toBe(LIMIT * 3);
    expect(exp.helpers.filter((h) => h.level === 5).length).toBe(LIMIT);
    expect(helperReqs.map((q) => q.messages[0]!.content).sort()).toEqual(exp.helpers.map((h) => h.prompt).sort());
    for (const q of helperReqs) {
      expect(q.messages.length).toBe(1);
      expect(q.messages[0]!.role).toBe('user');
      expect([q.temperature, q.top_p, q.max_tokens]).toEqual([0.6, 0.9, 1024]);
      expect(q.responseFormat).toBeUndefined();
      expect(q.messages[0]!.content).not.toMatch(/\nAnswer:$/);
    }
    // BoolQ step 4 (judged, never sent) holds step 3's output; the knowledge text reaches the judged level-5 prompt
    const judgeUsers = server.requests.filter((q) => q.messages[0]?.content === JUDGE_PROMPT).map((q) => q.messages[1]!.content);
    for (const h of exp.helpers) {
      const consumed = judgeUsers.some((u) => u.includes(helperText(h.prompt)));
      const isStep3 = h.prompt.startsWith('Find the part of the passage');
      if (h.level === 5 || isStep3) expect(consumed, h.prompt.slice(0, 60)).toBe(true);
    }
    expect(judgeUsers.filter((u) => u.startsWith('Based on the passage, what is the answer to this question')).every((u) => u.endsWith('Multi-step prompts: 3'))).toBe(true);
    expect(judgeUsers.filter((u) => u.includes('using knowledge of the passage:helper notes')).length).toBe(LIMIT);
    expect(judgeUsers.filter((u) => u.includes('using knowledge of the passage:')).every((u) => u.endsWith('Multi-step prompts: 1 (for external knowledge)'))).toBe(true);
  });

  it('sends BoolQ gold "False" for False items and "True" for True items', () => {
    const records = (JSON.parse(readFileSync(boolqData, 'utf8')) as { question: string; answer: string }[]).slice(0, LIMIT);
    expect(new Set(records.map((r) => r.answer))).toEqual(new Set(['True', 'False']));
    const judgeUsers = server.requests.filter((q) => q.messages[0]?.content === JUDGE_PROMPT).map((q) => q.messages[1]!.content);
    for (const r of records) {
      const mine = judgeUsers.filter((u) => u.includes(`'${r.question}'`));
      expect(mine.length).toBe(LEVELS.length);
      for (const u of mine) expect(u).toMatch(new RegExp(`\\nAnswer: ${r.answer}\\nMulti-step prompts: [^\\n]+$`));
    }
    const falses = records.filter((r) => r.answer === 'False').length;
    expect(judgeUsers.filter((u) => /\nAnswer: False\nMulti-step prompts: [^\n]+$/.test(u)).length).toBe(falses * LEVELS.length);
  });

  it('a second identical invocation makes no request (cache) and prints the same result', async () => {
    const before = server.requests.length;
    const r = await runCli(args());
    expect(r.code).toBe(0);
    expect(server.requests.length).toBe(before);
    expect(JSON.parse(r.stdout)).toEqual(first);
  });

  it('prints a table without --json', async () => {
    const before = server.requests.length;
    const r = await runCli(args().filter((a) => a !== '--json'));
    expect(r.code).toBe(0);
    expect(server.requests.length).toBe(before);
    for (const s of LEVELS) expect(r.stdout).toContain(s);
    expect(r.stdout).toContain(want[3]!.total.toFixed(2));
  });
});

describe('hpt-bench judge on an endpoint that rejects response_format', () => {
  const exp = expected('boolq', LIMIT);
  const invalidUser = exp.judge.filter((j) => j.level === 5)[0]!.user;
  const invalid = new Set([invalidUser]);
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    server = await startOpenAIServer(rule({ invalid, rejectFormat: true }));
    dir = mkdtempSync(join(tmpdir(), 'hpt-judge-400-'));
  });
  afterAll(async () => {
    await server?.close();
  });

  const args = () => ['judge', '--model', 'openai:judge', '--base-url', server.url, '--dataset', 'boolq', '--data', boolqData, '--limit', String(LIMIT), '--json', '--store', join(dir, 'store.db')];

  it('falls back to parsing text after one rejected request and gets the same means', async () => {
    const r = await runCli(args());
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/rejected structured output/);
    const out = JSON.parse(r.stdout) as JudgeJson;
    checkLevels(out, expectedLevels(exp.judge, invalid));
    expect(out.levels[4]!.invalid).toBe(1);
    const judgeReqs = server.requests.filter((q) => q.messages[0]?.content === JUDGE_PROMPT);
    expect(judgeReqs.filter((q) => q.responseFormat).length).toBe(1);
    expect(judgeReqs.filter((q) => !q.responseFormat).length).toBe(LIMIT * LEVELS.length);
  });

  it('a rerun makes no request at all', async () => {
    const before = server.requests.length;
    const r = await runCli(args());
    expect(r.code).toBe(0);
    expect(server.requests.length).toBe(before);
  });
});

describe('hpt-bench judge over several datasets', () => {
  let server: TestServer;
  let dir: string;
  beforeAll(async () => {
    server = await startOpenAIServer(rule({ invalid: new Set() }));
    dir = mkdtempSync(join(tmpdir(), 'hpt-judge-multi-'));
  });
  afterAll(async () => {
    await server?.close();
  });

  it('aggregates the means over all items of all datasets', async () => {
    const r = await runCli(['judge', '-m', 'openai:judge', '--base-url', server.url, '--dataset', 'boolq,csqa', '--data', boolqData, '--data', csqaData, '--limit', '2', '--json', '--store', join(dir, 's.db')]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as JudgeJson;
    expect(out.items).toBe(4);
    expect(out.dataset).toBe('boolq,csqa');
    checkLevels(out, expectedLevels([...expected('boolq', 2).judge, ...expected('csqa', 2).judge], new Set()));
  });

  it('--base-url given twice spreads the judge calls over both replicas with the same result; another endpoint re-runs from the cache', async () => {
    const second = await startOpenAIServer(rule({ invalid: new Set() }));
    const third = await startOpenAIServer(rule({ invalid: new Set() }));
    try {
      const store = join(mkdtempSync(join(tmpdir(), 'hpt-judge-replicas-')), 's.db');
      const before = server.requests.length;
      const args = ['judge', '-m', 'openai:judge', '--dataset', 'boolq', '--data', boolqData, '--limit', '3', '--concurrency', '4', '--json', '--store', store];
      const r = await runCli([...args, '--base-url', server.url, '--base-url', second.url]);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as JudgeJson;
      checkLevels(out, expectedLevels(expected('boolq', 3).judge, new Set()));
      expect(server.requests.length - before).toBeGreaterThan(0);
      expect(second.requests.length).toBeGreaterThan(0);
      // the cache key names the model, not the URL: a third replica is never asked
      const again = await runCli([...args, '--base-url', third.url]);
      expect(again.code, again.stderr).toBe(0);
      checkLevels(JSON.parse(again.stdout) as JudgeJson, expectedLevels(expected('boolq', 3).judge, new Set()));
      expect(third.requests).toHaveLength(0);
      // ... unless --cache-key-endpoint
      const keyed = await runCli([...args, '--base-url', third.url, '--cache-key-endpoint']);
      expect(keyed.code, keyed.stderr).toBe(0);
      expect(third.requests.length).toBeGreaterThan(0);
    } finally {
      await second.close();
      await third.close();
    }
  });

  it('--data must be given once per dataset', async () => {
    const r = await runCli(['judge', '-m', 'openai:judge', '--base-url', server.url, '--dataset', 'boolq,csqa', '--data', boolqData, '--json', '--store', join(dir, 's.db')]);
    expect(r.code).toBe(2);
    expect(errorLine(r)).toMatch(/^Error: --data was given 1 time\(s\) for 2 dataset\(s\)/);
  });

  it('an unknown dataset is a one-line error', async () => {
    const r = await runCli(['judge', '-m', 'openai:judge', '--base-url', server.url, '--dataset', 'boolk', '--json', '--store', join(dir, 's.db')]);
    expect(r.code).toBe(2);
    expect(errorLine(r)).toMatch(/unknown dataset 'boolk'.*boolq/);
  });
});
