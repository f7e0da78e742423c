/**
 * Reading runs for reports: which runs a report covers, their stored summaries, and the per-sample units the bootstrap
 * resamples. Reads through `RunStore` methods (the SQL is the store's: store/queries.ts).
 */
import { HptError, type BootstrapSettings, type Json, type ReportRun, type ReportUsage, type SampleUnit, type UnitEstimate } from '@hpt-bench/sdk';
import { clusteredMean } from '../stats/clustered.js';
import type { LadderData } from '../stats/ladder.js';
import { ladderVerdicts } from './ladder-data.js';
import { dataDifferences, dataIdentity, type DataIdentity, fingerprintDifferences, parseFingerprint } from '../run/fingerprint.js';
import type { RunRecord, RunStore } from '../store/store.js';
import { bootstrapRatios, DEFAULT_RESAMPLES, type Interval } from './bootstrap.js';
import { groupParts, latestPerGroup, modelLabel, runGroup } from './groups.js';

/** The report's data shapes live in the SDK (report views compute over them); re-exported here for host code. */
export type { BootstrapSettings, ReportRun, ReportUsage, SampleUnit };

/** Everything a report renders: the runs, in report order, and each run's sample units (by run id). */
export interface ReportData {
  store: string;
  runs: ReportRun[];
  units: Map<string, SampleUnit[]>;
  bootstrap: BootstrapSettings;
  /**
   * notes naming runs of the same dataset whose fingerprints differ in anything but the model (`fingerprintNotes`);
   * shown under the runs table and in the JSON report
   */
  fingerprintNotes?: string[];
  /**
   * notes on the selection (`selectionNotes`): how many older runs of a reported group were left out, and which;
   * shown under the runs table and in the JSON report
   */
  selectionNotes?: string[];
  /**
   * the data identity of each run, by run id (`dataIdentity`): runs whose identities differ (`dataDifferences`) are
   * never paired, so the HTML report draws no level transitions between them
   */
  dataIdentities?: Map<string, DataIdentity>;
  /**
   * notes naming the runs of one dataset that are on different data (`dataNotes`): the report pairs no samples between
   * them; shown under the runs table and in the JSON report
   */
  dataNotes?: string[];
  /**
   * the stored verdicts of the full-ladder runs (`run --full-ladder`), by run id (`ladderVerdicts`): the ladder
   * diagnostics, the hazard curve and `report --ladder` are computed from them
   */
  ladderVerdicts?: Map<string, LadderData>;
}

/**
 * What to report on: named run ids (in that order), or `latest` (the newest run), or else the newest completed run of
 * each comparability group (`runGroup`), or with `all` every completed run.
 */
export interface RunSelection {
  runIds?: string[];
  latest?: boolean;
  all?: boolean;
}

/** Options of `gatherReport`: the selection plus the bootstrap's `resamples` (default 2000) and `seed` (default 0). */
export interface GatherOptions extends RunSelection {
  resamples?: number;
  seed?: number;
}

const UNITS_NOTE =
  'samples (done rows of the run), drawn with replacement; HPI = sum of the drawn samples\' stored HPI sums / sum of their recorded scores, accuracy = solved scores / recorded scores (weighted by records; equals the plain mean when every sample has one score)';

/**
 * The runs a report covers, in report order.
 * @throws HptError `E_UNKNOWN_ID` for a named id the store does not hold; `E_CONFIG` for a named (or `latest`) run
 *   that is not completed, or when the store holds no completed run at all. `storePath` only names the store in messages.
 */
export function selectRuns(store: RunStore, storePath: string, selection: RunSelection): RunRecord[] {
  return selectReportRuns(store, storePath, selection).runs;
}

/**
 * The runs a report covers (as `selectRuns`) and the completed runs it leaves out because a newer run of their group
 * is reported (`omitted`, oldest first; only when no run is named and neither `latest` nor `all` is given).
 * @throws HptError as `selectRuns`; `E_CONFIG` for `all` with run ids or `latest`.
 */
