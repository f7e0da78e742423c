/**
 * Run fingerprints (issue 16): what a run was made with — hpt-bench's version, the plugins whose contributions it used
 * with their versions (a lockfile of the run), the data's source and content hash, the hash of each level's prompt,
 * models, endpoints, generation settings, seed, compat and the other result-relevant settings. Recorded with the run
 * when it is created (`runs.fingerprint`), printed by `hpt-bench runs show`, and compared by `compare` and `report`
 * (`fingerprintDifferences`). Never holds secrets: API keys are not part of a run's configuration, and base URLs are
 * stored without credentials (`credentialFreeUrl`).
 */
import { createHash } from 'node:crypto';
import type { Contribution, GenerationSettings, Json } from '@hpt-bench/sdk';
import { modelEndpoints } from '../exec/endpoints.js';
import { canonicalJson, replicatesOf, type RunConfig } from './config.js';
import type { PreparedRun } from './resolve.js';
import { credentialFreeUrl } from './secrets.js';

/** A plugin a run used: its package name, version and origin (`builtin`, `installed`, `local`). */
export interface FingerprintPlugin {
  name: string;
  version: string;
  origin: string;
  /** what the run used of it, as `<kind>:<id>` (`datasets:boolq`, `strategies:role-prompting`, ...), sorted */
  uses: string[];
}

/**
 * The fingerprint of a run (stored as JSON in `runs.fingerprint`).
 * - `hptBench`: the version of hpt-bench that created the run (`unknown` when the host did not say);
 * - `plugins`: the plugins whose contributions the run used (dataset, scorer, ladder, strategies, models, selector,
 *   prompt-pack additions), sorted by name;
 * - `data`: `source` is the `--data` path, else `<plugin>:<file>` for a file the dataset's plugin ships (a split or
 *   its own file; the plugin's version stands for its content), `hub:<dataset>[/<config>]@<split>` for a hub dataset,
 *   or `generated` (a dataset module that makes its samples, seeded); `contentHash` is `sha256:<hex>` of the `--data`
 *   content (`dataFingerprint`), null without `--data`;
 * - `prompts`: per ladder level's strategy id, `sha256:<hex>` over the exact prompt-pack entry used (with the pack's
 *   system prompt, cue and task template) and the strategy's own single-call template;
 * - `endpoints`: the credential-free endpoints (`Model.endpoint`; every endpoint of a model served by several) of the
 *   models (evaluated, knowledge, selector), sorted, without repeats;
 * - the rest mirror the run configuration (`ladder` is the ladder's id or file, `ladderLevels` its strategy ids).
 */
export interface RunFingerprint {
  hptBench: string;
  plugins: FingerprintPlugin[];
  data: { dataset: string; source: string; split: string | null; contentHash: string | null };
  ladder: string;
  ladderLevels: string[];
  prompts: Record<string, string>;
  model: string;
  knowledgeModel: string | null;
  selector: string | null;
  mode: string;
  endpoints: string[];
  /** the generation settings; `reasoningEffort` and `maxCompletionTokens` only when set (issue #24) */
  generation: { temperature: number; topP: number; maxTokens: number; seed: number | null; reasoningEffort?: string; maxCompletionTokens?: number };
  seed: number;
  compat: string;
  filters: Record<string, string[]> | null;
  limit: number | null;
  replicates: number;
  /**
   * `--full-ladder` (issue 28): every level ran on every sample (no early exit); present only when true, so the
   * fingerprints of early-exit runs are those recorded before the option existed
   */
  fullLadder?: true;
  hpiDataset: number;
  threshold: number | null;
  scorerOptions: Record<string, Json>;
}

/** Options of `buildFingerprint`: the host's version of hpt-bench (the CLI's `config.version`). */
export interface FingerprintOptions {
  hptBenchVersion?: string;
}

const sha256 = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/**
 * Where the run's samples come from (see `RunFingerprint.data.source`), in the order a declarative dataset looks: the
 * `--data` path, a split file the plugin ships (`<plugin>:<path>`), the hub, the plugin's own file, else `generated`
 * (a dataset module that makes its samples, seeded).
 */
