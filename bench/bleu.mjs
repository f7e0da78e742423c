// BLEU micro-benchmark (specs/hpt.md §3 "BLEU"): 10,000 deterministic pseudo-random segment pairs of ~20 words,
// timing corpus sacreBLEU, corpus HF-evaluate BLEU and 10,000 sentence-level HF BLEU scores (the IWSLT solve test).
// Build first: `npx tsc -b plugins/metrics`, then run `node bench/bleu.mjs` from the repository root.
// Target: BLEU + ROUGE together under 1 s for 10k pairs, so BLEU should stay well under 0.5 s.
import { mulberry32 as rng } from './prng.mjs';
import { performance } from 'node:perf_hooks';
import { BleuScorer, bleuHf, bleuHfSentence, sacreBleuCorpus } from '../plugins/metrics/dist/bleu.js';

const N = 10_000;


const random = rng(20240601);
const VOCAB = [];
for (let i = 0; i < 2000; i++) {
  let w = '';
  const len = 2 + Math.floor(random() * 8);
  for (let j = 0; j < len; j++) w += 'abcdefghijklmnopqrstuvwxyzéèàç'[Math.floor(random() * 30)];
  VOCAB.push(w);
}
// Zipf-like word choice so that n-grams repeat across segments, plus some punctuation the 13a tokenizer splits.
const word = () => VOCAB[Math.floor(VOCAB.length * random() ** 3)];
const PUNCT = [',', '.', ';', '!', '?', ':', "'", '-', '"'];

function sentence(n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    let w = word();
    if (random() < 0.08) w += PUNCT[Math.floor(random() * PUNCT.length)];
    if (random() < 0.05) w = w[0].toUpperCase() + w.slice(1);
    out.push(w);
  }
  return out.join(' ') + '.';
}

const refs = [];
const hyps = [];
for (let i = 0; i < N; i++) {
  const n = 15 + Math.floor(random() * 11); // 15..25 words, mean 20
  const ref = sentence(n).split(' ');
  // The hypothesis: the reference with ~30% of the words replaced, some dropped, and a local swap.
  const hyp = [];
  for (const w of ref) {
    const r = random();
    if (r < 0.05) continue;
    hyp.push(r < 0.3 ? word() : w);
  }
  if (hyp.length > 3 && random() < 0.5) {
    const k = Math.floor(random() * (hyp.length - 1));
    [hyp[k], hyp[k + 1]] = [hyp[k + 1], hyp[k]];
  }
  refs.push(ref.join(' '));
  hyps.push(hyp.join(' '));
}

function time(label, fn, reps = 5) {
  fn(); // warm-up (JIT)
  const ms = [];
  let value;
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    value = fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  console.log(`${label.padEnd(34)} median ${ms[Math.floor(reps / 2)].toFixed(1).padStart(7)} ms   min ${ms[0].toFixed(1).padStart(7)} ms   ${value}`);
  return ms[Math.floor(reps / 2)];
}

console.log(`BLEU bench: ${N} pairs, mean ${(refs.reduce((s, r) => s + r.split(' ').length, 0) / N).toFixed(1)} ref words`);
const t1 = time('corpus sacreBLEU (13a, exp)', () => sacreBleuCorpus(hyps, [refs]).score.toFixed(4));
const t2 = time('corpus bleuHf (13a, order 4)', () => bleuHf(hyps, refs.map((r) => [r])).bleu.toFixed(6));
const t3 = time(`${N} x sentence bleuHf`, () => {
  let s = 0;
  for (let i = 0; i < N; i++) s += bleuHfSentence(hyps[i], [refs[i]]).bleu;
  return `mean ${(s / N).toFixed(6)}`;
});
const samples = refs.map((target, index) => ({ id: String(index), index, input: { eng_text: '' }, target }));
const scorer = new BleuScorer();
const t4 = time('aggregator: 10k add + result', () => {
  const agg = scorer.createAggregator({ compat: 'strict', options: {} });
  for (let i = 0; i < N; i++) agg.add(samples[i], hyps[i]);
  const r = agg.result();
  return `bleu ${r.bleu.toFixed(6)} sacrebleu ${r.sacrebleu.toFixed(4)}`;
});
console.log(`total of the three required figures (medians): ${(t1 + t2 + t3).toFixed(1)} ms; a run's BLEU work (sentence + aggregator): ${(t3 + t4).toFixed(1)} ms`);