export function selectReportRuns(store: RunStore, storePath: string, selection: RunSelection): { runs: RunRecord[]; omitted: { run: RunRecord; newer: RunRecord }[] } {
  if (selection.all && (selection.latest || selection.runIds?.length)) throw new HptError('E_CONFIG', 'give --all, --latest or run ids, not several of them');
  const all = store.listRuns(); // newest first
  const notCompleted = (r: RunRecord) =>
    new HptError(
      'E_CONFIG',
      `run ${r.id} is ${r.status}, not completed, so it has no trusted summary${r.error ? ` (${r.error})` : ''}; finish it with \`hpt-bench run --resume ${r.id} --store ${storePath}\` or name completed runs (see \`hpt-bench runs --store ${storePath}\`)`,
    );
  if (selection.runIds?.length) {
    if (selection.latest) throw new HptError('E_CONFIG', 'give run ids or --latest, not both');
    const out: RunRecord[] = [];
    const seen = new Set<string>();
    for (const id of selection.runIds) {
      if (seen.has(id)) continue;
      seen.add(id);
      const r = store.getRun(id);
      if (!r) throw new HptError('E_UNKNOWN_ID', `no run ${id} in ${storePath}; see \`hpt-bench runs --store ${storePath}\``);
      if (r.status !== 'completed') throw notCompleted(r);
      out.push(r);
    }
    return { runs: out, omitted: [] };
  }
  if (selection.latest) {
    const r = all[0];
    if (!r) throw new HptError('E_CONFIG', `no runs in ${storePath}; run \`hpt-bench run ... --store ${storePath}\` first`);
    if (r.status !== 'completed') throw notCompleted(r);
    return { runs: [r], omitted: [] };
  }
  const done = all.filter((r) => r.status === 'completed').reverse(); // oldest first
  if (done.length === 0) throw new HptError('E_CONFIG', `no completed runs in ${storePath}${all.length ? ` (${all.length} running or failed; see \`hpt-bench runs --store ${storePath}\`)` : ''}`);
  if (selection.all) return { runs: done, omitted: [] };
  const { kept, omitted } = latestPerGroup(done, (r) => runGroup(r).key);
  return { runs: kept, omitted };
}

/** A run's done samples in input order, as bootstrap units (one row of `samples` each; errored rows are left out). */
export function sampleUnits(store: RunStore, runId: string): SampleUnit[] {
  return store.sampleUnitRows(runId).map((r) => {
    const replicate = r.meta && typeof r.meta.replicate === 'number' ? r.meta.replicate : undefined;
    return {
      sampleId: r.sampleId,
      index: r.index,
      ...(replicate !== undefined ? { replicate } : {}),
      hpi: r.hpi,
      scores: r.scores,
      solved: r.solved,
      level: r.level,
      ...(r.meta ? { meta: r.meta } : {}),
    };
  });
}

/**
 * HPI and accuracy of a set of units with 95% intervals: HPI = Σ hpi / Σ scores, accuracy = Σ solved / Σ scores.
 * - Units of distinct samples: seeded bootstrap percentile intervals, both from the same resamples of the units (see
 *   `bootstrapRatios`); `stream` names the random stream (the run id). `interval` = `bootstrap`.
 * - Units holding replicates (some sample id more than once: `--replicates N`): a sample's replicates are correlated,
 *   so resampling units would give too narrow an interval; instead mean ± z · SE with the standard error clustered by
 *   sample id (Miller 2024, "Adding Error Bars to Evals", §2.2; `clusteredMean`) over the per-unit values hpi / scores
 *   and solved / scores of the scored units. `interval` = `clustered` (null intervals with fewer than 2 samples).
 */
export function unitEstimates(units: readonly SampleUnit[], options: { resamples?: number; seed?: number; stream?: string } = {}): UnitEstimate {
  const hpi = Float64Array.from(units, (u) => u.hpi);
  const solved = Float64Array.from(units, (u) => u.solved);
  const scores = Float64Array.from(units, (u) => u.scores);
  if (hasReplicates(units)) {
    let sh = 0;
    let ss = 0;
    let sn = 0;
    for (const u of units) {
      sh += u.hpi;
      ss += u.solved;
      sn += u.scores;
    }
    const scored = units.filter((u) => u.scores > 0);
    const ids = scored.map((u) => u.sampleId);
    const twoSamples = new Set(ids).size >= 2;
    const ci = (values: number[]): Interval | null => (twoSamples ? clusteredMean(values, ids).ci.clustered : null);
    return {
      hpi: sn > 0 ? sh / sn : Number.NaN,
      hpiCi95: ci(scored.map((u) => u.hpi / u.scores)),
      accuracy: sn > 0 ? ss / sn : Number.NaN,
      accuracyCi95: ci(scored.map((u) => u.solved / u.scores)),
      interval: 'clustered',
    };
  }
  const [h, a] = bootstrapRatios([hpi, solved], scores, options);
  return { hpi: h!.estimate, hpiCi95: h!.ci, accuracy: a!.estimate, accuracyCi95: a!.ci, interval: 'bootstrap' };
}

/** Whether some sample id occurs more than once among `units` (a run with replicates). */
export function hasReplicates(units: readonly SampleUnit[]): boolean {
  const seen = new Set<string>();
  for (const u of units) {
    if (seen.has(u.sampleId)) return true;
    seen.add(u.sampleId);
  }
  return false;
}

function num(v: Json | undefined, fallback = 0): number {
  return typeof v === 'number' ? v : fallback;
}

function usage(v: Json | undefined): ReportUsage | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const u: ReportUsage = { calls: num(v.calls), cachedCalls: num(v.cachedCalls), promptTokens: num(v.promptTokens), completionTokens: num(v.completionTokens) };
  if (typeof v.cost === 'number') u.cost = v.cost;
  if (typeof v.reasoningTokens === 'number') u.reasoningTokens = v.reasoningTokens;
  if (typeof v.truncatedThinking === 'number') u.truncatedThinking = v.truncatedThinking;
  return u;
}

/**
 * A completed run as a `ReportRun`: the summary's values plus bootstrap intervals over `units`; `name` is the model's
 * label its configuration records (an evaluation file's model `name`), when it has one.
 * @throws HptError `E_STORE` when the run has no summary (it is not completed).
 */
export function reportRun(run: RunRecord, units: readonly SampleUnit[], options: { resamples?: number; seed?: number } = {}): ReportRun {
  const s = run.summary;
  if (!s) throw new HptError('E_STORE', `run ${run.id} has no summary (status ${run.status})`);
  const est = unitEstimates(units, { ...options, stream: run.id });
  const levels: Record<string, ReportUsage> = {};
  if (s.levels && typeof s.levels === 'object' && !Array.isArray(s.levels)) for (const [k, v] of Object.entries(s.levels)) levels[k] = usage(v) ?? { calls: 0, cachedCalls: 0, promptTokens: 0, completionTokens: 0 };
  const u = (s.usage ?? {}) as Record<string, Json>;
  const out: ReportRun = {
    runId: run.id,
    dataset: typeof s.dataset === 'string' ? s.dataset : run.dataset,
    model: typeof s.model === 'string' ? s.model : run.model,
    ...(typeof run.config.name === 'string' && run.config.name !== '' ? { name: run.config.name } : {}),
    mode: typeof s.mode === 'string' ? s.mode : run.mode,
    compat: typeof s.compat === 'string' ? s.compat : String(run.config.compat ?? 'strict'),
    seed: num(s.seed),
    createdAt: run.createdAt,
    ladder: Array.isArray(s.ladder) ? s.ladder.map(String) : [],
    n: num(s.n),
    samples: units.length,
    hpi: num(s.hpi),
    hpiCi95: est.hpiCi95,
    hpiDataset: num(s.hpiDataset),
    accuracy: num(s.accuracy),
    accuracyCi95: est.accuracyCi95,
    interval: est.interval,
    ...(run.config.fullLadder === true ? { fullLadder: true } : {}),
    levelCounts: (s.levelCounts ?? {}) as Record<string, number>,
    ...(typeof s.threshold === 'number' ? { threshold: s.threshold } : {}),
    ...(s.metrics && typeof s.metrics === 'object' && !Array.isArray(s.metrics) ? { metrics: s.metrics } : {}),
    calls: num(s.calls),
    cachedCalls: num(s.cachedCalls),
    usage: { promptTokens: num(u.promptTokens), completionTokens: num(u.completionTokens) },
    levels,
    ...(typeof s.cost === 'number' ? { cost: s.cost } : {}),
    errored: num(s.errored),
    ...(typeof s.samples === 'number' && s.samples > 1 ? { replicates: s.samples } : {}),
  };
  if (out.mode === 'adaptive') {
    if (typeof s.selector === 'string') out.selector = s.selector;
    out.selections = num(s.selections);
    out.invalidSelections = num(s.invalidSelections);
    const su = usage(s.selectorUsage);
    if (su) out.selectorUsage = su;
  }
  return out;
}

/**
 * Gather a report: select the runs (`selectReportRuns`: named runs, the newest, or the newest of each group), label
 * each run's group (`group`, `groupParts`, `groupLabel`: `groupParts` over the selected runs), read their sample units and compute the bootstrap intervals
 * (B = `resamples`, default 2000; `seed`, default 0; each run its own stream named by its id).
 * @throws HptError as `selectRuns`.
 */
export function gatherReport(store: RunStore, storePath: string, options: GatherOptions = {}): ReportData {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const seed = options.seed ?? 0;
  const { runs, omitted } = selectReportRuns(store, storePath, options);
  const units = new Map<string, SampleUnit[]>();
  const groups = runs.map((r) => runGroup(r));
  const parts = groupParts(groups);
  const reports = runs.map((r, i) => {
    const u = sampleUnits(store, r.id);
    units.set(r.id, u);
    const rr = reportRun(r, u, { resamples, seed });
    rr.group = groups[i]!.key;
    rr.groupParts = parts.get(groups[i]!.key) ?? [];
    rr.groupLabel = modelLabel(rr);
    return rr;
  });
  const selectionNotes = omitted.length
    ? [`${omitted.length} older run(s) left out: a newer run of the same group (model, dataset, ladder, mode, compat, data, HPI_Dataset, reasoning effort) is reported (${omitted.map((o) => `${o.run.id}, replaced by ${o.newer.id}`).join('; ')}); name runs (--run ID) or give --all to report them.`]
    : [];
  const dataIdentities = new Map(runs.map((r) => [r.id, dataIdentity(r)]));
  const verdicts = ladderVerdicts(store, reports);
  return {
    store: storePath,
    runs: reports,
    units,
    bootstrap: { resamples, seed, level: 0.95, units: UNITS_NOTE },
    fingerprintNotes: fingerprintNotes(runs),
    selectionNotes,
    dataIdentities,
    dataNotes: dataNotes(runs),
    ...(verdicts.size ? { ladderVerdicts: verdicts } : {}),
  };
}

/**
 * Notes on the runs of one dataset id that are on different data (pure; issue 25): per dataset, the runs (in `runs`
 * order) are split into sets of the same data (`dataDifferences` of their `dataIdentity` empty, compared with each
 * set's first run); a dataset with several sets gives one note naming the differing fields and the runs of each set.
 * Runs of different data are never paired: no level transitions are drawn between them, and `compare` refuses them
 * without `--force`.
 */
export function dataNotes(runs: readonly Pick<RunRecord, 'id' | 'dataset' | 'config' | 'fingerprint'>[]): string[] {
  const byDataset = new Map<string, { identity: DataIdentity; ids: string[] }[]>();
  for (const r of runs) {
    const identity = dataIdentity(r);
    const sets = byDataset.get(r.dataset) ?? [];
    const set = sets.find((x) => dataDifferences(x.identity, identity).length === 0);
    if (set) set.ids.push(r.id);
    else sets.push({ identity, ids: [r.id] });
    byDataset.set(r.dataset, sets);
  }
  const notes: string[] = [];
  for (const [dataset, sets] of byDataset) {
    if (sets.length < 2) continue;
    const fields = [...new Set(sets.slice(1).flatMap((x) => dataDifferences(sets[0]!.identity, x.identity).map((d) => d.field)))];
    notes.push(
      `Runs of ${dataset} are on different data (${fields.join(', ')}), grouped by data: ${sets.map((x) => x.ids.join(', ')).join(' | ')}. Runs of different data are not paired: no level transitions are drawn between them, and \`hpt-bench compare\` refuses them without --force.`,
    );
  }
  return notes;
}

