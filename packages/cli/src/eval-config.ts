/**
 * Evaluation files (`hpt-bench run --config eval.yaml`, issue 16): read a YAML or JSON file, validate it against
 * schemas/eval-config.schema.json, and expand it into the cells of its matrix (every model × every dataset), each cell
 * a set of `run` flag values. The cells then run through the same code path as a single `hpt-bench run` (matrix.ts),
 * so a cell's run configuration, and its resume hash, equal those of the same run given as flags.
 *
 * Precedence of a value: a flag given on the command line > the dataset's or model's own entry > the file's top-level
 * entry > the flag's default. Which flags the command line gave is read from the raw argv (`explicitFlags`): oclif's
 * parse result does not tell a default from a given value.
 */
import { readFileSync } from 'node:fs';
import { dirname, extname, isAbsolute, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { HptError, schemaValidator, storeIsPath } from '@hpt-bench/core';

/** The yaml package, loaded when an evaluation file is first read: a run without `--config` never pays its start-up. */
const loadYaml = (): typeof import('yaml') => createRequire(import.meta.url)('yaml') as typeof import('yaml');

/** Generation settings of a file (`generation:` at the top or in a model). */
export interface EvalGeneration {
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  /** `--max-completion-tokens` */
  maxCompletionTokens?: number;
  /** `--reasoning-effort`; a list is an axis of the matrix (one run per effort, labelled `<model>@<effort>`) */
  reasoningEffort?: string | string[];
}

/** A dataset entry of an evaluation file (schemas/eval-config.schema.json `#/$defs/dataset`). */
export interface EvalDataset {
  id: string;
  name?: string;
  data?: string;
  split?: string;
  limit?: number;
  filters?: Record<string, string | string[]>;
  threshold?: number;
  hpiDataset?: number;
}

/** A model entry of an evaluation file (`#/$defs/model`). */
export interface EvalModel {
  id: string;
  name?: string;
  /** one endpoint, or several serving this model (replicas: calls spread over them) */
  baseUrl?: string | string[];
  cacheKeyEndpoint?: boolean;
  apiKeyEnv?: string;
  knowledgeModel?: string;
  generation?: EvalGeneration;
  concurrency?: number;
  timeout?: number;
}

/** A validated evaluation file (schemas/eval-config.schema.json). */
export interface EvalFile {
  datasets: EvalDataset[];
  models: EvalModel[];
  mode?: 'manual' | 'adaptive';
  selector?: string;
  selectorBaseUrl?: string;
  ladder?: string;
  /** `--full-ladder`: every level on every sample (no early exit); manual mode only */
  fullLadder?: boolean;
  compat?: 'strict' | 'reference';
  /** `--extractor`: the model asked for the answer when the strict rules read none */
  extractor?: string;
  seed?: number;
  replicates?: number;
  limit?: number;
  concurrency?: number;
  generation?: EvalGeneration;
  apiKeyEnv?: string;
  baseUrl?: string | string[];
  cacheKeyEndpoint?: boolean;
  timeout?: number;
  maxRetries?: number;
  cache?: boolean;
  /** `run --batch`: the OpenAI Batch API, level by level */
  batch?: boolean;
  onInvalid?: 'fail' | 'skip';
  prices?: string;
  store?: string;
  out?: string;
}

/** `run` flag values by flag name (`limit`, `base-url`, `filter`, ...), typed as oclif parses them. */
export type FlagValues = Record<string, string | number | boolean | string[] | undefined>;

/** One cell of the matrix: a model × dataset pair, its labels, and the flag values the file gives it. */
export interface EvalCell {
  /** the model's label: its `name`, else its id (`<label>@<effort>` for a cell of a list of reasoning efforts) */
  model: string;
  /** the model entry's `name`, when it has one (recorded as the run configuration's `name`: the run's label in reports) */
  name?: string;
  /** the dataset's label: its `name`, else its id */
  dataset: string;
  /** flag values from the file (paths absolute), before command-line flags override them */
  values: FlagValues;
}

/**
 * Read and validate an evaluation file: `.json` is parsed as JSON, anything else as YAML (1.2; duplicate keys are
 * errors). A UTF-8 BOM is allowed.
 * @param path the file as the user named it (errors repeat it as given).
 * @throws HptError `E_CONFIG`: the file cannot be read, does not parse (`eval.yaml: line 3, column 5: ...`), or does not
 *   match the schema (`eval.yaml: /models/1/concurrency must be >= 1`; up to 5 failures, `; `-separated).
 */
export function readEvalFile(path: string): EvalFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  } catch (e) {
    throw new HptError('E_CONFIG', `cannot read evaluation file ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  let value: unknown;
  const yaml = extname(path).toLowerCase() === '.json' ? undefined : loadYaml();
  try {
    value = yaml ? yaml.parse(text) : JSON.parse(text);
  } catch (e) {
    const where = yaml && e instanceof yaml.YAMLParseError && e.linePos ? `line ${e.linePos[0].line}, column ${e.linePos[0].col}: ` : '';
    const message = (e as Error).message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new HptError('E_CONFIG', `${path}: ${where}${message}`);
  }
  return validateEvalFile(value, path);
}

/**
 * Validate a parsed evaluation file against schemas/eval-config.schema.json and check what the schema cannot say
 * (unique model and dataset labels).
 * @throws HptError `E_CONFIG` `<what>: <json path> <reason>` for each failure (at most 5, most specific ones).
 */
export function validateEvalFile(value: unknown, what: string): EvalFile {
  const validate = schemaValidator('eval-config');
  if (!validate(value)) {
    const errors = validate.errors ?? [];
    const useful = errors.filter((e) => !['oneOf', 'anyOf', 'not', 'if'].includes(e.keyword));
    const lines = (useful.length ? useful : errors).map((e) => {
      const where = e.instancePath || '/';
      if (e.keyword === 'additionalProperties') return `${where} has an unknown property '${String((e.params as { additionalProperty: string }).additionalProperty)}'`;
      if (e.keyword === 'enum') return `${where} ${e.message} (${(e.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')})`;
      return `${where} ${e.message ?? e.keyword}`;
    });
    throw new HptError('E_CONFIG', `${what}: ${[...new Set(lines)].slice(0, 5).join('; ')}`, { hint: 'the format is schemas/eval-config.schema.json; `hpt-bench init` writes a commented example' });
  }
  const file = value as EvalFile;
  for (const [kind, labels] of [['models', file.models.map(modelLabel)], ['datasets', file.datasets.map(datasetLabel)]] as const) {
    const dup = labels.find((l, i) => labels.indexOf(l) !== i);
    if (dup !== undefined) throw new HptError('E_CONFIG', `${what}: /${kind} names '${dup}' twice; give one of them a distinct 'name'`);
  }
  return file;
}

/** A model's label (`EvalCell.model`). */
export function modelLabel(m: EvalModel): string {
  return m.name ?? m.id;
}

/** A dataset's label (`EvalCell.dataset`). */
export function datasetLabel(d: EvalDataset): string {
  return d.name ?? d.id;
}

/** Set `key` in `values` when `v` is defined. */
function put(values: FlagValues, key: string, v: string | number | boolean | string[] | undefined): void {
  if (v !== undefined) values[key] = v;
}

/** A file's `baseUrl` (one URL or a list) as the `--base-url` flag's value (a list: the flag may be given several times). */
function urlList(v: string | string[] | undefined): string[] | undefined {
  return v === undefined ? undefined : typeof v === 'string' ? [v] : v;
}

/** The generation settings as `run` flag values (numbers as the string flags take them). */
function generationValues(values: FlagValues, g: EvalGeneration | undefined): void {
  if (!g) return;
  put(values, 'temperature', g.temperature === undefined ? undefined : String(g.temperature));
  put(values, 'top-p', g.topP === undefined ? undefined : String(g.topP));
  put(values, 'max-tokens', g.maxTokens);
  put(values, 'max-completion-tokens', g.maxCompletionTokens);
  if (typeof g.reasoningEffort === 'string') put(values, 'reasoning-effort', g.reasoningEffort);
}

/**
 * The reasoning efforts a model's cells run at (issue #24): the model's own `generation.reasoningEffort`, else the
 * file's; a list gives one cell per effort (labelled `<model>@<effort>`), a single value or none one cell (unlabelled).
 */
function effortsOf(m: EvalModel, file: EvalFile): (string | undefined)[] {
  const e = m.generation?.reasoningEffort ?? file.generation?.reasoningEffort;
  return Array.isArray(e) ? e : [undefined];
}

/**
 * Expand an evaluation file into its cells: for each model (outer), each of its reasoning efforts when
 * `generation.reasoningEffort` is a list (`effortsOf`), and each dataset (inner), the flag values of the
 * file, top-level entries first and the model's and dataset's own entries over them. Relative paths (`data`, `prices`,
 * `store`, `out`, a `ladder` ending in `.json`) are made absolute against `baseDir` (the file's directory); `out`
 * keeps its `{model}` / `{dataset}` placeholders (`outPath`).
 */
export function expandEvalFile(file: EvalFile, baseDir: string): EvalCell[] {
  const at = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));
  const top: FlagValues = {};
  put(top, 'mode', file.mode);
  put(top, 'selector', file.selector);
  put(top, 'selector-base-url', file.selectorBaseUrl);
  put(top, 'ladder', file.ladder === undefined ? undefined : file.ladder.endsWith('.json') ? at(file.ladder) : file.ladder);
  put(top, 'full-ladder', file.fullLadder);
  put(top, 'compat', file.compat);
  put(top, 'extractor', file.extractor);
  put(top, 'seed', file.seed);
  put(top, 'replicates', file.replicates);
  put(top, 'limit', file.limit);
  put(top, 'concurrency', file.concurrency);
  generationValues(top, file.generation);
  put(top, 'api-key-env', file.apiKeyEnv);
  put(top, 'base-url', urlList(file.baseUrl));
  put(top, 'cache-key-endpoint', file.cacheKeyEndpoint);
  put(top, 'timeout', file.timeout === undefined ? undefined : String(file.timeout));
  put(top, 'max-retries', file.maxRetries);
  put(top, 'cache', file.cache);
  put(top, 'batch', file.batch);
  put(top, 'on-invalid', file.onInvalid);
  put(top, 'prices', file.prices === undefined ? undefined : at(file.prices));
  put(top, 'store', file.store === undefined ? undefined : storeIsPath(file.store) ? at(file.store) : file.store);
  put(top, 'out', file.out === undefined ? undefined : at(file.out));
  const cells: EvalCell[] = [];
  for (const m of file.models) {
    for (const [effort, d] of effortsOf(m, file).flatMap((e) => file.datasets.map((ds) => [e, ds] as const))) {
      const values: FlagValues = { ...top, model: m.id, dataset: d.id };
      put(values, 'base-url', urlList(m.baseUrl));
      put(values, 'cache-key-endpoint', m.cacheKeyEndpoint);
      put(values, 'api-key-env', m.apiKeyEnv);
      put(values, 'knowledge-model', m.knowledgeModel);
      generationValues(values, m.generation);
      put(values, 'concurrency', m.concurrency);
      put(values, 'timeout', m.timeout === undefined ? undefined : String(m.timeout));
      put(values, 'data', d.data === undefined ? undefined : at(d.data));
      put(values, 'split', d.split);
      put(values, 'limit', d.limit);
      put(values, 'filter', d.filters === undefined ? undefined : Object.entries(d.filters).map(([k, v]) => `${k}=${(Array.isArray(v) ? v : [v]).join(',')}`));
      put(values, 'threshold', d.threshold === undefined ? undefined : String(d.threshold));
      put(values, 'hpi-dataset', d.hpiDataset === undefined ? undefined : String(d.hpiDataset));
      put(values, 'reasoning-effort', effort);
      cells.push({ model: effort === undefined ? modelLabel(m) : `${modelLabel(m)}@${effort}`, ...(m.name !== undefined && m.name !== m.id ? { name: m.name } : {}), dataset: datasetLabel(d), values });
    }
  }
  return cells;
}

