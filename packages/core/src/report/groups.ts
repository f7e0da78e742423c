/**
 * Comparability groups of runs (issue 16): reports never mix runs whose HPI means different things. Two runs are in
 * the same group when they agree on model (and its recorded label, `name`), dataset (and threshold), ladder (its level ids), mode (and selector),
 * compat, data (the content hash when known, else the data source, plus a generated dataset's filters) and
 * HPI_Dataset. A report takes the newest run of
 * each group unless runs are named, and labels each group by the parts that tell it apart from the other groups of
 * its dataset (`groupLabels`).
 */
import type { Json, ReportRun } from '@hpt-bench/sdk';
import { parseFingerprint } from '../run/fingerprint.js';
import type { RunRecord } from '../store/store.js';

/**
 * What defines a run's group. `ladderId` is the ladder's id or file name (display only: the key uses `ladder`, the
 * level ids); `data` is `sha256:<hex>` of the data when known, else its source (`--data` path, `<plugin>:<file>`,
 * `hub:...`, `generated`); a run without fingerprint and without `--data`: `split <name>` of its stored config, else
 * `unrecorded`.
 */
export interface RunGroup {
  /** the canonical key: equal keys = comparable runs of one model */
  key: string;
  model: string;
  /** the model's label (`RunConfig.name`, an evaluation file's model `name`), null without: part of the key when set */
  name: string | null;
  dataset: string;
  threshold: number | null;
  ladder: string[];
  ladderId: string;
  mode: string;
  selector: string | null;
  compat: string;
  data: string;
  /**
   * the data's readable name for labels (`dataName`): `split mini` (a split file the dataset's plugin ships), the base
   * name of a `--data` file (`boolq-mini.jsonl`), `hub <dataset>@<split>`, `generated`, else `data` as it is
   */
  dataName: string;
  /** generator filters of a generated dataset (`task=a,b; preset=x`), '' without: part of the data's identity */
  filters: string;
  hpiDataset: number | null;
  /** the run's reasoning effort (`--reasoning-effort`; issue #24), null without: runs at two efforts are two groups */
  effort: string | null;
}

const str = (v: Json | undefined): string | undefined => (typeof v === 'string' ? v : undefined);
const numOrNull = (v: Json | undefined): number | null => (typeof v === 'number' ? v : null);

/**
 * The group of a stored run (pure): from its fingerprint when it has one, else from its summary and stored config
 * (runs made before fingerprints were recorded). Never throws; missing fields become `null` / `''` / `default`.
 */