/**
 * Notes on runs of the same dataset that differ in anything but the model (pure): each run with a fingerprint is
 * compared with the first run of its dataset (in `runs` order) that has one; a run that differs gives one note naming
 * both runs and the differing fields (`fingerprintDifferences`). Runs without a fingerprint (made before fingerprints
 * were recorded) are counted in one note when some run of their dataset has one.
 */
export function fingerprintNotes(runs: readonly Pick<RunRecord, 'id' | 'dataset' | 'fingerprint'>[]): string[] {
  const notes: string[] = [];
  const reference = new Map<string, { id: string; fingerprint: NonNullable<ReturnType<typeof parseFingerprint>> }>();
  const missing: string[] = [];
  for (const r of runs) {
    const f = parseFingerprint(r.fingerprint);
    if (!f) {
      missing.push(r.id);
      continue;
    }
    const ref = reference.get(r.dataset);
    if (!ref) {
      reference.set(r.dataset, { id: r.id, fingerprint: f });
      continue;
    }
    const diff = fingerprintDifferences(ref.fingerprint, f);
    if (diff.length) notes.push(`Runs ${ref.id} and ${r.id} (${r.dataset}) differ in more than the model: ${diff.map((d) => d.field).join(', ')}; their results are not comparable as a model comparison.`);
  }
  if (missing.length && runs.some((r) => parseFingerprint(r.fingerprint))) notes.push(`${missing.length} run(s) have no fingerprint (made before fingerprints were recorded): ${missing.join(', ')}.`);
  return notes;
}