function dataSource(prepared: PreparedRun, config: RunConfig): string {
  if (config.data) return config.data;
  const decl = prepared.datasetDecl;
  const plugin = prepared.contributions?.find((c) => c.kind === 'datasets')?.plugin.name ?? prepared.datasetId;
  const split = config.split ?? decl.defaultSplit;
  if (split && decl.splits?.[split]) return `${plugin}:${decl.splits[split]}`;
  if (decl.hub) return `hub:${decl.hub.dataset}${decl.hub.config ? `/${decl.hub.config}` : ''}@${split ?? decl.hub.split ?? '-'}`;
  if (decl.file && !split) return `${plugin}:${decl.file}`;
  return 'generated';
}

/**
 * The hash of the prompt of each ladder level (`RunFingerprint.prompts`): sha256 over the canonical JSON of the pack's
 * id, system prompt, cue and task template, the level's pack entry (template, knowledge template, chain steps; null
 * when the pack has none) and the strategy's single-call template (null when it has none).
 */
export function promptHashes(prepared: Pick<PreparedRun, 'pack' | 'levels'>, templates: Record<string, string | undefined> = {}): Record<string, string> {
  const { pack } = prepared;
  const out: Record<string, string> = {};
  for (const l of prepared.levels) {
    out[l.strategyId] = sha256(canonicalJson({ pack: { id: pack.id, system: pack.system ?? null, cue: pack.cue, task: pack.task ?? null }, entry: pack.strategies[l.packEntry ?? l.strategyId] ?? null, template: templates[l.strategyId] ?? null }));
  }
  return out;
}

/**
 * The plugins used by a run, from the contributions it resolved: one entry per plugin package (name, version, origin)
 * with what it contributed, sorted by name.
 */
