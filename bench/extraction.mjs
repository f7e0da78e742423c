// Answer-extraction benchmark (issue #23): the real completions of ../shared/data/real-outputs/ scored by the strict
// scorers' extraction (the SDK cascade), printing per file and model the agreement with the source graders'
// verdicts, the histogram of the rules that fired, and the extraction speed in replies per second.
// Build first (`npm run build`), then run `node bench/extraction.mjs` from the repository root.
// Target: at least 50,000 replies/s on this machine (2 cores); GSM8K agreement >= 99.0%, MMLU-Pro >= 99%.
// `--shared DIR` reads another copy of shared/ (default ../shared beside the repository).
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { extractChoice, extractNumber } from '../packages/sdk/dist/index.js';

const at = process.argv.indexOf('--shared');
const shared = resolve(at > 0 ? process.argv[at + 1] : new URL('../../shared', import.meta.url).pathname);
const dir = join(shared, 'data', 'real-outputs');
if (!existsSync(dir)) {
  console.error(`no real outputs at ${dir} (pass --shared DIR)`);
  process.exit(2);
}

const read = (f) => readFileSync(join(dir, f), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));

/** The cases of one file: how to extract, how to judge the extraction, and the rows. */
const FILES = [
  {
    file: 'gsm8k-zeroeval.jsonl',
    extract: (r) => extractNumber(r.completion),
    solved: (r, e) => e !== null && e.value === Number(String(r.gold).replaceAll(',', '')),
  },
  {
    file: 'mmlu-pro.jsonl',
    label: 'mmlu-pro.jsonl (-o letters=10)',
    extract: (r) => extractChoice(r.completion, { letters: 10 }),
    solved: (r, e) => e !== null && e.value === r.gold,
  },
  {
    file: 'mmlu-pro.jsonl',
    label: 'mmlu-pro.jsonl (with option texts)',
    extract: (r) => extractChoice(r.completion, { letters: 10, options: r.options }),
    solved: (r, e) => e !== null && e.value === r.gold,
  },
];

const pct = (a, n) => `${((100 * a) / n).toFixed(2)}%`;
let allReplies = 0;
let allMs = 0;
for (const spec of FILES) {
  const rows = read(spec.file);
  const perModel = new Map();
  const rules = new Map();
  let agree = 0;
  for (const r of rows) {
    const e = spec.extract(r);
    const ok = spec.solved(r, e) === r.sourceVerdict;
    const m = perModel.get(r.model) ?? { n: 0, agree: 0 };
    m.n++;
    if (ok) {
      m.agree++;
      agree++;
    }
    perModel.set(r.model, m);
    const rule = e?.rule ?? 'none';
    rules.set(rule, (rules.get(rule) ?? 0) + 1);
  }
  // speed: extraction only, the file's replies repeated until at least 1 s has passed (after a warm-up pass)
  for (const r of rows) spec.extract(r);
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 1000) {
    for (const r of rows) spec.extract(r);
    n += rows.length;
  }
  const ms = performance.now() - t0;
  allReplies += n;
  allMs += ms;
  console.log(`\n${spec.label ?? spec.file}: ${rows.length} replies, agreement with the source verdicts ${pct(agree, rows.length)}`);
  for (const [model, m] of [...perModel].sort((a, b) => a[0].localeCompare(b[0]))) console.log(`  ${model.padEnd(34)} ${String(m.n).padStart(4)}  ${pct(m.agree, m.n).padStart(7)}`);
  console.log(`  rules: ${[...rules].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  console.log(`  speed: ${Math.round((n / ms) * 1000).toLocaleString('en-US')} replies/s (mean reply ${Math.round(rows.reduce((a, r) => a + r.completion.length, 0) / rows.length)} characters)`);
}
const rate = Math.round((allReplies / allMs) * 1000);
console.log(`\noverall speed: ${rate.toLocaleString('en-US')} replies/s (target >= 50,000: ${rate >= 50_000 ? 'met' : 'NOT met'})`);
