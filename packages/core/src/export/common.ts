/** Reading a run for export and the helpers the format converters share (see index.ts). */
import { createHash } from 'node:crypto';
import { HptError, type Json, type ReportRun, type SampleResult, type SampleUnit } from '@hpt-bench/sdk';
import { DEFAULT_RESAMPLES } from '../report/bootstrap.js';
import { reportRun, sampleUnits } from '../report/gather.js';
import { canonicalJson } from '../run/config.js';
import { parseFingerprint, type RunFingerprint } from '../run/fingerprint.js';
import { clusteredMean } from '../stats/clustered.js';
import { storeLabel } from '../store/location.js';
import type { RunRecord, RunStore } from '../store/store.js';
/** The formats `hpt-bench export --format` writes. */
export const EXPORT_FORMATS = ['eee', 'hf', 'inspect', 'lm-eval'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** One done sample of a run as exported: the stored `SampleResult` plus its replicate (0-based; 0 without `--replicates`). */
export interface ExportSample extends SampleResult {
  replicate: number;
}

/**
 * A completed run read for export (`readExportRun`).
 * - `report`: the run's figures as `hpt-bench report` computes them (`reportRun`: HPI, accuracy, their 95% intervals,
 *   level counts, n = recorded scores, `hpiDataset`, the ladder's strategy ids);
 * - `m`: the number of ladder levels; `hpiDataset`: the HPI_Dataset of the run (unsolved samples score m + hpiDataset);
 * - `stderr`: standard errors of HPI and accuracy over the samples' per-unit values, clustered by sample id (Miller 2024
 *   eq. 4, `clusteredMean`; equal to the naive s/√n up to the C/(C−1) factor when no sample has replicates); null with
 *   fewer than 2 distinct samples;
 * - `fingerprint`: what the run was made with (`RunFingerprint`), null for runs stored before fingerprints;
 *   `fingerprintHash`: `sha256:<hex>` of its canonical JSON (null without);
 * - `samples`: streams the done samples in input order (`RunStore.iterSamples`; the store must stay open), each with
 *   its `replicate`; `units`: the samples' report units (hpi, scores, solved, level) in the same order.
 */
export interface ExportRun {
  run: RunRecord;
  report: ReportRun;
  m: number;
  hpiDataset: number;
  stderr: { hpi: number | null; accuracy: number | null };
  fingerprint: RunFingerprint | null;
  fingerprintHash: string | null;
  units: SampleUnit[];
  samples: () => Iterable<ExportSample>;
  /** the hpt-bench version that made the run (the fingerprint's), else `unknown` */
  version: string;
  /** the bootstrap behind the report's intervals (B resamples, seed) */
  bootstrap: { resamples: number; seed: number };
}

/**
 * Read completed run `runId` from `store` for export (HPI and accuracy as `report` gives them; bootstrap with the report's
 * defaults, B = `resamples` 2000, `seed` 0). `storeLabel` names the store in messages (default: its credential-free
 * label). The samples are read lazily: keep the store open while a writer streams them.
 * @throws HptError `E_UNKNOWN_ID` when the store has no such run; `E_CONFIG` when it is not completed (no trusted summary).
 */
export function readExportRun(store: RunStore, runId: string, options: { resamples?: number; seed?: number; storeLabel?: string } = {}): ExportRun {
  const run = store.getRun(runId);
  const label = options.storeLabel ?? storeLabel(store.path);
  if (!run) throw new HptError('E_UNKNOWN_ID', `no run ${runId} in ${label}; see \`hpt-bench runs --store ${label}\``);
  if (run.status !== 'completed' || !run.summary) throw new HptError('E_CONFIG', `run ${runId} is ${run.status}, not completed, so it has no trusted summary to export; finish it with \`hpt-bench run --resume ${runId} --store ${label}\``);
  const units = sampleUnits(store, runId);
  const report = reportRun(run, units, options);
  const fingerprint = parseFingerprint(run.fingerprint);
  const m = report.ladder.length || fingerprint?.ladderLevels.length || 0;
  return {
    run,
    report,
    m,
    hpiDataset: report.hpiDataset,
    stderr: standardErrors(units),
    fingerprint,
    fingerprintHash: fingerprint ? sha256Prefixed(canonicalJson(fingerprint)) : null,
    units,
    samples: function* () {
      for (const s of store.iterSamples(runId)) yield { ...s, replicate: replicateOf(s) };
    },
    version: fingerprint?.hptBench ?? 'unknown',
    bootstrap: { resamples: options.resamples ?? DEFAULT_RESAMPLES, seed: options.seed ?? 0 },
  };
}

/** Clustered standard errors of HPI and accuracy over scored units (see `ExportRun.stderr`). */
export function standardErrors(units: readonly SampleUnit[]): { hpi: number | null; accuracy: number | null } {
  const scored = units.filter((u) => u.scores > 0);
  const ids = scored.map((u) => u.sampleId);
  if (new Set(ids).size < 2) return { hpi: null, accuracy: null };
  return {
    hpi: clusteredMean(scored.map((u) => u.hpi / u.scores), ids).se.clustered,
    accuracy: clusteredMean(scored.map((u) => u.solved / u.scores), ids).se.clustered,
  };
}

/** A sample's replicate (`meta.replicate`, 0-based), 0 when it has none. */
export function replicateOf(s: Pick<SampleResult, 'meta'>): number {
  const r = s.meta?.replicate;
  return typeof r === 'number' ? r : 0;
}

/** `sha256:<hex>` of `text` (UTF-8). */
export function sha256Prefixed(text: string): string {
  return `sha256:${sha256Hex(text)}`;
}

/** The hex SHA-256 of `text` (UTF-8). */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A JSON value as text: a string as it is, anything else as JSON (`null` → `"null"`). */
export function jsonText(v: Json | undefined): string {
  return typeof v === 'string' ? v : JSON.stringify(v ?? null);
}

/**
 * A model spec (`kind:name`, e.g. `openai:gpt-4o-mini`, `baseline:random`) in the `developer/name` form other tools use
 * (`openai/gpt-4o-mini`); a spec without `:` is kept. Only the first `:` is replaced.
 */
export function modelPath(model: string): string {
  const i = model.indexOf(':');
  return i === -1 ? model : `${model.slice(0, i)}/${model.slice(i + 1)}`;
}

/** `text` made safe as one path component: anything but letters, digits, `.`, `_`, `-` becomes `_` (never empty, `.`, `..`). */
export function safeName(text: string): string {
  const s = text.replace(/[^A-Za-z0-9._-]/g, '_');
  return s === '' || s === '.' || s === '..' ? `_${s}` : s;
}

/**
 * The user message text of a call (the last `user` message; the prompt the level sent), or '' when it has none.
 */
export function userText(messages: readonly { role: string; content: string }[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'user') return messages[i]!.content;
  return '';
}

/** The graded call of an attempt (the one the scorer judged: purpose `graded`, the last such), or its last call. */
export function gradedCall<C extends { purpose: string }>(calls: readonly C[]): C | undefined {
  for (let i = calls.length - 1; i >= 0; i--) if (calls[i]!.purpose === 'graded') return calls[i];
  return calls[calls.length - 1];
}

/**
 * The HPT facts of a run every format carries (in its extension fields): the run id, mode, compat, ladder (strategy
 * ids by level), m, HPI_Dataset, HPI, accuracy, n (recorded scores), samples (done rows), the level counts (`"1"`..`"m"`
 * and `unsolved`), the prompt hash of each level (by strategy id), the fingerprint's hash and the fingerprint itself.
 */
export interface HptRunFacts {
  runId: string;
  dataset: string;
  model: string;
  mode: string;
  compat: string;
  ladder: string[];
  m: number;
  hpiDataset: number;
  hpi: number;
  accuracy: number;
  n: number;
  samples: number;
  levelCounts: Record<string, number>;
  promptHashes: Record<string, string>;
  fingerprintHash: string | null;
  fingerprint: RunFingerprint | null;
}

/** The `HptRunFacts` of an exported run (pure). */
export function hptRunFacts(r: ExportRun): HptRunFacts {
  return {
    runId: r.run.id,
    dataset: r.report.dataset,
    model: r.report.model,
    mode: r.report.mode,
    compat: r.report.compat,
    ladder: r.report.ladder,
    m: r.m,
    hpiDataset: r.hpiDataset,
    hpi: r.report.hpi,
    accuracy: r.report.accuracy,
    n: r.report.n,
    samples: r.report.samples,
    levelCounts: r.report.levelCounts,
    promptHashes: r.fingerprint?.prompts ?? {},
    fingerprintHash: r.fingerprintHash,
    fingerprint: r.fingerprint,
  };
}

/** The HPT facts of one sample every format carries: level (null: unsolved), HPI, solved, replicate, and each attempt. */
export interface HptSampleFacts {
  level: number | null;
  hpi: number;
  solved: boolean;
  replicate: number;
  iteration?: number;
  attempts: { level: number; strategy: string; solved: boolean; score: number; extracted: Json }[];
}

/** The `HptSampleFacts` of a sample (pure). */
export function hptSampleFacts(s: ExportSample): HptSampleFacts {
  return {
    level: s.level,
    hpi: s.hpi,
    solved: s.solved,
    replicate: s.replicate,
    ...(s.iteration !== undefined ? { iteration: s.iteration } : {}),
    attempts: s.attempts.map((a) => ({ level: a.level, strategy: a.strategy, solved: a.solved, score: a.score, extracted: a.extracted })),
  };
}

/** Token totals and wall time (ms) over every call of a sample's attempts. */
export function sampleUsage(s: SampleResult): { input: number; output: number; reasoning: number | null; latencyMs: number } {
  let input = 0;
  let output = 0;
  let reasoning: number | null = null;
  let latencyMs = 0;
  for (const a of s.attempts)
    for (const c of a.calls) {
      input += c.usage.promptTokens;
      output += c.usage.completionTokens;
      if (typeof c.usage.reasoningTokens === 'number') reasoning = (reasoning ?? 0) + c.usage.reasoningTokens;
      latencyMs += c.latencyMs;
    }
  return { input, output, reasoning, latencyMs };
}

/**
 * The dataset as the Hugging Face Hub names it, when the run read it from the hub (fingerprint `data.source`
 * `hub:<repo>[/<config>]@<split>`): `{repo, config, split}`; else undefined.
 */
export function hubDataset(f: RunFingerprint | null): { repo: string; config: string | null; split: string | null } | undefined {
  const src = f?.data?.source;
  const m = typeof src === 'string' ? /^hub:([^/@]+\/[^/@]+)(?:\/([^@]+))?@(.+)$/.exec(src) : null;
  if (!m) return undefined;
  return { repo: m[1]!, config: m[2] ?? null, split: m[3] === '-' ? null : m[3]! };
}

/** A run's creation time as the `YYYY-MM-DDTHH-MM-SS.ffffff` stamp lm-eval and Inspect put in file names (UTC). */
export function fileStamp(iso: string): string {
  const d = new Date(iso);
  const t = Number.isNaN(d.getTime()) ? new Date(0) : d;
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${t.getUTCFullYear()}-${p(t.getUTCMonth() + 1)}-${p(t.getUTCDate())}T${p(t.getUTCHours())}-${p(t.getUTCMinutes())}-${p(t.getUTCSeconds())}.${p(t.getUTCMilliseconds(), 3)}000`;
}

/** Options of the writers: `now` (ms since the epoch) for the formats' "record created" times (default: the clock). */
export interface ExportWriteOptions {
  now?: number;
  /** `hf` only: the Hub dataset id to report under (default: the run's hub dataset, else `hpt-bench/<dataset>`) */
  hfDatasetId?: string;
}

