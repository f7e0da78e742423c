/** `hpt-bench score` as a process: metrics alone on plain-text and JSONL files. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'hpt-score-'));
const file = (name: string, lines: string[]) => {
  const p = join(dir, name);
  writeFileSync(p, lines.join('\n') + '\n');
  return p;
};
// sacreBLEU README (mjpost/sacrebleu, "Using SacreBLEU from Python"): corpus_bleu(sys, [refs1, refs2]) prints
// "BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)".
const hyp = file('hyp.txt', ['The dog bit the man.', "It wasn't surprising.", 'The man had just bitten him.']);
const ref1 = file('ref1.txt', ['The dog bit the man.', 'It was not unexpected.', 'The man bit him first.']);
const ref2 = file('ref2.txt', ['The dog had bit the man.', 'No one was surprised.', 'The man had bitten the dog.']);

describe('hpt-bench score', () => {
  it('sacrebleu with two reference streams reproduces the sacreBLEU README (48.53)', async () => {
    const r = await runCli(['score', 'sacrebleu', '--predictions', hyp, '--references', ref1, '--references', ref2, '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as { score: number; counts: number[]; totals: number[]; bp: number; sysLen: number; refLen: number };
    expect(j.score.toFixed(2)).toBe('48.53');
    expect(j).toMatchObject({ counts: [14, 7, 5, 3], totals: [17, 14, 11, 8], sysLen: 17, refLen: 18 });
    expect(j.bp.toFixed(3)).toBe('0.943');
    const text = await runCli(['score', 'sacrebleu', '--predictions', hyp, '--references', ref1, '--references', ref2]);
    expect(text.stdout.trim()).toBe('sacrebleu 48.53 (82.4/50.0/45.5/37.5, BP 0.943)');
  });

  it('per-sample and sentence-level scores; bleu-hf on the 0-1 scale', async () => {
    const per = JSON.parse((await runCli(['score', 'sacrebleu', '--predictions', hyp, '--references', ref1, '--per-sample', '--json'])).stdout) as { scores: number[] };
    expect(per.scores).toHaveLength(3);
    expect(per.scores[0]).toBeCloseTo(100, 10); // identical segment
    const hf = JSON.parse((await runCli(['score', 'bleu-hf', '--predictions', ref1, '--references', ref1, '--json'])).stdout) as { score: number; brevityPenalty: number };
    expect(hf).toMatchObject({ score: 1, brevityPenalty: 1 });
    const hfPer = JSON.parse((await runCli(['score', 'bleu-hf', '--predictions', hyp, '--references', ref1, '--per-sample', '--json'])).stdout) as { scores: number[] };
    expect(hfPer.scores[0]).toBe(1);
    expect(hfPer.scores[1]).toBe(0); // "It wasn't surprising ." shares no 4-gram with the reference: no smoothing
  });

  it('rouge on JSONL segments (multi-line) gives means of P/R/F for the four types', async () => {
    const pred = join(dir, 'pred.jsonl');
    const gold = join(dir, 'gold.jsonl');
    writeFileSync(pred, [JSON.stringify('testing'), JSON.stringify('the cat sat\non the mat')].join('\n') + '\n');
    writeFileSync(gold, [JSON.stringify('testing one two'), JSON.stringify('the cat sat\non the mat')].join('\n') + '\n');
    const j = JSON.parse((await runCli(['score', 'rouge', '--predictions', pred, '--references', gold, '--json'])).stdout) as Record<string, { precision: number; recall: number; fmeasure: number }>;
    // rouge_score testRouge1: score("testing one two", "testing") -> P 1, R 1/3, F 1/2; the second pair is identical.
    expect(j.rouge1!.precision).toBeCloseTo(1, 12);
    expect(j.rouge1!.recall).toBeCloseTo((1 / 3 + 1) / 2, 12);
    expect(j.rouge1!.fmeasure).toBeCloseTo((0.5 + 1) / 2, 12);
    expect(j.rougeLsum!.fmeasure).toBeCloseTo((0.5 + 1) / 2, 12);
    expect(Object.keys(j)).toEqual(['rouge1', 'rouge2', 'rougeL', 'rougeLsum']);
  });

  it('bad input: clear one-line errors', async () => {
    const short = file('short.txt', ['only one line']);
    const cases: [string[], RegExp][] = [
      [['score', 'sacrebleu', '--predictions', hyp, '--references', short], /references file 1 has 1 segments, predictions have 3/],
      [['score', 'sacrebleu', '--predictions', join(dir, 'nope.txt'), '--references', ref1], /cannot read .*nope\.txt: no such file/],
      [['score', 'sacrebleu', '--predictions', hyp, '--references', ref1, '--option', 'smooth=magic'], /smooth.*must be one of exp, floor, add-k, none/],
      [['score', 'sacrebleu', '--predictions', hyp, '--references', ref1, '--option', 'colour=blue'], /unknown option 'colour' for sacrebleu/],
      [['score', 'rouge', '--predictions', hyp, '--references', ref1, '--option', 'stemmer'], /--option must be k=v/],
    ];
    for (const [args, re] of cases) {
      const r = await runCli(args);
      expect(r.code).not.toBe(0);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(re);
    }
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '"ok"\n{"not": "a string"}\n');
    const r = await runCli(['score', 'rouge', '--predictions', bad, '--references', bad]);
    expect(r.stderr).toMatch(/bad\.jsonl:2 is not a JSON string/);
  });
});