export function usedPlugins(contributions: readonly Contribution[]): FingerprintPlugin[] {
  const byName = new Map<string, FingerprintPlugin>();
  for (const c of contributions) {
    const p = byName.get(c.plugin.name) ?? { name: c.plugin.name, version: c.plugin.version, origin: c.plugin.origin, uses: [] };
    const use = `${c.kind}:${c.id}`;
    if (!p.uses.includes(use)) p.uses.push(use);
    byName.set(c.plugin.name, p);
  }
  return [...byName.values()].map((p) => ({ ...p, uses: p.uses.sort() })).sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The fingerprint of a prepared run with its final configuration (`config` carries `dataHash` once `executeRun` has
 * hashed the data). Pure apart from reading `prepared`; never contains an API key or credentials of a base URL.
 */
export function buildFingerprint(prepared: PreparedRun, config: RunConfig, options: FingerprintOptions = {}): RunFingerprint {
  const endpoints = new Set<string>();
  for (const m of [prepared.model, prepared.knowledgeModel, prepared.selector?.model, prepared.extractorModel]) if (m) for (const e of modelEndpoints(m)) endpoints.add(credentialFreeUrl(e));
  const g: GenerationSettings = config.generation;
  const threshold = prepared.scorerOptions.threshold;
  const { unsafeSandbox: _unsafe, ...scorerOptions } = prepared.scorerOptions;
  return {
    hptBench: options.hptBenchVersion ?? 'unknown',
    plugins: usedPlugins(prepared.contributions ?? []),
    data: { dataset: prepared.datasetId, source: dataSource(prepared, config), split: config.split ?? null, contentHash: config.dataHash ?? null },
    ladder: config.ladder,
    ladderLevels: prepared.ladderIds,
    prompts: promptHashes(prepared, prepared.strategyTemplates ?? {}),
    model: prepared.model.id,
    knowledgeModel: prepared.knowledgeModel !== prepared.model ? prepared.knowledgeModel.id : null,
    selector: prepared.selector?.spec ?? null,
    mode: config.mode ?? 'manual',
    endpoints: [...endpoints].sort(),
    generation: {
      temperature: g.temperature,
      topP: g.topP,
      maxTokens: g.maxTokens,
      seed: g.seed ?? null,
      ...(g.reasoningEffort !== undefined ? { reasoningEffort: g.reasoningEffort } : {}),
      ...(g.maxCompletionTokens !== undefined ? { maxCompletionTokens: g.maxCompletionTokens } : {}),
    },
    seed: config.seed,
    compat: config.compat,
    filters: config.filters && Object.keys(config.filters).length ? config.filters : null,
    limit: config.limit ?? null,
    replicates: replicatesOf(config),
    ...(config.fullLadder ? { fullLadder: true as const } : {}),
    hpiDataset: prepared.hpiDataset,
    threshold: typeof threshold === 'number' ? threshold : null,
    scorerOptions,
  };
}

/** One field two fingerprints disagree on: its dotted path (`data.contentHash`, `plugins.@x/y`) and both values. */
export interface FingerprintDifference {
  field: string;
  a: Json;
  b: Json;
}

/**
 * Fields of a fingerprint that are not compared by `fingerprintDifferences`: the model (what comparisons vary) and the
 * endpoints (the model's address; a different endpoint means a different model server).
 */
const NOT_COMPARED = new Set(['model', 'endpoints']);

/**
 * The fields in which two run fingerprints differ, ignoring the model id and its endpoints (pure; `[]` when they agree
 * in everything else). Nested objects are compared field by field (`generation.temperature`, `data.contentHash`,
 * `prompts.role-prompting`); plugins by package name (`plugins.<name>`: its version, or null when only one run used
 * it; a plugin only one run uses, for its evaluated model alone, is part of the model and ignored); arrays as a
 * whole; `data.source` only when a run has no content hash (with both, `data.contentHash` is the data's identity).
 * Values are JSON (absent = null). Order: the fingerprint's field order.
 */
export function fingerprintDifferences(a: RunFingerprint, b: RunFingerprint): FingerprintDifference[] {
  const out: FingerprintDifference[] = [];
  const same = (x: unknown, y: unknown) => canonicalJson(x ?? null) === canonicalJson(y ?? null);
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  for (const k of keys) {
    if (NOT_COMPARED.has(k)) continue;
    const va = (a as unknown as Record<string, Json>)[k] ?? null;
    const vb = (b as unknown as Record<string, Json>)[k] ?? null;
    if (k === 'plugins') {
      const pa = new Map((a.plugins ?? []).map((p) => [p.name, p]));
      const pb = new Map((b.plugins ?? []).map((p) => [p.name, p]));
      for (const name of [...new Set([...pa.keys(), ...pb.keys()])].sort()) {
        const x = pa.get(name);
        const y = pb.get(name);
        // a plugin only one run uses, and only for its evaluated model, is part of the model, not a difference
        if (!x && y && onlyModel(b, y)) continue;
        if (!y && x && onlyModel(a, x)) continue;
        if (x?.version !== y?.version) out.push({ field: `plugins.${name}`, a: x?.version ?? null, b: y?.version ?? null });
      }
      continue;
    }
    if (va && vb && typeof va === 'object' && typeof vb === 'object' && !Array.isArray(va) && !Array.isArray(vb)) {
      for (const sub of [...new Set([...Object.keys(va), ...Object.keys(vb)])]) {
        // the content hash identifies the data (as in `configHash`): the same content under another path is the same data
        if (k === 'data' && sub === 'source' && a.data?.contentHash && b.data?.contentHash) continue;
        if (!same(va[sub], vb[sub])) out.push({ field: `${k}.${sub}`, a: va[sub] ?? null, b: vb[sub] ?? null });
      }
      continue;
    }
    if (!same(va, vb)) out.push({ field: k, a: va, b: vb });
  }
  return out;
}

/** Whether plugin `p` of run `f` contributes nothing but the kind of its evaluated model (`models:<kind>`). */
function onlyModel(f: RunFingerprint, p: FingerprintPlugin): boolean {
  const kind = f.model.includes(':') ? f.model.slice(0, f.model.indexOf(':')) : f.model;
  return p.uses.length > 0 && p.uses.every((u) => u === `models:${kind}`);
}

/**
 * A stored fingerprint (`runs.fingerprint` JSON) read back, or null for a run written before fingerprints were
 * recorded or a value that is not an object.
 */
export function parseFingerprint(value: Json | null | undefined): RunFingerprint | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  return value as unknown as RunFingerprint;
}

