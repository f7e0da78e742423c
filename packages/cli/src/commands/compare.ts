import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { compareMany, describeDataDifferences, HptError, RunStore, type CompareResult, type Json, type PairedTests, storeExists, storeLabel } from '@hpt-bench/core';
import { HptCommand, TerminalTable, terminalSafe } from '../base.js';
import { storeFlag } from '../store-flag.js';

/**
 * `hpt-bench compare A B [C …]`: paired difference A - B of per-sample HPI and of accuracy on the samples both runs
 * scored, with seeded bootstrap 95% percentile intervals and the paired tests (sign-flip permutation test and d_z of
 * HPI, McNemar's exact test and a permutation test of accuracy, clustered intervals with replicates); then the
 * level-transition table (A's solving level x B's) and the samples B fixes and breaks. With more runs, each is compared
 * with A and the p-values are Holm-adjusted across the comparisons.
 */
export default class Compare extends HptCommand {
  static override summary = 'Paired comparison of runs: HPI and accuracy differences (A - B) with bootstrap 95% intervals, paired tests (permutation, McNemar; Holm-adjusted with several runs), level transitions, the samples B fixes and breaks.';
  static override description = `Samples are matched by sample id (and replicate index with --replicates N). On the paired samples it reports each run's HPI and accuracy, the mean per-sample HPI difference A - B (negative: A solves at lower levels, i.e. better) and the accuracy difference, each with a bootstrap 95% percentile interval over the paired samples. Per-sample HPI is the stored HPI sum / the sample's recorded scores (adaptive --compat reference runs can record 0 or 2; a sample with no score in either run is left out and counted as unscored). Then the level-transition table of the paired samples (rows: the level at which A solved each sample, L1..Lm then unsolved; columns: the same for B) and the samples B fixes (A unsolved, B solved) and breaks (A solved, B unsolved), the first --list of each printed (all of them in --json: transitions, fixed, broken). Runs on different data (another dataset, data file content or source, split, or a generated dataset's seed or compat mode) are refused (exit 2, naming the differing fields), since their samples with equal ids are not the same samples; --force compares them anyway, with a warning. Runs of the same data with other models, reasoning efforts, ladders, limits or filters compare as usual.

Paired tests on the same samples: for HPI, a two-sided sign-flip permutation test of the mean per-sample difference (exact below 21 nonzero differences, else --permutations random sign assignments, seeded by --seed) and the effect size d_z (mean / sd of the differences); for accuracy, McNemar's exact test (solved by A only vs by B only; runs without replicates) and the same permutation test on per-sample solved shares. With --replicates N the tests use per-sample means, and clustered 95% intervals (by sample, Miller 2024 "Adding Error Bars to Evals" §2.2) are shown beside the bootstrap ones. Given more than two runs (compare A B C ...), each is compared with A and every p-value is also given Holm-adjusted across those comparisons (--json: { runs, comparisons }, each comparison as with two runs).`;
  static override examples = [
    '<%= config.bin %> compare 20261121T093000-1a2b3c 20261121T101500-9f8e7d',
    '<%= config.bin %> compare RUN_A RUN_B --store results.db --json',
    '<%= config.bin %> compare RUN_A RUN_B --force',
    '<%= config.bin %> compare BASELINE RUN_1 RUN_2 RUN_3   # each vs BASELINE, p-values Holm-adjusted',
  ];

  // more runs than the two declared arguments: compared with the first
  static override strict = false;
  static override usage = ['<%= command.id %> RUN_A RUN_B [RUN_C...] [--store S] [--json] [--bootstrap B] [--permutations B] [--seed S] [--list N] [--force]'];

  static override args = {
    runA: Args.string({ description: 'run A (see `hpt-bench runs`)', required: true }),
    runB: Args.string({ description: 'run B (more runs may follow: each is compared with A)', required: true }),
  };

