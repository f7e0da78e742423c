// ROUGE micro-benchmark (specs/hpt.md §3 "ROUGE", §9 #8): 10,000 deterministic pseudo-random segment pairs (~20 words
// each, predictions derived from targets, ~1 in 8 pairs multi-line), all four ROUGE types (rouge1, rouge2, rougeL,
// rougeLsum) per pair via one rougeScore call, no stemmer (the SamSum setting), plus one pass with the stemmer. Target: BLEU + ROUGE under 1 s for 10k pairs, so ROUGE should stay well under 0.5 s.
// Usage: npx tsc -b plugins/metrics && node bench/rouge.mjs
import { mulberry32 } from './prng.mjs';
import { ROUGE_TYPES, rougeScore } from '../plugins/metrics/dist/rouge.js';

const PAIRS = 10_000;


const VOCAB = (
  'the a an and or but to of in on at for with from by about as is was are were be been will would can could ' +
  'ann bob tom liz mia joe sam kate ben anna meeting party tonight friday printer technician kitchen keys fridge ' +
  'snacks chips salsa noon call buy bring move lost found broken needs coming going asked told said wants ' +
  'Summary summarise dialogue shop milk bread apples tomatoes bananas cucumber store grocery phone thesis writing ' +
  'running tested testing quickly happily organization relational conditional hopefulness'
).split(' ');
const PUNCT = ['', '', '', '', ',', '.', '!', '?', "'s", ':'];

function word(random) {
  let w = VOCAB[Math.floor(VOCAB.length * random() ** 2)]; // skewed choice, so words and bigrams repeat
  if (random() < 0.1) w = w[0].toUpperCase() + w.slice(1);
  return w;
}

/** Joins words with spaces (and, for multi-line segments, some newlines) and sprinkles punctuation. */
function render(words, random, multi) {
  let s = '';
  for (let i = 0; i < words.length; i++) {
    s += words[i] + PUNCT[Math.floor(random() * PUNCT.length)];
    if (i < words.length - 1) s += multi && random() < 0.2 ? '\n' : ' ';
  }
  return s;
}

/** A target of 14..26 words (~20) and a prediction derived from it: ~30% words replaced, ~5% dropped, one swap. */
function pair(random) {
  const n = 14 + Math.floor(random() * 13);
  const target = [];
  for (let i = 0; i < n; i++) target.push(word(random));
  const prediction = [];
  for (const w of target) {
    const r = random();
    if (r < 0.05) continue;
    prediction.push(r < 0.35 ? word(random) : w);
  }
  if (prediction.length > 3) {
    const k = Math.floor(random() * (prediction.length - 1));
    [prediction[k], prediction[k + 1]] = [prediction[k + 1], prediction[k]];
  }
  const multi = random() < 0.125; // a few pairs are multi-line (rougeLsum then differs from rougeL)
  return [render(target, random, multi), render(prediction, random, multi)];
}

const random = mulberry32(20240611);
const pairs = [];
for (let i = 0; i < PAIRS; i++) pairs.push(pair(random));
const withNewlines = pairs.filter(([t, p]) => t.includes('\n') || p.includes('\n')).length;

function run(stemmer) {
  const sums = [0, 0, 0, 0];
  const t0 = performance.now();
  for (const [target, prediction] of pairs) {
    const r = rougeScore(target, prediction, ROUGE_TYPES, { stemmer });
    for (let k = 0; k < 4; k++) sums[k] += r[ROUGE_TYPES[k]].fmeasure;
  }
  const ms = performance.now() - t0;
  return { ms, means: sums.map((s) => (s / PAIRS).toFixed(4)) };
}

const first = run(false); // includes JIT warm-up: what a single run of the CLI pays
const warm = [];
for (let i = 0; i < 3; i++) warm.push(run(false));
const best = warm.reduce((a, b) => (a.ms <= b.ms ? a : b));
const stem = run(true);

console.log(`pairs: ${PAIRS} (${withNewlines} with newlines), types: ${ROUGE_TYPES.join(', ')} per pair`);
console.log(`no stemmer, first pass (cold JIT): ${first.ms.toFixed(1)} ms`);
console.log(`no stemmer, warm: ${warm.map((r) => r.ms.toFixed(1)).join(' / ')} ms (best ${best.ms.toFixed(1)} ms, ${((best.ms * 1000) / PAIRS).toFixed(1)} µs/pair)`);
console.log(`mean F1: ${ROUGE_TYPES.map((t, k) => `${t}=${best.means[k]}`).join(' ')}`);
console.log(`with stemmer (Porter, memoized): ${stem.ms.toFixed(1)} ms`);
