/**
 * The adaptive HPF engine in process (hpt.md §2.3, §9 #3-#5): the loop, the feedback sentence, the
 * selector prompt and its parse, the strict one-score-per-sample accounting and the reference code's (a)-(c) quirks
 * under `--compat reference`, and the store round trip of selections (with the schema-v1 migration).
 */
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { AdaptiveEngine, loadPromptPack, RunStore, type SqliteDatabase, type GradedOutput, type Model, type ModelRequest, type Sample, type Scorer, type Selection, type SelectionContext, type Selector } from '@hpt-bench/core';
import { FixedSelector, LlmSelector, parseSelectorLevel, SELECTOR_TEMPLATE, selectorTemplate } from '../../plugins/hpf-strategies/src/index.js';
import { hpfLevels } from '../helpers/ladder.js';
import { ROOT, SHARED } from '../helpers/cli.js';
import { readFileSync } from 'node:fs';

const pack = (id: string) => loadPromptPack(join(ROOT, 'plugins/hpt-datasets/packs', `${id}.json`));
const exact: Scorer = {
  id: 'exact',
  score: (_s: Sample, o: GradedOutput) => ({ solved: o.completion === 'RIGHT', score: o.completion === 'RIGHT' ? 1 : 0, extracted: o.completion }),
};
const sample: Sample = { id: 'b1', index: 0, input: { passage: 'Milk is kept cold.', question: 'is milk kept cold' }, target: true };

/** The evaluated model: RIGHT at `level` (and only at the listed iterations, when given), else "wrong@<level>". */
function evaluated(level: number): Model & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    id: 'evaluated',
    requests,
    async generate(r) {
      requests.push(r);
      const c = r.context!;
      const text = c.purpose === 'graded' ? (c.level === level ? 'RIGHT' : `wrong@${c.level}`) : `notes ${c.purpose}`;
      return { text, usage: { promptTokens: 1, completionTokens: 1 }, finishReason: 'stop' };
    },
  };
}

/** A selector answering a script of levels (null = "no level"), recording what it saw. */
function scriptedSelector(levels: (number | null)[]): Selector & { seen: SelectionContext[] } {
  const seen: SelectionContext[] = [];
  return {
    id: 'script',
    seen,
    async select(ctx): Promise<Selection> {
      seen.push(ctx);
      return { level: levels[ctx.iteration - 1] ?? null, raw: `pick ${levels[ctx.iteration - 1]}` };
    },
  };
}

function engine(model: Model, selector: Selector, compat: 'strict' | 'reference' = 'strict', selectorModel?: Model) {
  return new AdaptiveEngine({
    levels: hpfLevels(),
    model,
    knowledgeModel: model,
    scorer: exact,
    scorerOptions: {},
    pack: pack('boolq'),
    hpiDataset: 1.71,
    compat,
    generation: { temperature: 0.6, topP: 0.9, maxTokens: 1024 },
    seed: 0,
    selector,
    ...(selectorModel ? { selectorModel } : {}),
  });
}

