/**
 * Resolution of a run: the registry's datasets (with their prompt packs), ladders and strategies, models, scorers and
 * selectors for a configuration. Everything that can fail before a model is called fails here, with a clear error.
 * Nothing here calls a model, opens the store or wraps a model in a client: the engine is built by `createEngine`
 * with the clients of a `RunSession`.
 */
import type { DependencyContainer } from 'tsyringe';
import { type Contribution, type Dataset, type DatasetDecl, HptError, type Json, type LadderDecl, type Logger, type Model, type PromptPack, readJsonText, type Scorer, type Selector, type Strategy, type StrategyDecl, Tokens } from '@hpt-bench/sdk';
import { DeclarativeDataset } from '../data/declarative.js';
import { EndpointSpread } from '../exec/endpoints.js';
import { LadderEngine, type LadderLevel, type LadderSetup } from '../ladder/engine.js';
import { AdaptiveEngine, taskTemplate } from '../ladder/adaptive.js';
import { SingleCallStrategy } from '../ladder/single-call.js';
import { checkFilters } from '../plugins/filters.js';
import { instantiate } from '../plugins/host.js';
import type { Registry } from '../plugins/registry.js';
import { datasetPack, genericPackContributions, packAdditions } from '../prompt/pack.js';
import { checkRunConfig, type RunConfig } from './config.js';

/** Everything resolved for a run, before any sample is read. */
export interface PreparedRun {
  config: RunConfig;
  datasetId: string;
  dataset: Dataset;
  /**
   * a second instance of the dataset whose injected `Logger` says nothing (the same instance for a declarative
   * dataset), for the passes over the data besides the run's own (`countSamples`: the check before the run starts;
   * blocks taken over from a stopped worker), so a dataset's warnings are given once; undefined: `dataset`
   */
  scanDataset?: Dataset;
  datasetDecl: DatasetDecl;
  ladderIds: string[];
  /** the ladder's levels, level 1 first */
  levels: LadderLevel[];
  /** the dataset's prompt pack (the generic pack when it names none) */
  pack: PromptPack;
  /** the models as resolved (not wrapped in a client: `createEngine` routes the calls through the session's clients) */
  model: Model;
  knowledgeModel: Model;
  /** `--extractor`: the model asked for answers the strict rules do not read (undefined: none) */
  extractorModel?: Model;
  scorer: Scorer;
  scorerOptions: Record<string, Json>;
  /** the HPI_Dataset in force (the override, else the dataset's constant) */
  hpiDataset: number;
  /** true when the dataset names no prompt pack and the generic pack is used (samples get its input defaults) */
  genericPack: boolean;
  /** adaptive mode: the selector, its canonical spec (`llm:openai:llama3`) and its model when it asks one */
  selector?: { selector: Selector; spec: string; model?: Model };
  /**
   * the contributions the run resolved (dataset, prompt-pack additions, scorer, ladder, strategies, models, selector):
   * the plugins of its fingerprint (`buildFingerprint`)
   */
  contributions?: Contribution[];
  /** the single-call template of each ladder strategy that has one, by strategy id (part of the prompt hashes) */
  strategyTemplates?: Record<string, string>;
}

/**
 * Resolve a model id `<plugin model id>[:<name>]` (e.g. `openai:gpt-4o`, `baseline:oracle`) to an instance.
 * Several base URLs (`options.baseUrl` a list: `--base-url` given several times) make one instance per URL, spread
 * over by an `EndpointSpread` (exec/endpoints.ts); a list of one is that URL.
 * @throws HptError `E_CONFIG` when the list names an endpoint twice; what the plugin's constructor throws.
 */
export async function resolveModel(registry: Registry, container: DependencyContainer, id: string, options: Record<string, Json>): Promise<Model> {
  const colon = id.indexOf(':');
  const kind = colon < 0 ? id : id.slice(0, colon);
  const name = colon < 0 ? '' : id.slice(colon + 1);
  const c = registry.get('models', kind);
  const schema = (c.decl as { options?: { properties?: Record<string, unknown> } }).options;
  // Pass only the options this model declares (flags like --base-url mean nothing to a baseline).
  const own = Object.fromEntries(Object.entries(options).filter(([k]) => schema?.properties && k in schema.properties));
  const build = (o: Record<string, Json>) => instantiate<Model>(container, c, o, (child) => child.register(Tokens.ModelName, { useValue: name }));
  const urls = own.baseUrl;
  if (!Array.isArray(urls)) return build(own);
  if (urls.length <= 1) return build(urls.length ? { ...own, baseUrl: urls[0]! } : Object.fromEntries(Object.entries(own).filter(([k]) => k !== 'baseUrl')));
  const models: Model[] = [];
  for (const url of urls) models.push(await build({ ...own, baseUrl: url }));
  try {
    return new EndpointSpread(models);
  } catch (e) {
    throw new HptError('E_CONFIG', `--base-url of ${id}: ${(e as Error).message}; give each endpoint once`);
  }
}