  static override flags = {
    store: storeFlag(),
    bootstrap: Flags.integer({ description: 'bootstrap resamples B', default: 2000, min: 1, max: 1_000_000 }),
    seed: Flags.integer({ description: 'bootstrap seed (same seed => same intervals)', default: 0 }),
    list: Flags.integer({ description: 'fixed and broken samples printed of each (text output; --json lists all)', default: 20, min: 0 }),
    permutations: Flags.integer({ description: 'random sign assignments of the permutation tests (exact enumeration below 21 nonzero differences)', default: 10_000, min: 1, max: 10_000_000 }),
    force: Flags.boolean({ description: 'compare runs on different data anyway (samples paired by id; a warning names the differing fields)', default: false }),
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Compare);
    const runIds = argv as string[];
    if (!storeExists(flags.store)) throw new HptError('E_CONFIG', `no store at ${storeLabel(flags.store)}; give --store FILE or URL (the store \`hpt-bench run --store\` wrote)`);
    const store = new RunStore(flags.store, { readonly: true });
    let results: CompareResult[];
    try {
      results = compareMany(store, storeLabel(flags.store), runIds, { resamples: flags.bootstrap, seed: flags.seed, permutations: flags.permutations, force: flags.force });
    } finally {
      store.close();
    }
    for (const result of results) this.warnDifferences(result, results.length > 1);
    if (flags.json) {
      this.printJson(results.length === 1 ? results[0]! : { runs: runIds, adjustment: 'holm', comparisons: results });
      return;
    }
    this.log(results.map((r) => renderCompare(r, { list: flags.list, family: results.length })).join('\n\n'));
  }

  /** Warnings on what differs between a comparison's runs besides the model (`many`: name the runs). */
  private warnDifferences(result: CompareResult, many: boolean): void {
    const pair = many ? `${result.a.runId} vs ${result.b.runId}: ` : '';
    const dataDiff = result.dataDifferences ?? [];
    if (dataDiff.length) this.logger.warn(`${pair}the runs are on different data: ${describeDataDifferences(dataDiff)}; samples were paired by id anyway (--force)`);
    // a comparison of models is only one when nothing but the model differs (the runs' fingerprints); when the data
    // differ, the warning above already says how (its fields, and every data.* field)
    const named = new Set(dataDiff.map((d) => d.field));
    const said = (field: string) => named.has(field) || (dataDiff.length > 0 && field.startsWith('data.'));
    for (const d of result.differences ?? []) if (!said(d.field)) this.logger.warn(`${pair}runs differ in ${d.field} (A: ${showValue(d.a)}, B: ${showValue(d.b)}), not only in the model`);
    if (result.differences === null) this.logger.warn(`${pair}a run has no fingerprint (made before fingerprints were recorded): cannot tell whether the runs differ in more than the model`);
  }
}

/** A fingerprint value for a warning line: strings as they are, others as JSON, cut to 80 characters. */
function showValue(v: Json): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

const ci = (c: [number, number] | null, d: number, scale = 1) => (c ? ` [${(c[0] * scale).toFixed(d)}, ${(c[1] * scale).toFixed(d)}]` : '');
const signed = (v: number, d: number) => `${v > 0 ? '+' : ''}${v.toFixed(d)}`;

/**
 * The comparison as aligned text (rounded for display; `--json` has full precision): the paired table, the
 * level-transition table (rows: A's solving level, columns: B's, with totals) and the first `list` (default 20) fixed
 * and broken samples of each kind with their count. Every id goes through `terminalSafe`.
 */
export function renderCompare(r: CompareResult, options: { list?: number; family?: number } = {}): string {
  const t = new TerminalTable({ head: ['', `A ${r.a.runId}`, `B ${r.b.runId}`, 'A - B [95% CI]'] });
  t.push(['dataset / model', `${r.a.dataset} / ${r.a.model}`, `${r.b.dataset} / ${r.b.model}`, '']);
  t.push(['HPI (paired samples; lower is better)', r.a.hpi.toFixed(3), r.b.hpi.toFixed(3), `${signed(r.hpiDiff, 3)}${ci(r.hpiDiffCi95, 3)}`]);
  t.push(['accuracy', `${(100 * r.a.accuracy).toFixed(2)}%`, `${(100 * r.b.accuracy).toFixed(2)}%`, `${signed(100 * r.accuracyDiff, 2)} pp${ci(r.accuracyDiffCi95, 2, 100)}`]);
  t.push(['samples (paired / in run)', `${r.paired} / ${r.a.samples}`, `${r.paired} / ${r.b.samples}`, '']);
  const extra = [`paired samples: ${r.paired}; only in A: ${r.onlyA}; only in B: ${r.onlyB}${r.unscored ? `; matched but unscored in a run: ${r.unscored}` : ''}`];
  extra.push(`bootstrap 95% percentile intervals over paired samples, B = ${r.bootstrap.resamples}, seed ${r.bootstrap.seed}`);
  return [`${t.toString()}\n${extra.join('\n')}`, renderTests(r.tests, options.family ?? 1), renderTransitions(r, options.list ?? 20)].join('\n\n');
}