describe('AdaptiveEngine (hpt.md §2.3)', () => {
  it('scores x + i, skips out-of-range selections without an attempt, and keeps every selection', async () => {
    const m = evaluated(3);
    const sel = scriptedSelector([7, 2, 0, 3, 1]);
    const r = await engine(m, sel).climb(sample);
    expect(r).toMatchObject({ level: 3, iteration: 4, hpi: 7, solved: true, prediction: 'RIGHT' });
    expect(r.selections!.map((s) => [s.iteration, s.level, s.valid, s.solved])).toEqual([
      [1, 7, false, undefined],
      [2, 2, true, false],
      [3, 0, false, undefined],
      [4, 3, true, true],
    ]);
    expect(r.attempts.map((a) => [a.level, a.iteration])).toEqual([[2, 2], [3, 4]]);
    // the graded calls carry the iteration (so stochastic cache keys of repeated levels differ)
    expect(m.requests.filter((q) => q.context!.purpose === 'graded').map((q) => q.context!.iteration)).toEqual([2, 4]);
  });

  it('feedback: empty until an attempt fails, then the completion only (strict) or the full text (reference); invalid selections leave it unchanged', async () => {
    for (const compat of ['strict', 'reference'] as const) {
      const sel = scriptedSelector([9, 2, 0, 4, 2]);
      await engine(evaluated(6), sel, compat).climb(sample);
      const fb = sel.seen.map((c) => c.feedback);
      expect(fb[0]).toBe('');
      expect(fb[1]).toBe('');
      const prefix = 'The model was unable to solve the task at this level of prompting. The previous response was: ';
      if (compat === 'strict') {
        expect(fb.slice(2)).toEqual([`${prefix}wrong@2\n`, `${prefix}wrong@2\n`, `${prefix}wrong@4\n`]);
      } else {
        // the graded output's prompt text (wrapper + template + cue) followed by the completion
        expect(fb[2]!.startsWith(`${prefix}<|startoftext|>### Instruction: Based on the passage:'Milk is kept cold.'`)).toBe(true);
        expect(fb[2]!.endsWith('Answer:wrong@2\n')).toBe(true);
      }
      expect(sel.seen[0]!.task).toBe("Based on the passage:'Milk is kept cold.'\nAnswer True/False to the question: 'is milk kept cold'");
    }
  });

  it('unsolved after m iterations: m + HPI_Dataset, the last attempted level’s answer, or null when nothing was attempted', async () => {
    const a = await engine(evaluated(6), scriptedSelector([1, 5, 8, 8, 8])).climb(sample);
    expect(a).toMatchObject({ level: null, hpi: 6.71, solved: false, prediction: 'wrong@5' });
    const b = await engine(evaluated(1), scriptedSelector([0, 6, null, 9, 0])).climb(sample);
    expect(b).toMatchObject({ level: null, hpi: 6.71, solved: false, prediction: null, attempts: [] });
    expect(b.selections!.every((s) => !s.valid)).toBe(true);
    expect(b.records).toBeUndefined();
  });

  it('strict mode: exactly one score even when solved at the last iteration or with a final selection 0', async () => {
    const solvedLast = await engine(evaluated(2), scriptedSelector([1, 1, 1, 1, 2])).climb(sample);
    expect(solvedLast).toMatchObject({ level: 2, iteration: 5, hpi: 7 });
    expect(solvedLast.records).toBeUndefined();
    const zeroLast = await engine(evaluated(6), scriptedSelector([1, 1, 1, 1, 0])).climb(sample);
    expect(zeroLast).toMatchObject({ hpi: 6.71 });
    expect(zeroLast.records).toBeUndefined();
  });

  it('reference mode reproduces (a) double scoring at iteration m and (b) the dropped sample; (c) a last selection > m is a penalty', async () => {
    const a = await engine(evaluated(2), scriptedSelector([1, 1, 1, 1, 2]), 'reference').climb(sample);
    expect(a.records).toEqual([
      { hpi: 7, solved: true, prediction: 'RIGHT' },
      { hpi: 6.71, solved: false, prediction: 'wrong@1' },
    ]);
    expect(a.hpi).toBeCloseTo(13.71, 12);
    const b = await engine(evaluated(6), scriptedSelector([1, 1, 1, 1, 0]), 'reference').climb(sample);
    expect(b.records).toEqual([]);
    expect(b.hpi).toBe(0);
    const c = await engine(evaluated(6), scriptedSelector([1, 1, 1, 1, 9]), 'reference').climb(sample);
    expect(c.records).toBeUndefined();
    expect(c).toMatchObject({ hpi: 6.71, prediction: 'wrong@1' });
    // solved before the last iteration: one record, as in strict mode
    const d = await engine(evaluated(2), scriptedSelector([2]), 'reference').climb(sample);
    expect(d).toMatchObject({ hpi: 3, iteration: 1 });
    expect(d.records).toBeUndefined();
  });

  it('the llm selector sends the reference template with {prev_res} and {task} and the Level: cue to the selector model', async () => {
    const replies = ['Level: 9', 'Level: 4', 'no idea'];
    const selectorModel: Model & { requests: ModelRequest[] } = {
      id: 'sel',
      requests: [],
      async generate(r) {
        this.requests.push(r);
        return { text: replies[this.requests.length - 1] ?? '1', usage: { promptTokens: 3, completionTokens: 2 }, finishReason: 'stop' };
      },
    };
    const r = await engine(evaluated(1), new LlmSelector('openai:sel'), 'strict', selectorModel).climb(sample);
    // 9 invalid, 4 fails, 'no idea' -> level 1 solves at iteration 3
    expect(r).toMatchObject({ level: 1, iteration: 3, hpi: 4 });
    const users = selectorModel.requests.map((q) => q.messages);
    expect(users.every((m) => m.length === 1 && m[0]!.role === 'user')).toBe(true);
    const task = "Based on the passage:'Milk is kept cold.'\nAnswer True/False to the question: 'is milk kept cold'";
    expect(users[0]![0]!.content).toBe(`${SELECTOR_TEMPLATE.replace('{prev_res}', '').replace('{task}', task)}\nLevel:`);
    expect(users[2]![0]!.content.startsWith('The model was unable to solve the task at this level of prompting. The previous response was: wrong@4\nChoose the most')).toBe(true);
    expect(r.selections!.map((s) => [s.raw, s.level, s.call?.purpose, s.call?.usage.promptTokens])).toEqual([
      ['Level: 9', 9, 'selector', 3],
      ['Level: 4', 4, 'selector', 3],
      ['no idea', 1, 'selector', 3],
    ]);
  });

  it('the selector template matches specs/hpt-templates.json verbatim, and other ladders get their own list', () => {
    const spec = JSON.parse(readFileSync(join(SHARED, 'specs/hpt-templates.json'), 'utf8')) as { selector: string };
    expect(SELECTOR_TEMPLATE).toBe(spec.selector);
    expect(selectorTemplate(['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge'])).toBe(spec.selector);
    const six = selectorTemplate(['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge', 'self-verify']);
    expect(six).toContain('among 6 prompting strategies');
    expect(six).toContain('\n6: self-verify\nSelect only the index');
  });

  it('parses selector replies: first digit run, none -> 1; reference reads the first full-text line with Level:', () => {
    expect(parseSelectorLevel('Level: 3', 'strict')).toBe(3);
    expect(parseSelectorLevel(' 4', 'strict')).toBe(4);
    expect(parseSelectorLevel('I choose 2: zero-shot', 'strict')).toBe(2);
    expect(parseSelectorLevel('Step 1. Think.\nlevel: 5', 'strict')).toBe(5);
    expect(parseSelectorLevel('none of them', 'strict')).toBe(1);
    expect(parseSelectorLevel('Level: 12', 'strict')).toBe(12);
    expect(parseSelectorLevel('prompt text\nLevel: 2\n3', 'reference')).toBe(2);
    expect(parseSelectorLevel('prompt text\nLevel:\n\n3', 'reference')).toBe(1);
    expect(parseSelectorLevel('no label 4', 'reference')).toBe(1);
  });

  it('fixed:<level> always picks that level without a model; a non-integer argument is a clear error', async () => {
    const r = await engine(evaluated(2), new FixedSelector('2')).climb(sample);
    expect(r).toMatchObject({ level: 2, iteration: 1, hpi: 3 });
    expect(() => new FixedSelector('two')).toThrow(/fixed selector needs a level/);
    expect(() => new LlmSelector('')).toThrow(/llm selector needs a model/);
  });
});