/** Read a ladder: a contributed id, or a JSON file holding `{ "id", "levels" }`. */
export function resolveLadder(registry: Registry, ladder: string): LadderDecl {
  if (ladder.endsWith('.json')) {
    let raw: unknown;
    try {
      raw = JSON.parse(readJsonText(ladder));
    } catch (e) {
      throw new HptError('E_CONFIG', `cannot read ladder file ${ladder}: ${(e as Error).message}`);
    }
    const l = raw as Partial<LadderDecl>;
    if (!Array.isArray(l.levels) || l.levels.length === 0 || !l.levels.every((x) => typeof x === 'string')) {
      throw new HptError('E_CONFIG', `ladder file ${ladder} must hold {"id": "...", "levels": ["strategy-id", ...]}`);
    }
    const options = l.options as unknown;
    if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options) || Object.values(options).some((o) => typeof o !== 'object' || o === null || Array.isArray(o)))) {
      throw new HptError('E_CONFIG', `ladder file ${ladder}: "options" must map strategy ids to option objects, e.g. {"<strategy id>": {"<option>": 5}}`);
    }
    return { id: typeof l.id === 'string' ? l.id : ladder, levels: l.levels, ...(options ? { options: options as LadderDecl['options'] } : {}) };
  }
  return registry.get('ladders', ladder).decl;
}

/**
 * Resolve dataset, prompt pack, scorer, ladder strategies and models for `config` (everything that can fail before a
 * model is called fails here, with a clear error).
 */