/**
 * What identifies the data of a run (issue 25): the samples behind its sample ids. `compare` pairs two runs' samples
 * by id, which is only meaningful when both runs have the same data; `dataDifferences` says when they do not.
 * - `dataset`: the dataset id;
 * - `contentHash`: `sha256:<hex>` of `--data` (null without `--data`): with both hashes known, the content decides,
 *   whatever the files' paths;
 * - `source`: where the samples come from (`RunFingerprint.data.source`: the `--data` path, `<plugin>:<file>` of a
 *   shipped split, `hub:<dataset>@<split>`, `generated`), which names the split for all but generated datasets;
 * - `split`: the `--split` given (null: the dataset's default);
 * - `seed`, `compat`: a generated dataset's (`source` "generated") seed and compat mode, which draw its samples
 *   (DatasetLoadOptions); null for other sources.
 * A run without fingerprint (made before fingerprints were recorded) is described by its stored configuration:
 * `contentHash` = its `dataHash`, `source` = its `--data` path (null without), `split`, and no seed or compat (whether
 * its dataset was generated is not recorded). The model, endpoints, reasoning effort, ladder, limit and filters are not
 * part of the data: limits and filters select samples, they do not change them.
 */
export interface DataIdentity {
  dataset: string;
  contentHash: string | null;
  source: string | null;
  split: string | null;
  seed: number | null;
  compat: string | null;
}

/** The data identity of a stored run (pure; see `DataIdentity`): from its fingerprint, else its stored config. */
export function dataIdentity(run: { dataset: string; config?: Record<string, Json> | null; fingerprint?: Record<string, Json> | null }): DataIdentity {
  const f = parseFingerprint(run.fingerprint);
  const c = run.config ?? {};
  const str = (v: Json | undefined): string | null => (typeof v === 'string' && v !== '' ? v : null);
  if (f?.data) {
    const generated = f.data.source === 'generated';
    return {
      dataset: f.data.dataset ?? run.dataset,
      contentHash: f.data.contentHash ?? null,
      source: f.data.source ?? null,
      split: f.data.split ?? null,
      seed: generated && typeof f.seed === 'number' ? f.seed : null,
      compat: generated && typeof f.compat === 'string' ? f.compat : null,
    };
  }
  return { dataset: run.dataset, contentHash: str(c.dataHash), source: str(c.data), split: str(c.split), seed: null, compat: null };
}

/**
 * The fields in which two runs' data differ (pure; `[]`: the same data, so their samples may be paired by id), as
 * `{field, a, b}` with field names of the fingerprint:
 * - `data.dataset` when the dataset ids differ;
 * - `data.contentHash` when both runs have a content hash and the hashes differ (equal hashes: the same data, even
 *   under other paths or splits), else `data.source` when the sources differ;
 * - `data.split` when the splits differ and the source does not name the split (a generated dataset, or a run without
 *   fingerprint and without `--data`), or when the data differ already (named as well, to say how);
 * - `seed` and `compat` when both runs' data are generated and these differ.
 */
export function dataDifferences(a: DataIdentity, b: DataIdentity): FingerprintDifference[] {
  const out: FingerprintDifference[] = [];
  const differ = (x: Json, y: Json) => canonicalJson(x) !== canonicalJson(y);
  const check = (field: string, x: Json, y: Json) => {
    if (differ(x, y)) out.push({ field, a: x, b: y });
  };
  check('data.dataset', a.dataset, b.dataset);
  const hashed = a.contentHash !== null && b.contentHash !== null;
  if (hashed) check('data.contentHash', a.contentHash, b.contentHash);
  else check('data.source', a.source, b.source);
  const generated = !hashed && a.source === 'generated' && b.source === 'generated';
  const splitUnnamed = !hashed && (generated || (a.source === null && b.source === null));
  if (differ(a.split, b.split) && (out.length > 0 || splitUnnamed)) out.push({ field: 'data.split', a: a.split, b: b.split });
  if (generated) {
    check('seed', a.seed, b.seed);
    check('compat', a.compat, b.compat);
  }
  return out;
}

/**
 * The fields of `dataDifferences` with both values, for a one-line message: `data.split (A "mini", B null)`, values as
 * JSON cut to 60 characters, joined by "; ".
 */
export function describeDataDifferences(diff: readonly FingerprintDifference[]): string {
  const show = (v: Json) => {
    const s = JSON.stringify(v);
    return s.length > 60 ? `${s.slice(0, 57)}...` : s;
  };
  return diff.map((d) => `${d.field} (A ${show(d.a)}, B ${show(d.b)})`).join('; ');
}