describe('RunStore with adaptive results', () => {
  it('round-trips selections, iterations and repeated levels, and counts invalid selections', async () => {
    const store = new RunStore(':memory:');
    store.createRun({ id: 'r', dataset: 'boolq', model: 'm', mode: 'adaptive', config: {} });
    const r = await engine(evaluated(3), scriptedSelector([2, 7, 2, 3])).climb(sample);
    store.saveSample('r', r);
    const [back] = [...store.iterSamples('r')];
    expect(back).toEqual(r);
    const agg = store.aggregate('r');
    expect(agg).toMatchObject({ n: 1, samples: 1, hpiSum: 7, solved: 1, selections: 4, invalidSelections: 1, levelCounts: { '3': 1 }, unsolved: 0 });
    store.close();
  });

  it('reference records count as scores: doubled and dropped samples change n, HPI and accuracy', async () => {
    const store = new RunStore(':memory:');
    store.createRun({ id: 'r', dataset: 'boolq', model: 'm', mode: 'adaptive', config: {} });
    const doubled = await engine(evaluated(2), scriptedSelector([1, 1, 1, 1, 2]), 'reference').climb(sample);
    const dropped = await engine(evaluated(6), scriptedSelector([1, 1, 1, 1, 0]), 'reference').climb({ ...sample, id: 'b2', index: 1 });
    const plain = await engine(evaluated(1), scriptedSelector([1]), 'reference').climb({ ...sample, id: 'b3', index: 2 });
    for (const x of [doubled, dropped, plain]) store.saveSample('r', x);
    const agg = store.aggregate('r');
    // records: 7 (solved) + 6.71 (penalty) + 2 (solved) -> n 3, 2 solved, 1 unsolved
    expect(agg).toMatchObject({ n: 3, samples: 3, solved: 2, unsolved: 1, levelCounts: { '1': 1, '2': 1 } });
    expect(agg.hpiSum).toBeCloseTo(15.71, 12);
    expect([...store.iterPredictions('r')].map((p) => [p.sampleId, p.prediction, p.solved])).toEqual([
      ['b1', 'RIGHT', true],
      ['b1', 'wrong@1', false],
      ['b3', 'RIGHT', true],
    ]);
    store.close();
  });

  it('migrates a schema-v1 store (attempts keyed by level) without losing a row', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hpt-v1-')), 'v1.db');
    const db = new Database(path);
    db.exec(`
      CREATE TABLE runs (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, status TEXT NOT NULL, dataset TEXT NOT NULL, model TEXT NOT NULL, mode TEXT NOT NULL, config TEXT NOT NULL, summary TEXT, error TEXT);
      CREATE TABLE samples (run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, idx INTEGER NOT NULL, sample_id TEXT NOT NULL, level INTEGER, hpi REAL NOT NULL, solved INTEGER NOT NULL, prediction TEXT NOT NULL, target TEXT NOT NULL, PRIMARY KEY (run_id, idx));
      CREATE TABLE attempts (run_id TEXT NOT NULL, idx INTEGER NOT NULL, level INTEGER NOT NULL, strategy TEXT NOT NULL, solved INTEGER NOT NULL, score REAL NOT NULL, extracted TEXT NOT NULL, graded TEXT NOT NULL, notes TEXT, PRIMARY KEY (run_id, idx, level), FOREIGN KEY (run_id, idx) REFERENCES samples(run_id, idx) ON DELETE CASCADE);
      CREATE TABLE calls (run_id TEXT NOT NULL, idx INTEGER NOT NULL, level INTEGER NOT NULL, seq INTEGER NOT NULL, purpose TEXT NOT NULL, model TEXT NOT NULL, messages TEXT NOT NULL, output TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, latency_ms REAL NOT NULL, finish_reason TEXT NOT NULL, mean_token_prob REAL, PRIMARY KEY (run_id, idx, level, seq), FOREIGN KEY (run_id, idx, level) REFERENCES attempts(run_id, idx, level) ON DELETE CASCADE);
      INSERT INTO runs VALUES ('old', 't', 't', 'completed', 'boolq', 'm', 'manual', '{}', NULL, NULL);
      INSERT INTO samples VALUES ('old', 0, 's0', 2, 2, 1, '"True"', 'true');
      INSERT INTO attempts VALUES ('old', 0, 1, 'role', 0, 0, '"False"', '{"promptText":"p","completion":"False","cue":"Answer:"}', NULL);
      INSERT INTO attempts VALUES ('old', 0, 2, 'zero-shot-cot', 1, 1, '"True"', '{"promptText":"p","completion":"True","cue":"Answer:"}', NULL);
      INSERT INTO calls VALUES ('old', 0, 1, 0, 'graded', 'm', '[{"role":"user","content":"a"}]', 'False', 1, 1, 5, 'stop', NULL);
      INSERT INTO calls VALUES ('old', 0, 2, 0, 'graded', 'm', '[{"role":"user","content":"b"}]', 'True', 1, 1, 5, 'stop', NULL);
    `);
    db.close();
    const store = new RunStore(path);
    const [s] = [...store.iterSamples('old')];
    expect(s!.attempts.map((a) => [a.level, a.strategy, a.calls.map((c) => c.output)])).toEqual([
      [1, 'role', ['False']],
      [2, 'zero-shot-cot', ['True']],
    ]);
    expect(store.aggregate('old')).toMatchObject({ n: 1, hpiSum: 2, calls: 2, levelCounts: { '2': 1 } });
    expect((store.db as SqliteDatabase).raw.pragma('integrity_check', { simple: true })).toBe('ok');
    expect((store.db as SqliteDatabase).raw.pragma('foreign_key_check')).toEqual([]);
    // cascades still work after the rebuild
    store.db.prepare("DELETE FROM samples WHERE run_id = 'old'").run();
    expect(store.db.prepare('SELECT COUNT(*) AS c FROM calls').get()).toEqual({ c: 0 });
    store.close();
  });
});