export async function prepareRun(config: RunConfig, registry: Registry, container: DependencyContainer): Promise<PreparedRun> {
  const dc = registry.get('datasets', config.dataset);
  const decl = dc.decl;
  checkFilters(dc.id, decl, config.filters);
  checkRunConfig(config);
  const hpiDataset = config.hpiDataset ?? decl.hpiDataset;
  const { dataset, pack, genericPack } = await datasetSource(container, dc);
  const scanDataset = decl.module ? await instantiate<Dataset>(container, dc, {}, (child) => child.register(Tokens.Logger, { useValue: QUIET_LOGGER })) : dataset;
  const scorerRef = typeof decl.scorer === 'string' ? { id: decl.scorer, options: {} } : { id: decl.scorer.id, options: decl.scorer.options ?? {} };
  const scorerOptions: Record<string, Json> = { ...scorerRef.options, ...(config.scorerOptions ?? {}), ...(config.unsafeSandbox ? { unsafeSandbox: true } : {}) };
  // the scorer receives the same options by injection (Tokens.Options) as through prepare() and score()
  const scorer = await instantiate<Scorer>(container, registry.get('scorers', scorerRef.id), scorerOptions, undefined, 'pass');
  scorer.prepare?.({ compat: config.compat, options: scorerOptions });

  const scorerContribution = registry.get('scorers', scorerRef.id);
  // the packs the run's prompts come from: the dataset's additions, and the generic pack's parts when it names none
  const contributions: Contribution[] = [dc, ...(decl.promptPack ? [] : genericPackContributions(registry)), ...packAdditions(registry, dc), scorerContribution];
  const ladder = resolveLadder(registry, config.ladder);
  if (!config.ladder.endsWith('.json')) contributions.push(registry.get('ladders', config.ladder));
  const levels: LadderLevel[] = [];
  const strategyTemplates: Record<string, string> = {};
  for (const [i, sid] of ladder.levels.entries()) {
    const sc = registry.get('strategies', sid);
    contributions.push(sc);
    const sdecl = sc.decl as StrategyDecl;
    if (typeof sdecl.template === 'string') strategyTemplates[sc.id] = sdecl.template;
    const strategy = await strategyOf(container, sc, ladder.options?.[sid] ?? {});
    levels.push({ level: i + 1, strategyId: sc.id, strategy, ...(sdecl.packEntry !== undefined ? { packEntry: sdecl.packEntry } : {}) });
  }
  const model = await resolveModel(registry, container, config.model, config.modelOptions);
  contributions.push(modelContribution(registry, config.model));
  const knowledgeModel = config.knowledgeModel && config.knowledgeModel !== config.model ? await resolveModel(registry, container, config.knowledgeModel, config.modelOptions) : model;
  if (knowledgeModel !== model) contributions.push(modelContribution(registry, config.knowledgeModel!));
  let extractorModel: Model | undefined;
  if (config.extractor) {
    if (config.compat === 'reference') throw new HptError('E_CONFIG', '--extractor applies to --compat strict only (reference mode keeps the authors\' parsers)');
    if (!scorer.extract) throw new HptError('E_CONFIG', `--extractor: scorer ${scorerRef.id} has no strict extraction to complete (it declares no extract method)`);
    extractorModel = config.extractor === config.model ? model : await resolveModel(registry, container, config.extractor, config.modelOptions);
    if (extractorModel !== model) contributions.push(modelContribution(registry, config.extractor));
  }
  let selector: PreparedRun['selector'];
  if (config.mode === 'adaptive') {
    if (!config.selector) throw new HptError('E_CONFIG', 'adaptive mode needs a selector: --selector <model-id> (the paper\'s prompt-selector asking that model) or --selector fixed:<level>');
    const { contribution, argument } = resolveSelectorSpec(registry, config.selector);
    contributions.push(contribution);
    const instance = await instantiate<Selector>(container, contribution, {}, (child) => child.register(Tokens.SelectorArgument, { useValue: argument }));
    let selectorModel: Model | undefined;
    if (instance.needsModel) {
      const options = config.selectorBaseUrl ? { ...config.modelOptions, baseUrl: config.selectorBaseUrl } : config.modelOptions;
      selectorModel = argument === config.model && !config.selectorBaseUrl ? model : await resolveModel(registry, container, argument, options);
      contributions.push(modelContribution(registry, argument));
    }
    selector = { selector: instance, spec: `${contribution.id}${argument ? `:${argument}` : ''}`, ...(selectorModel ? { model: selectorModel } : {}) };
    // the plain task text must exist before any call (fails here with a clear error otherwise)
    taskTemplate({ pack, levels });
  } else if (config.selector) {
    throw new HptError('E_CONFIG', '--selector applies to --mode adaptive only');
  }
  if (config.prices) {
    // models without an endpoint (the baselines) make no paid requests and need no price
    const paid = [model, knowledgeModel, selector?.model, extractorModel].filter((m): m is Model => m !== undefined && m.endpoint !== undefined);
    const missing = [...new Set(paid.map((m) => m.id))].filter((id) => !config.prices![id]);
    if (missing.length) throw new HptError('E_CONFIG', `the prices file has no price for ${missing.join(', ')} (give "input" and "output" USD per 1M tokens for every model of the run that calls an endpoint)`);
  }
  return { config, datasetId: dc.id, dataset, scanDataset, datasetDecl: decl, ladderIds: levels.map((l) => l.strategyId), levels, pack, model, knowledgeModel, ...(extractorModel ? { extractorModel } : {}), scorer, scorerOptions, hpiDataset, genericPack, ...(selector ? { selector } : {}), contributions, strategyTemplates };
}

/**
 * The strategy instance of a ladder level, as a run builds it: a declarative `single-call` strategy becomes a
 * `SingleCallStrategy` (with the manifest's fallback `template`), a code strategy is instantiated with `options` (the
 * ladder's options for it) injected as `Tokens.Options`.
 * @throws HptError `E_PLUGIN` for a module that does not load, `E_OPTIONS` for options its schema refuses.
 */
export async function strategyOf(container: DependencyContainer, sc: Contribution<'strategies'>, options: Record<string, Json>): Promise<Strategy> {
  const sdecl = sc.decl as StrategyDecl;
  return sdecl.kind === 'single-call' ? new SingleCallStrategy(sc.id, sdecl.template) : instantiate<Strategy>(container, sc, options);
}

/** A logger that says nothing: the `scanDataset` instance's, and the default of the library calls (`evaluate()` and its siblings, `loadPlugins`, `verifyPlugin`). */
export const QUIET_LOGGER: Logger = { info: () => undefined, warn: () => undefined, debug: () => undefined };

/** The `models` contribution of a model id `<plugin model id>[:<name>]` (see `resolveModel`). */
function modelContribution(registry: Registry, id: string): Contribution {
  const colon = id.indexOf(':');
  return registry.get('models', colon < 0 ? id : id.slice(0, colon));
}


/**
 * The manual ladder's setup of a prepared run (levels, scorer, pack, HPI_Dataset, compat, generation settings, seed,
 * `--full-ladder`), its evaluated and knowledge models routed through `client` (`createEngine`: the session's clients;
 * `hpt-bench plan`: stand-ins that record requests).
 */