export function runGroup(run: Pick<RunRecord, 'dataset' | 'model' | 'mode' | 'config' | 'summary' | 'fingerprint'>): RunGroup {
  const s = (run.summary ?? {}) as Record<string, Json>;
  const c = (run.config ?? {}) as Record<string, Json>;
  const f = parseFingerprint(run.fingerprint);
  const ladder = Array.isArray(s.ladder) ? s.ladder.map(String) : (f?.ladderLevels ?? []);
  const ladderRef = f?.ladder ?? str(c.ladder) ?? 'hpf';
  const ladderId = ladderRef.slice(ladderRef.lastIndexOf('/') + 1).replace(/\.json$/i, '');
  const threshold = numOrNull(s.threshold) ?? f?.threshold ?? null;
  const mode = str(s.mode) ?? run.mode;
  const selector = mode === 'adaptive' ? (str(s.selector) ?? f?.selector ?? null) : null;
  const compat = str(s.compat) ?? f?.compat ?? str(c.compat) ?? 'strict';
  const data = f?.data?.contentHash ?? str(c.dataHash) ?? f?.data?.source ?? str(c.data) ?? (str(c.split) ? `split ${str(c.split)}` : 'unrecorded');
  const dataName = dataNameOf(f?.data?.source ?? str(c.data) ?? null, f?.data?.split ?? str(c.split) ?? null, str(c.data) !== undefined, data);
  const name = str(c.name) ?? null;
  const hpiDataset = numOrNull(s.hpiDataset) ?? f?.hpiDataset ?? numOrNull(c.hpiDataset);
  const rawFilters = f ? f.filters : c.filters && typeof c.filters === 'object' && !Array.isArray(c.filters) ? (c.filters as Record<string, string[]>) : null;
  const filters = Object.entries(rawFilters ?? {})
    .filter(([, v]) => Array.isArray(v) && v.length)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${[...v].map(String).sort().join(',')}`)
    .join('; ');
  const generation = c.generation && typeof c.generation === 'object' && !Array.isArray(c.generation) ? (c.generation as Record<string, Json>) : {};
  const effort = f?.generation?.reasoningEffort ?? str(generation.reasoningEffort) ?? null;
  const g = { model: str(s.model) ?? run.model, name, dataset: str(s.dataset) ?? run.dataset, threshold, ladder, ladderId, mode, selector, compat, data, dataName, filters, hpiDataset, effort };
  // the optional parts (effort, name) join the key only when set, so the keys of runs without them stay as they were
  const key = JSON.stringify([g.model, g.dataset, g.threshold, g.ladder, g.mode, g.selector, g.compat, g.data, g.filters, g.hpiDataset, ...(effort !== null ? [effort] : []), ...(name !== null ? [{ name }] : [])]);
  return { key, ...g };
}

/**
 * The readable name of a run's data (pure; `RunGroup.dataName`): a split file the dataset's plugin ships
 * (`<plugin>:<path>`, no `--data`) is `split <name>` (or its file's base name without a split); a `--data` path its base
 * name (`boolq-mini.jsonl`); a hub source `hub <dataset>@<split>`; `generated` as is; without a source, `split <name>`
 * or `data` (`unrecorded`, a bare content hash) as it is.
 * @param source the fingerprint's data source, else the stored `--data` path; null when neither is recorded.
 * @param split the run's split, null without.
 * @param userFile whether the source is a `--data` path (not a file of the plugin).
 * @param data the group's `data` (the fallback).
 */
export function dataNameOf(source: string | null, split: string | null, userFile: boolean, data: string): string {
  if (source === null) return split !== null ? `split ${split}` : data.startsWith('sha256:') ? data.slice(7, 15) : data;
  if (source === 'generated') return 'generated';
  if (source.startsWith('hub:')) return `hub ${source.slice(4)}`;
  if (!userFile && split !== null) return `split ${split}`;
  const base = source.slice(Math.max(source.lastIndexOf('/'), source.lastIndexOf('\\'), userFile ? -1 : source.lastIndexOf(':')) + 1);
  return base || source;
}

/**
 * The data parts of the groups of one dataset (by group key): `data <name>` (`RunGroup.dataName`; `split mini` as
 * it is), with the first 8 hex digits of the content hash (else the whole source) added where two groups of different
 * data would get the same name (a file changed in place, two files of one base name).
 */
function dataLabels(list: readonly RunGroup[]): Map<string, string> {
  const dataOfName = new Map<string, Set<string>>();
  for (const g of list) dataOfName.set(g.dataName, (dataOfName.get(g.dataName) ?? new Set()).add(g.data));
  const short = (data: string) => (data.startsWith('sha256:') ? data.slice(7, 15) : data);
  return new Map(
    list.map((g) => {
      const name = dataOfName.get(g.dataName)!.size > 1 && short(g.data) !== g.dataName ? `${g.dataName} ${short(g.data)}` : g.dataName;
      return [g.key, name.startsWith('split ') ? name : `data ${name}`];
    }),
  );
}

/**
 * The distinguishing parts of each group (pure), by group key, besides model, mode, selector and compat (those are in
 * every row label already): `effort <e>` on every group with a reasoning effort; `<m>-level ladder (<ladder id>)` on every group when the groups have more than one ladder
 * (level ids) anywhere in the report; and among the groups of one dataset and threshold, the parts in which they
 * differ: the data by its readable name (`split mini`, `data boolq-mini.jsonl`, `data hub <id>`; with the hash
 * prefix where two data share a name: `dataLabels`), `filters <name>=<values>`, `HPI_Dataset <x>`. Groups that agree on
 * all of these get `[]`.
 */
export function groupParts(groups: readonly RunGroup[]): Map<string, string[]> {
  const byDataset = new Map<string, RunGroup[]>();
  for (const g of groups) {
    const k = `${g.dataset}\u0000${g.threshold ?? ''}`;
    const list = byDataset.get(k) ?? [];
    if (!list.some((x) => x.key === g.key)) list.push(g);
    byDataset.set(k, list);
  }
  const out = new Map<string, string[]>();
  // ladders are labelled report-wide: one row or one axis must not hold HPI of ladders of different lengths unlabelled,
  // even across datasets (a table's columns); data, filters and HPI_Dataset are properties of a dataset's runs
  const ladder = new Set(groups.map((g) => JSON.stringify(g.ladder))).size > 1;
  for (const list of byDataset.values()) {
    const differs = (f: (g: RunGroup) => string) => new Set(list.map(f)).size > 1;
    const data = differs((g) => g.data);
    const dataLabel = data ? dataLabels(list) : new Map<string, string>();
    const filters = differs((g) => g.filters);
    const hpiDataset = differs((g) => String(g.hpiDataset));
    for (const g of list) {
      const parts: string[] = [];
      if (g.effort !== null) parts.push(`effort ${g.effort}`);
      if (ladder) parts.push(`${g.ladder.length}-level ladder (${g.ladderId})`);
      if (data) parts.push(dataLabel.get(g.key)!);
      if (filters) parts.push(g.filters ? `filters ${g.filters}` : 'no filters');
      if (hpiDataset && g.hpiDataset !== null) parts.push(`HPI_Dataset ${g.hpiDataset}`);
      out.set(g.key, parts);
    }
  }
  return out;
}

/** The runs a selection keeps and leaves out (`latestPerGroup`). */
export interface GroupSelection<R> {
  kept: R[];
  /** older runs of a kept run's group, with the run that replaces them */
  omitted: { run: R; newer: R }[];
}

/**
 * The newest run of each group (pure): `runs` oldest first (the report order); a run is left out when a later run of
 * `runs` has the same group key. The kept runs stay in their order.
 */
export function latestPerGroup<R extends Pick<RunRecord, 'id'>>(runs: readonly R[], keyOf: (r: R) => string): GroupSelection<R> {
  const newest = new Map<string, R>();
  for (const r of runs) newest.set(keyOf(r), r);
  const kept: R[] = [];
  const omitted: { run: R; newer: R }[] = [];
  for (const r of runs) {
    const n = newest.get(keyOf(r))!;
    if (n === r) kept.push(r);
    else omitted.push({ run: r, newer: n });
  }
  return { kept, omitted };
}

/**
 * The row label of a run in the paper tables: the model (its recorded `name` when the run was made from an evaluation
 * file that names it, else the model id), plus the mode (adaptive + selector) and `[reference]` compat,
 * then the parts that tell its comparability group apart (`groupParts`, joined by ` · `: `6-level ladder (sixth)`,
 * `data a1b2c3d4`), so runs of one model and dataset with different ladders or data never share a row.
 */
export function modelLabel(run: Pick<ReportRun, 'model' | 'name' | 'mode' | 'selector' | 'compat' | 'groupParts'>): string {
  let s = run.name ?? run.model;
  if (run.mode === 'adaptive') s += ` (adaptive${run.selector ? `, ${run.selector}` : ''})`;
  if (run.compat === 'reference') s += ' [reference]';
  for (const p of run.groupParts ?? []) s += ` · ${p}`;
  return s;
}