/**
 * Read, validate and expand an evaluation file (`readEvalFile`, `expandEvalFile` against the file's directory).
 * @throws HptError `E_CONFIG` as `readEvalFile`.
 */
export function loadEvalFile(path: string): EvalCell[] {
  return expandEvalFile(readEvalFile(path), dirname(resolve(path)));
}

/**
 * The flags of one cell: `parsed` (oclif's result: command-line values and flag defaults), with the cell's file
 * values over every flag the command line did not give (`explicit`, from `explicitFlags`).
 */
export function cellFlags<F extends object>(parsed: F, explicit: ReadonlySet<string>, cell: EvalCell): F {
  const out = { ...parsed } as Record<string, unknown>;
  for (const [k, v] of Object.entries(cell.values)) if (!explicit.has(k)) out[k] = v;
  return out as F;
}

/**
 * A cell's `--out` file: `{model}` and `{dataset}` in `template` replaced by the cell's labels, with every character
 * other than letters, digits, `.`, `_`, `-` as `_` (`openai:gpt-4o-mini` → `openai_gpt-4o-mini`).
 */
export function outPath(template: string, cell: Pick<EvalCell, 'model' | 'dataset'>): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '_');
  return template.replaceAll('{model}', safe(cell.model)).replaceAll('{dataset}', safe(cell.dataset));
}

