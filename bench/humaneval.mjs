#!/usr/bin/env node
// Benchmark of the HumanEval code-exec scorer: runs the 164 canonical solutions (prompt + canonical_solution in a
// ```python fence) through the code sandbox (@hpt-bench/sandbox) at the core's bounded concurrency and prints pass@1
// and wall time.
// Usage: npm run build && node bench/humaneval.mjs [HumanEval.jsonl] [--concurrency N] [--reference]
// Default data: /work/shared/data/humaneval/HumanEval.jsonl (or $HUMANEVAL_JSONL). Target: under 15 s at 8.
import { readFileSync } from 'node:fs';
import { BoundedCodeSandbox } from '../packages/core/dist/index.js';
import { HumanEvalScorer } from '../plugins/metrics/dist/humaneval.js';

const args = process.argv.slice(2);
const flag = (name) => args.indexOf(name);
const ci = flag('--concurrency');
const concurrency = ci >= 0 ? Number(args[ci + 1]) : 8;
const compat = flag('--reference') >= 0 ? 'reference' : 'strict';
const file = args.find((a, i) => !a.startsWith('--') && (ci < 0 || i !== ci + 1)) ?? process.env.HUMANEVAL_JSONL ?? '/work/shared/data/humaneval/HumanEval.jsonl';

const rows = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
const samples = rows.map((r, index) => ({
  id: r.task_id,
  index,
  input: { code: r.prompt, test: r.test, entry_point: r.entry_point },
  target: r.canonical_solution,
}));

// the sandbox a run container gives the scorer, with this benchmark's bound instead of the default 8
const sandbox = new BoundedCodeSandbox(concurrency);
const scorer = new HumanEvalScorer(sandbox);
const ctx = { compat, options: {} };
const t0 = performance.now();
const iso = sandbox.isolation();
const probeS = (performance.now() - t0) / 1000;
const t1 = performance.now();
const verdicts = await Promise.all(samples.map((s) => {
  const completion = scorer.renderTarget(s);
  return scorer.score(s, { promptText: 'Code:', completion, cue: 'Code:' }, ctx);
}));
const seconds = (performance.now() - t1) / 1000;
const agg = scorer.createAggregator(ctx);
samples.forEach((s, i) => agg.add(s, verdicts[i].extracted, verdicts[i].solved));
const failed = samples.filter((_, i) => !verdicts[i].solved).map((s) => s.id);
console.log(JSON.stringify({
  problems: samples.length,
  compat,
  concurrency,
  ...agg.result(),
  seconds: Number(seconds.toFixed(2)),
  msPerProblem: Number(((seconds * 1000) / samples.length).toFixed(1)),
  probeSeconds: Number(probeS.toFixed(2)),
  isolation: { mode: iso.mode, network: iso.network, user: iso.user, filesystem: iso.filesystem, processes: iso.processes, limits: iso.limits },
  failed,
}, null, 2));