export function ladderSetup(prepared: PreparedRun, client: (model: Model) => Model): LadderSetup {
  const { config } = prepared;
  return {
    levels: prepared.levels,
    model: client(prepared.model),
    knowledgeModel: client(prepared.knowledgeModel),
    ...(prepared.extractorModel ? { extractor: client(prepared.extractorModel) } : {}),
    scorer: prepared.scorer,
    scorerOptions: prepared.scorerOptions,
    pack: prepared.pack,
    hpiDataset: prepared.hpiDataset,
    compat: config.compat,
    generation: config.generation,
    seed: config.seed,
    ...(config.fullLadder ? { fullLadder: true } : {}),
  };
}

/**
 * The engine of a prepared run, its models routed through `client` (a `RunSession`'s clients: cache, limiter,
 * retries): the manual ladder (hpt.md §2.1; every level with `--full-ladder`), or the adaptive HPF with the prepared selector (§2.3). The same model
 * object gets the same client, so a knowledge or selector model equal to the evaluated model shares its client.
 */
export function createEngine(prepared: PreparedRun, client: (model: Model) => Model): LadderEngine {
  const setup = ladderSetup(prepared, client);
  if (!prepared.selector) return new LadderEngine(setup);
  const selectorModel = prepared.selector.model;
  return new AdaptiveEngine({ ...setup, selector: prepared.selector.selector, ...(selectorModel ? { selectorModel: client(selectorModel) } : {}) });
}

/**
 * A dataset resolved for a command (`run`, `judge`, `calibrate --judge`): its canonical id, declaration, instance, and
 * prompt pack — the generic pack when the dataset names none (`genericPack`; its samples then need `withGenericInput`).
 */
export interface DatasetSource {
  datasetId: string;
  decl: DatasetDecl;
  dataset: Dataset;
  pack: PromptPack;
  genericPack: boolean;
}

/**
 * Instantiate a dataset contribution (code, or declarative) and load its prompt pack, with the entries `packs`
 * contributions of the container's registry add to it (`datasetPack`).
 * @throws HptError `E_PLUGIN` for a dataset module that does not load, `E_PACK` for a bad pack or a clashing entry.
 */
export async function datasetSource(container: DependencyContainer, dc: Contribution<'datasets'>): Promise<DatasetSource> {
  const decl = dc.decl;
  const dataset: Dataset = decl.module ? await instantiate<Dataset>(container, dc) : new DeclarativeDataset(decl, dc.plugin.root);
  // the dataset's pack plus the entries other plugins add to it (`packs` contributions)
  const registry = container.isRegistered(Tokens.Registry, true) ? (container.resolve(Tokens.Registry) as Registry) : undefined;
  const pack = datasetPack(dc, registry);
  return { datasetId: dc.id, decl, dataset, pack, genericPack: !decl.promptPack };
}

/**
 * `datasetSource` of dataset `id` (plain, qualified or alias).
 * @throws HptError `E_UNKNOWN_ID` / `E_AMBIGUOUS_ID` for the id, and what `datasetSource` throws.
 */
export async function resolveDatasetSource(registry: Registry, container: DependencyContainer, id: string): Promise<DatasetSource> {
  return datasetSource(container, registry.get('datasets', id));
}

/**
 * Read a `--selector` value (hpt.md §2.3): `<selector id>[:<argument>]` when the part before the first colon names a
 * selector contribution (`fixed:3`, `llm:openai:llama3`, a community selector), else the whole value is a model id for
 * the `llm` selector (`openai:llama3`, `baseline:random`).
 * @throws HptError `E_UNKNOWN_ID` when it names neither a selector nor a model kind (with suggestions).
 */
export function resolveSelectorSpec(registry: Registry, spec: string): { contribution: ReturnType<Registry['get']>; argument: string } {
  const colon = spec.indexOf(':');
  const head = colon < 0 ? spec : spec.slice(0, colon);
  const argument = colon < 0 ? '' : spec.slice(colon + 1);
  if (registry.has('selectors', head)) return { contribution: registry.get('selectors', head), argument };
  if (!registry.has('models', head)) {
    const known = [...new Set(registry.list('selectors').map((c) => c.id))].sort();
    throw new HptError('E_UNKNOWN_ID', `unknown selector '${spec}': give a selector (${known.map((k) => `${k}:...`).join(', ')}) or a model id for the llm selector (e.g. openai:llama3)`);
  }
  return { contribution: registry.get('selectors', 'llm'), argument: spec };
}