/** What `explicitFlags` needs of a flag definition (oclif's `Flags.*` objects have these). */
export interface FlagShape {
  type: string;
  char?: string;
  allowNo?: boolean;
}

/**
 * The flags a raw command line gives explicitly, by name: `--name value`, `--name=value`, `--no-name` (a flag with
 * `allowNo`), `-c value`, `-c=value`, `-cvalue`. A value token after an option flag is skipped, so it is never read as
 * a flag. Tokens after `--` and unknown flags are ignored (oclif reports those).
 * @param flags the command's flag definitions by name (its `flags` and `baseFlags`).
 */
export function explicitFlags(argv: readonly string[], flags: Readonly<Record<string, FlagShape>>): Set<string> {
  const byChar = new Map<string, string>();
  for (const [name, f] of Object.entries(flags)) if (f.char) byChar.set(f.char, name);
  const given = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    let name: string | undefined;
    let inlineValue = false;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const raw = a.slice(2, eq < 0 ? undefined : eq);
      inlineValue = eq >= 0;
      if (flags[raw]) name = raw;
      else if (raw.startsWith('no-') && flags[raw.slice(3)]?.allowNo) name = raw.slice(3);
    } else if (/^-[A-Za-z]/.test(a)) {
      name = byChar.get(a[1]!);
      inlineValue = a.length > 2;
    }
    if (name === undefined) continue;
    given.add(name);
    if (flags[name]!.type === 'option' && !inlineValue) i++;
  }
  return given;
}