/** A p-value for display: 2 significant digits (0.0031, 0.012, 0.5, 1), `< 0.0001` below 0.0001. */
export function formatP(p: number): string {
  return p < 1e-4 ? '< 0.0001' : String(Number(p.toPrecision(2)));
}

/** The paired tests as text lines (`family` > 1: the Holm-adjusted p-values across that many comparisons too). */
function renderTests(t: PairedTests, family: number): string {
  const p = (x: { p: number; pHolm: number }) => `p = ${formatP(x.p)}${family > 1 ? ` (Holm-adjusted over ${family} comparisons: ${formatP(x.pHolm)})` : ''}`;
  const how = (x: { exact: boolean; resamples: number }) => (x.exact ? `exact, ${x.resamples} sign assignments` : `${x.resamples} random sign assignments`);
  const on = t.replicates ? `${t.samples} samples (per-sample means of ${t.units} paired units)` : `${t.samples} paired samples`;
  const e = t.hpi.effect;
  const out = [`Paired tests (A - B, two-sided, on ${on}):`];
  out.push(`  HPI: mean difference ${signed(e.meanDiff, 3)} levels, d_z ${e.dz === null ? 'n/a' : e.dz.toFixed(2)}; sign-flip permutation test ${p(t.hpi.permutation)} (${how(t.hpi.permutation)})`);
  const m = t.accuracy.mcnemar;
  out.push(
    m
      ? `  accuracy: McNemar exact test ${p(m)} (solved by A only ${m.b}, by B only ${m.c}; odds ratio ${m.oddsRatio === null ? 'n/a' : m.oddsRatio === Infinity ? 'inf' : m.oddsRatio.toFixed(2)})`
      : `  accuracy: McNemar ${t.accuracy.mcnemarNote ?? 'not computed'}`,
  );
  out.push(`  accuracy: sign-flip permutation test on per-sample solved shares ${p(t.accuracy.permutation)}`);
  if (t.hpi.clustered || t.accuracy.clustered) {
    const c = t.hpi.clustered ?? t.accuracy.clustered!;
    const de = c.designEffect === null ? '' : `; design effect ${c.designEffect.toFixed(2)}`;
    out.push(`  clustered 95% intervals (by sample, Miller 2024 §2.2; ${c.clusters} clusters${de}): HPI${t.hpi.clustered ? ci(t.hpi.clustered.ci95, 3) : ' n/a'}, accuracy${t.accuracy.clustered ? ci(t.accuracy.clustered.ci95, 2, 100) + ' pp' : ' n/a'}`);
  }
  return out.join('\n');
}

const levelText = (l: number | null) => (l === null ? 'unsolved' : `L${l}`);

/** The transition table and the fixed / broken lists (see `renderCompare`). */
function renderTransitions(r: CompareResult, list: number): string {
  const tr = r.transitions;
  const out: string[] = [terminalSafe(`Level transitions on the ${tr.paired} paired samples: rows = A ${r.a.model} (${r.a.runId}) solved at, columns = B ${r.b.model} (${r.b.runId}) solved at`, true)];
  const t = new TerminalTable({ head: ['A \\ B', ...tr.columns, 'total'] });
  const colTotals = tr.columns.map((_, j) => tr.counts.reduce((s, row) => s + row[j]!, 0));
  tr.rows.forEach((label, i) => t.push([label, ...tr.counts[i]!, tr.counts[i]!.reduce((s, c) => s + c, 0)]));
  t.push(['total', ...colTotals, tr.paired]);
  out.push(t.toString());
  const k = tr.totals;
  out.push(`B fixes ${k.fixed} (A unsolved, B solved), breaks ${k.broken} (A solved, B unsolved); both solved: B at a lower level ${k.improved}, the same level ${k.sameLevel}, a higher level ${k.worse}; both unsolved ${k.bothUnsolved}`);
  const lines = (title: string, items: CompareResult['fixed']) => {
    if (items.length === 0 || list === 0) return;
    out.push(`${title} (${items.length}${items.length > list ? `, the first ${list}; --json lists all` : ''}):`);
    for (const s of items.slice(0, list)) out.push(terminalSafe(`  ${s.sampleId}${s.replicate !== undefined ? ` #${s.replicate}` : ''}: A ${levelText(s.levelA)} -> B ${levelText(s.levelB)}`, true));
  };
  lines('fixed by B', r.fixed);
  lines('broken by B', r.broken);
  return out.join('\n');
}
