/**
 * The plugin conformance kit (issue 27, item 3): `hpt-bench plugins verify DIR|TGZ` and `verifyPlugin()` from a
 * plugin's own tests. A plugin directory (or a packed `.tgz`, unpacked to a temporary directory with its bundled
 * dependencies) is discovered beside the installation's built-in plugins exactly as `--plugin DIR` would be, and each of
 * its contributions is built through the same injection as a run (`instantiate`, `strategyOf`, `datasetSource`) and
 * exercised without calling any remote endpoint (an endpoint model is pointed at a local OpenAI-compatible stand-in,
 * a report view gets a small run in a temporary store). The outcome is one row per contribution and check.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import {
  type CallRecord,
  type Contribution,
  type ContributionKind,
  type Dataset,
  HptError,
  isHptError,
  type Json,
  type Logger,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type PluginSource,
  type PromptPack,
  type Sample,
  type Scorer,
  type Selector,
  type Strategy,
  Tokens,
} from '@hpt-bench/sdk';
import { evaluate } from '../evaluate/evaluate.js';
import { loadPlugins } from '../evaluate/plugins.js';
import { LadderEngine } from '../ladder/engine.js';
import { withGenericInput } from '../prompt/pack.js';
import { gatherReport } from '../report/gather.js';
import { declaredTables, type ReportTable, viewTables } from '../report/tables.js';
import { type LoadedReportView, loadReportViews, type ReportViews } from '../report/views.js';
import { runConfig } from '../run/defaults.js';
import { datasetSource, QUIET_LOGGER, strategyOf } from '../run/resolve.js';
import { RunStore } from '../store/store.js';
import { createRunContainer, discoverPlugins, instantiate } from './host.js';
import { readPluginManifest } from './manifest.js';
import { kindNoun, type Registry } from './registry.js';
import { STAND_IN_REPLY, startStandIn, type StandInServer } from './stand-in-server.js';

/** The outcome of one check: `pass`, `fail`, or `skip` (the check does not apply; never a failure). */
export type VerifyStatus = 'pass' | 'fail' | 'skip';

/**
 * One row of a verification: the contribution (`dataset 'capitals'`, or the plugin's name for the manifest check), its
 * kind and id (absent for the manifest), the check (`manifest`, `load`, `records`, `target solves`, `empty fails`,
 * `wrong fails`, `runs`, `generate`, `select`, `levels`, `small run`, `declared`), its status and a one-line detail (the error message of a failure).
 */
export interface VerifyRow {
  contribution: string;
  kind?: ContributionKind;
  id?: string;
  check: string;
  status: VerifyStatus;
  detail: string;
}

/** The result of `verifyPlugin`: the plugin's name and root, every row, and `ok` (no row failed). */
export interface VerifyResult {
  plugin: string;
  root: string;
  ok: boolean;
  rows: VerifyRow[];
}

/**
 * Options of `verifyPlugin`:
 * - `records`: how many records of each dataset to load and score (default 5);
 * - `root`: the hpt-bench installation whose built-in plugins are loaded beside the plugin (default: found from this
 *   module, as `loadPlugins`); `installed`: also the plugins installed with `hpt-bench plugins` (default false, so a
 *   verification does not depend on the machine);
 * - `timeoutMs`: how long a model's `generate`, a strategy's run or a selector's `select` may take (default 10 s);
 * - `selectorArgument`: the argument a selector gets (`Tokens.SelectorArgument`, the part after `fixed:`; default `1`);
 * - `modelName`: the name a model is built with (`Tokens.ModelName`, the part after `baseline:`; default `verify`);
 * - `scorerOptions`: options added to every dataset's scorer options (e.g. `{ threshold: 0.15 }` for a scorer that
 *   requires one);
 * - `logger`: the plugins' `Tokens.Logger` (default: silent).
 */
export interface VerifyOptions {
  records?: number;
  root?: string;
  installed?: boolean;
  timeoutMs?: number;
  selectorArgument?: string;
  modelName?: string;
  scorerOptions?: Record<string, Json>;
  logger?: Logger;
}

const GENERATION = { temperature: 0.6, topP: 0.9, maxTokens: 64 };

/** A sample with the scorer and pack of its dataset: what strategies, models and selectors are exercised on. */
interface Probe {
  datasetId: string;
  sample: Sample;
  samples: Sample[];
  pack: PromptPack;
  scorer: Scorer;
  scorerOptions: Record<string, Json>;
  hpiDataset: number;
}

/**
 * Whether an error asks for configuration the verification does not give (an `HptError` `E_CONFIG` or `E_AUTH`: a
 * required scorer option, `--data`, an API key, a model name): the checks that need it are skipped, not failed.
 */
function needsConfiguration(e: unknown, codes: readonly string[] = ['E_CONFIG', 'E_AUTH']): boolean {
  return isHptError(e) && codes.includes(e.code);
}

/** The first line of an error's message (an `HptError`'s, or any thrown value's), at most 300 characters. */
function reason(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  return (text.split('\n')[0] ?? '').slice(0, 300);
}

/** `promise`, or a rejection after `ms` milliseconds naming `what`. */
async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Unpack a packed plugin (`npm pack` output, `.tgz` / `.tar.gz`) to a new temporary directory with the system `tar`.
 * @returns the package directory (npm's `package/` folder, else the single folder of the archive) and the temporary
 *   directory to remove afterwards.
 * @throws HptError `E_PLUGIN` when the archive cannot be unpacked.
 */
export function unpackPlugin(tgz: string): { root: string; tmp: string } {
  const tmp = mkdtempSync(join(tmpdir(), 'hpt-verify-'));
  try {
    execFileSync('tar', ['-xzf', resolve(tgz), '-C', tmp], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw new HptError('E_PLUGIN', `cannot unpack ${tgz}: ${reason((e as { stderr?: Buffer }).stderr?.toString() || e)}`);
  }
  const entries = readdirSync(tmp);
  const root = entries.includes('package') ? join(tmp, 'package') : entries.length === 1 && statSync(join(tmp, entries[0]!)).isDirectory() ? join(tmp, entries[0]!) : tmp;
  return { root, tmp };
}

/**
 * Verify a plugin (see the module comment): `target` is a plugin package directory or a packed `.tgz`. Checks, one
 * row each:
 * - the manifest against schemas/plugin-manifest.schema.json (an invalid manifest is the only row: nothing else runs);
 * - every contribution loads through the run's injection (`load`);
 * - a dataset: its first `records` samples load (`records`); for each, the scorer accepts its rendered target
 *   (`Scorer.renderTarget`, `target solves`) and refuses an empty answer (`empty fails`) and a wrong one
 *   (another sample's target, else a `Scorer.randomAnswer` draw avoiding the target; `wrong fails`);
 * - a strategy: one level run on a sample (of the plugin's own dataset, preferring one whose pack has wording for it;
 *   else of the first registered dataset with a `mini` split or a file: no download) against a stand-in model that
 *   records each request and answers the
 *   rendered target: at least one call, a graded output with string fields; the detail quotes the first prompt;
 * - a model: `generate` of a tiny request (with a call context) returns `{ text: string, usage }` in time; models with
 *   an endpoint are not called (skip);
 * - a selector: `select` returns a level within 1..m for m = 1, 3, 5 (its `call` answers `1`).
 * - a ladder: every level names a known strategy.
 * Packs, metrics and report views are checked by the manifest's schema and paths only (`declared`). A check that needs
 * configuration the kit does not give (an `HptError` `E_CONFIG`/`E_AUTH`: a required scorer option, `--data`, an API
 * key; for a model also `E_UNKNOWN_ID`, its name) is a `skip`.
 * The plugin is loaded beside the built-in plugins of the hpt-bench installation (`options.root`, else found from this
 * module as `loadPlugins` does); with no installation found, alone.
 * @throws HptError `E_PLUGIN` when `target` does not exist or cannot be unpacked, or has no hpt-bench manifest;
 *   `E_MANIFEST` / `E_PLUGIN` when a built-in plugin cannot be loaded. Failures of the plugin are rows, not errors.
 */
export async function verifyPlugin(target: string, options: VerifyOptions = {}): Promise<VerifyResult> {
  let abs = resolve(target);
  let tmp: string | undefined;
  try {
    statSync(abs);
  } catch {
    throw new HptError('E_PLUGIN', `no plugin at ${target}: give a plugin package directory or a packed .tgz`);
  }
  if (statSync(abs).isFile()) ({ root: abs, tmp } = unpackPlugin(abs));
  try {
    return await verifyDirectory(abs, options);
  } finally {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
}

async function verifyDirectory(root: string, options: VerifyOptions): Promise<VerifyResult> {
  const rows: VerifyRow[] = [];
  let source: PluginSource | undefined;
  try {
    source = readPluginManifest(root, 'local');
  } catch (e) {
    // the schema's whole message: every failing field
    rows.push({ contribution: `plugin at ${root}`, check: 'manifest', status: 'fail', detail: e instanceof Error ? e.message : String(e) });
    return { plugin: root, root, ok: false, rows };
  }
  if (!source) throw new HptError('E_PLUGIN', `${root} is not an hpt-bench plugin: its package.json has no "hpt-bench" manifest`);
  const counts = Object.entries(source.manifest.contributes).map(([k, v]) => `${(v as unknown[]).length} ${k}`);
  rows.push({ contribution: `plugin ${source.name}`, check: 'manifest', status: 'pass', detail: `valid (${counts.join(', ') || 'no contributions'})` });
  const logger = options.logger ?? QUIET_LOGGER;
  const { registry, container } = pluginsBeside(root, options, logger);
  const mine = <K extends ContributionKind>(kind: K) => registry.list(kind).filter((c) => c.plugin.name === source.name);
  const v = new Verifier(registry, container, rows, options);

  for (const c of mine('scorers')) await v.load(c, () => instantiate<Scorer>(container, c, {}, undefined, 'pass'));
  const ownProbes: Probe[] = [];
  for (const c of mine('datasets')) {
    const probe = await v.dataset(c);
    if (probe) ownProbes.push(probe);
  }
  for (const c of mine('strategies')) await v.strategy(c, ownProbes);
  for (const c of mine('models')) await v.model(c, ownProbes);
  for (const c of mine('selectors')) await v.selector(c, ownProbes);
  for (const c of mine('ladders')) {
    const missing = c.decl.levels.filter((sid) => !registry.has('strategies', sid));
    rows.push({ contribution: `ladder '${c.id}'`, kind: 'ladders', id: c.id, check: 'levels', status: missing.length ? 'fail' : 'pass', detail: missing.length ? `unknown strategies: ${missing.join(', ')}` : `${c.decl.levels.length} level(s), every strategy known` });
  }
  for (const c of mine('reports')) await v.reportView(c, ownProbes);
  for (const kind of ['packs', 'metrics'] as const) {
    for (const c of mine(kind)) rows.push({ contribution: `${kindNoun(kind)} '${c.id}'`, kind, id: c.id, check: 'declared', status: 'pass', detail: 'declared in a valid manifest' });
  }
  return { plugin: source.name, root, ok: rows.every((r) => r.status !== 'fail'), rows };
}

/**
 * The plugins a verification loads: the installation's (`loadPlugins`: built-ins, and installed ones when asked) with
 * the plugin as a `--plugin DIR` copy; when no hpt-bench installation is found (a plugin that depends on
 * `@hpt-bench/core` only) and no `root` was given, the plugin alone.
 */
function pluginsBeside(root: string, options: VerifyOptions, logger: Logger): { registry: Registry; container: DependencyContainer } {
  try {
    return loadPlugins({ ...(options.root ? { root: options.root } : {}), installed: options.installed ?? false, dirs: [root], logger });
  } catch (e) {
    if (options.root !== undefined || !isHptError(e) || !e.message.startsWith('no hpt-bench installation found')) throw e;
    const registry = discoverPlugins([{ root, origin: 'local' }]);
    const container = createRunContainer(registry);
    container.register(Tokens.Logger, { useValue: logger });
    return { registry, container };
  }
}

/** The checks of one verification, appending rows. */
class Verifier {
  private fallback: Probe | null | undefined;
  private readonly records: number;
  private readonly timeoutMs: number;

  constructor(
    private readonly registry: Registry,
    private readonly container: DependencyContainer,
    private readonly rows: VerifyRow[],
    private readonly options: VerifyOptions,
  ) {
    this.records = options.records ?? 5;
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  private row(c: Contribution, check: string, status: VerifyStatus, detail: string): void {
    this.rows.push({ contribution: `${kindNoun(c.kind)} '${c.id}'`, kind: c.kind, id: c.id, check, status, detail });
  }

  /**
   * Build a contribution (`load` row). `configurable`: the `HptError` codes that mean missing configuration (a skip).
   * @returns the instance, or undefined when it failed.
   */
  async load<T>(c: Contribution, build: () => Promise<T>, configurable: readonly string[] = []): Promise<T | undefined> {
    try {
      const instance = await build();
      this.row(c, 'load', 'pass', `built through injection (plugin ${c.plugin.name})`);
      return instance;
    } catch (e) {
      if (needsConfiguration(e, configurable)) this.row(c, 'load', 'skip', `needs configuration: ${reason(e)}`);
      else this.row(c, 'load', 'fail', reason(e));
      return undefined;
    }
  }

  /** Load a dataset's first samples, with its pack and scorer. Failures are rows; returns undefined then. */
  private async probeOf(c: Contribution<'datasets'>, record: boolean): Promise<Probe | undefined> {
    const decl = c.decl;
    const fail = (check: string, e: unknown) => {
      if (record) this.row(c, check, needsConfiguration(e) ? 'skip' : 'fail', needsConfiguration(e) ? `needs configuration: ${reason(e)}` : reason(e));
      return undefined;
    };
    let dataset: Dataset;
    let pack: PromptPack;
    let generic: boolean;
    try {
      ({ dataset, pack, genericPack: generic } = await datasetSource(this.container, c));
      if (record) this.row(c, 'load', 'pass', `built through injection (plugin ${c.plugin.name})`);
    } catch (e) {
      return fail('load', e);
    }
    const scorerRef = typeof decl.scorer === 'string' ? { id: decl.scorer, options: {} } : { id: decl.scorer.id, options: decl.scorer.options ?? {} };
    const scorerOptions: Record<string, Json> = { ...scorerRef.options, ...(this.options.scorerOptions ?? {}) };
    let scorer: Scorer;
    try {
      scorer = await instantiate<Scorer>(this.container, this.registry.get('scorers', scorerRef.id), scorerOptions, undefined, 'pass');
      scorer.prepare?.({ compat: 'strict', options: scorerOptions });
    } catch (e) {
      return fail('scorer', e);
    }
    const samples: Sample[] = [];
    const split = decl.splits?.mini !== undefined ? 'mini' : undefined;
    const cacheDir = join(tmpdir(), 'hpt-bench-verify-cache');
    try {
      const stream = dataset.load({ ...(split ? { split } : {}), onInvalid: 'fail', cacheDir, warn: () => undefined, seed: 0, compat: 'strict', filters: {} });
      for await (const s of stream) {
        samples.push(generic ? withGenericInput(s, pack) : s);
        if (samples.length >= this.records) break;
      }
      if (samples.length === 0) throw new Error('the dataset yielded no sample');
      if (record) this.row(c, 'records', 'pass', `${samples.length} sample(s) loaded${split ? ' (split mini)' : ''}`);
    } catch (e) {
      return fail('records', e);
    }
    return { datasetId: c.id, sample: samples[0]!, samples, pack, scorer, scorerOptions, hpiDataset: decl.hpiDataset };
  }

  /** The dataset checks: load, records, and the scorer on each sample's target, an empty and a wrong answer. */
  async dataset(c: Contribution<'datasets'>): Promise<Probe | undefined> {
    const probe = await this.probeOf(c, true);
    if (!probe) return undefined;
    const { scorer, samples } = probe;
    const ctx = { compat: 'strict' as const, options: probe.scorerOptions };
    if (!scorer.renderTarget) {
      this.row(c, 'target solves', 'skip', `scorer ${scorer.id} has no renderTarget`);
      return probe;
    }
    const score = async (s: Sample, completion: string) => scorer.score(s, { promptText: '', completion, cue: probe.pack.cue }, ctx);
    const failures: Record<string, string[]> = { 'target solves': [], 'empty fails': [], 'wrong fails': [] };
    let wrongTried = 0;
    for (const s of samples) {
      const check = async (name: string, fn: () => Promise<string | undefined>) => {
        try {
          const bad = await fn();
          if (bad) failures[name]!.push(bad);
        } catch (e) {
          failures[name]!.push(`sample ${s.id}: ${reason(e)}`);
        }
      };
      const rendered = scorer.renderTarget(s, ctx);
      await check('target solves', async () => ((await score(s, rendered)).solved ? undefined : `sample ${s.id}: the rendered target ${JSON.stringify(rendered.slice(0, 80))} is not solved`));
      await check('empty fails', async () => ((await score(s, '')).solved ? `sample ${s.id}: an empty answer is solved` : undefined));
      await check('wrong fails', async () => {
        const wrong = wrongAnswer(scorer, s, samples, rendered, ctx);
        if (wrong === undefined) return undefined;
        wrongTried++;
        return (await score(s, wrong)).solved ? `sample ${s.id}: the wrong answer ${JSON.stringify(wrong.slice(0, 80))} is solved` : undefined;
      });
    }
    for (const [name, bad] of Object.entries(failures)) {
      if (name === 'wrong fails' && wrongTried === 0 && bad.length === 0) this.row(c, name, 'skip', 'no wrong answer to try (no randomAnswer, and no sample with another target)');
      else this.row(c, name, bad.length ? 'fail' : 'pass', bad.length ? `scorer ${scorer.id}: ${bad.join('; ')}` : `scorer ${scorer.id}, ${name === 'wrong fails' ? wrongTried : samples.length} sample(s)`);
    }
    return probe;
  }

  /** A sample to exercise strategies, models and selectors on: the plugin's own dataset, else a built-in one. */
  private async probeFor(own: Probe[], strategyId?: string): Promise<Probe | undefined> {
    const withEntry = strategyId ? own.find((p) => p.pack.strategies[strategyId]) : undefined;
    if (withEntry ?? own[0]) return withEntry ?? own[0];
    if (this.fallback === undefined) {
      this.fallback = null;
      // a small built-in dataset (an embedded `mini` split or a file; no download), taken from the registry
      const candidates = this.registry.list('datasets').filter((d) => d.decl.splits?.mini !== undefined || d.decl.file !== undefined);
      for (const d of candidates) {
        const p = await this.probeOf(d, false);
        if (p) {
          this.fallback = p;
          break;
        }
      }
    }
    return this.fallback ?? undefined;
  }

  /** The strategy checks: it runs one level against the recording stand-in model. */
  async strategy(c: Contribution<'strategies'>, own: Probe[]): Promise<void> {
    const strategy = await this.load<Strategy>(c, () => strategyOf(this.container, c, {}));
    if (!strategy) return;
    const probe = await this.probeFor(own, c.decl.packEntry ?? c.id);
    if (!probe) {
      this.row(c, 'runs', 'skip', 'no dataset with a local sample to run it on');
      return;
    }
    const requests: ModelRequest[] = [];
    const stand: Model = {
      id: 'verify:stand-in',
      generate: async (request: ModelRequest): Promise<ModelResponse> => {
        requests.push(request);
        const text = request.context?.purpose === 'graded' && probe.scorer.renderTarget ? probe.scorer.renderTarget(request.context.sample, request.context.scoreContext) : '';
        return { text, usage: { promptTokens: 0, completionTokens: 0 }, finishReason: 'stop' };
      },
    };
    const engine = new LadderEngine({
      levels: [{ level: 1, strategyId: c.id, strategy, ...(c.decl.packEntry !== undefined ? { packEntry: c.decl.packEntry } : {}) }],
      model: stand,
      knowledgeModel: stand,
      scorer: probe.scorer,
      scorerOptions: probe.scorerOptions,
      pack: probe.pack,
      hpiDataset: probe.hpiDataset,
      compat: 'strict',
      generation: GENERATION,
      seed: 0,
    });
    let out: Awaited<ReturnType<LadderEngine['runLevel']>>;
    try {
      out = await withTimeout(engine.runLevel(probe.sample, engine.levels[0]!), this.timeoutMs, `strategy '${c.id}'`);
    } catch (e) {
      this.row(c, 'runs', 'fail', `on ${probe.datasetId} sample ${probe.sample.id}: ${reason(e)}`);
      return;
    }
    const g = (out.out as { graded?: { promptText?: unknown; completion?: unknown; cue?: unknown } } | undefined)?.graded;
    const problems: string[] = [];
    if (out.calls.length === 0) problems.push('it made no model call');
    if (!g || typeof g.promptText !== 'string' || typeof g.completion !== 'string' || typeof g.cue !== 'string') problems.push('it did not return a StrategyOutput ({ graded: { promptText, completion, cue } } strings)');
    const first = firstPrompt(out.calls);
    this.row(c, 'runs', problems.length ? 'fail' : 'pass', problems.length ? `on ${probe.datasetId} sample ${probe.sample.id}: ${problems.join('; ')}` : `${out.calls.length} call(s) on ${probe.datasetId} sample ${probe.sample.id}; prompt: ${JSON.stringify(first)}`);
  }

  /**
   * The model checks: a tiny `generate` returns a response of the right shape in time. A model whose options take a
   * `baseUrl` is built with the URL of a local OpenAI-compatible stand-in (`stand-in-server.ts`); when it then reports
   * an `endpoint` (an endpoint model, like `openai`), it must send a chat-completions request carrying the prompt and
   * return the stand-in's text and token counts. A model with an `endpoint` whose options take no `baseUrl` is not
   * called (skip).
   */
  async model(c: Contribution<'models'>, own: Probe[]): Promise<void> {
    const takesBaseUrl = Boolean((c.decl.options?.properties as Record<string, unknown> | undefined)?.baseUrl);
    const standIn = takesBaseUrl ? await startStandIn() : undefined;
    try {
      await this.modelChecks(c, own, standIn);
    } finally {
      await standIn?.close();
    }
  }

  private async modelChecks(c: Contribution<'models'>, own: Probe[], standIn: StandInServer | undefined): Promise<void> {
    const options: Record<string, Json> = standIn ? { baseUrl: standIn.url } : {};
    const model = await this.load<Model>(c, () => instantiate<Model>(this.container, c, options, (child) => child.register(Tokens.ModelName, { useValue: this.options.modelName ?? 'verify' })), ['E_CONFIG', 'E_AUTH', 'E_UNKNOWN_ID']);
    if (!model) return;
    // a model built with the stand-in's baseUrl that reports no endpoint (a scripted model) is checked as a local one
    if (model.endpoint === undefined) standIn = undefined;
    else if (!standIn) {
      this.row(c, 'generate', 'skip', `it calls an endpoint (${model.endpoint}) and its options take no baseUrl to point it at a local stand-in; not called`);
      return;
    }
    const probe = await this.probeFor(own);
    const prompt = 'Reply with one word.';
    const request: ModelRequest = {
      ...GENERATION,
      messages: [{ role: 'user', content: prompt }],
      ...(probe ? { context: { sample: probe.sample, level: 1, strategy: 'verify', purpose: 'graded' as const, seq: 0, scorer: probe.scorer, scoreContext: { compat: 'strict' as const, options: probe.scorerOptions }, seed: 0 } } : {}),
    };
    try {
      const r = await withTimeout(Promise.resolve(model.generate(request)), this.timeoutMs, `model '${c.id}'`);
      const u = (r as Partial<ModelResponse> | undefined)?.usage;
      const problems: string[] = [];
      if (typeof r?.text !== 'string') problems.push('text is not a string');
      if (!u || typeof u.promptTokens !== 'number' || typeof u.completionTokens !== 'number') problems.push('usage is not { promptTokens, completionTokens } numbers');
      if (typeof r?.finishReason !== 'string') problems.push('finishReason is not a string');
      if (problems.length) {
        this.row(c, 'generate', 'fail', `the response is malformed: ${problems.join('; ')}`);
        return;
      }
      if (!standIn) {
        this.row(c, 'generate', 'pass', `answered ${JSON.stringify(r.text.slice(0, 60))}`);
        return;
      }
      // against the stand-in: the request it sent, and the answer read back as the stand-in gave it
      const calls = standIn.requests.filter((q) => q.method === 'POST' && q.path.endsWith('/chat/completions'));
      const sent = calls.map((q) => JSON.stringify((q.body as { messages?: unknown } | null)?.messages ?? null));
      if (calls.length === 0) problems.push(`no chat-completions request reached the stand-in at ${standIn.url} (${standIn.requests.length} other request(s))`);
      else if (!sent.some((m) => m.includes(JSON.stringify(prompt).slice(1, -1)))) problems.push(`the request's messages do not carry the prompt: ${sent[0]!.slice(0, 120)}`);
      if (r.text !== STAND_IN_REPLY.text) problems.push(`text ${JSON.stringify(r.text.slice(0, 60))} is not the stand-in's ${JSON.stringify(STAND_IN_REPLY.text)}`);
      if (u!.promptTokens !== STAND_IN_REPLY.promptTokens || u!.completionTokens !== STAND_IN_REPLY.completionTokens) problems.push(`usage ${u!.promptTokens}/${u!.completionTokens} is not the stand-in's ${STAND_IN_REPLY.promptTokens}/${STAND_IN_REPLY.completionTokens} tokens`);
      this.row(c, 'generate', problems.length ? 'fail' : 'pass', problems.length ? `against a local OpenAI-compatible stand-in: ${problems.join('; ')}` : `against a local OpenAI-compatible stand-in: ${calls.length} chat-completions request(s), answered ${JSON.stringify(r.text)} with its token counts`);
    } catch (e) {
      this.row(c, 'generate', 'fail', `${standIn ? 'against a local OpenAI-compatible stand-in: ' : ''}${reason(e)}`);
    }
  }

  /**
   * The report view checks: `load` (a code view is built through injection) and `small run`: a run of the first of its
   * datasets with local samples (the plugin's own, else one the registry has), the first `records` samples with
   * `baseline:oracle` on the default ladder in a temporary store, gathered as `hpt-bench report` does; the view must
   * give at least one table (declarative or computed) for it without throwing. Skipped when no dataset of the view has
   * local samples or no `baseline` model is loaded (a plugin verified without an hpt-bench installation).
   */
  async reportView(c: Contribution<'reports'>, own: Probe[]): Promise<void> {
    let views: ReportViews;
    let view: LoadedReportView | undefined;
    try {
      // another view's code failing is that view's row, not this one's
      const onCodeError = (other: Contribution<'reports'>, e: unknown) => {
        if (other === c) throw e;
      };
      views = await loadReportViews(this.registry, this.container, { onCodeError });
      view = views.list.find((x) => x.contribution === c);
      if (!view) throw new Error('not among the loaded report views');
      this.row(c, 'load', 'pass', view.code ? `built through injection (plugin ${c.plugin.name})` : 'declarative (no code)');
    } catch (e) {
      this.row(c, 'load', 'fail', reason(e));
      return;
    }
    if (!this.registry.has('models', 'baseline')) {
      this.row(c, 'small run', 'skip', 'no baseline model loaded (no hpt-bench installation beside the plugin)');
      return;
    }
    let probe: Probe | undefined;
    for (const id of c.decl.datasets) {
      probe = own.find((p) => p.datasetId === id);
      if (!probe && this.registry.has('datasets', id)) probe = await this.probeOf(this.registry.get('datasets', id), false);
      if (probe) break;
    }
    if (!probe) {
      this.row(c, 'small run', 'skip', `none of its datasets (${c.decl.datasets.join(', ')}) has local samples to run`);
      return;
    }
    const decl = this.registry.get('datasets', probe.datasetId).decl;
    const tmp = mkdtempSync(join(tmpdir(), 'hpt-verify-report-'));
    const store = join(tmp, 'runs.db');
    try {
      const config = runConfig({
        dataset: probe.datasetId,
        model: 'baseline:oracle',
        limit: this.records,
        concurrency: 1,
        cache: false,
        cacheDir: join(tmp, 'cache'),
        ...(decl.splits?.mini !== undefined ? { split: 'mini' } : {}),
        ...(this.options.scorerOptions ? { scorerOptions: this.options.scorerOptions } : {}),
      });
      const [result] = await withTimeout(evaluate({ config }, { store, plugins: { registry: this.registry, container: this.container }, logger: QUIET_LOGGER }), 6 * this.timeoutMs, `a small run of ${probe.datasetId}`);
      const runs = new RunStore(store, { readonly: true });
      let tables: ReportTable[];
      try {
        const data = gatherReport(runs, store, { runIds: [result!.runId], resamples: 200 });
        tables = [...declaredTables(data.runs, views).filter((t) => t.view === view).map((t) => t.table), ...viewTables(view, data, views)];
      } finally {
        runs.close();
      }
      const on = `a ${result!.summary.n}-sample baseline:oracle run of ${probe.datasetId}`;
      this.row(c, 'small run', tables.length ? 'pass' : 'fail', tables.length ? `${tables.length} table(s) on ${on}: ${tables.map((t) => JSON.stringify(t.title)).join(', ').slice(0, 160)}` : `it made no table for ${on}`);
    } catch (e) {
      this.row(c, 'small run', needsConfiguration(e) ? 'skip' : 'fail', needsConfiguration(e) ? `needs configuration: ${reason(e)}` : `on ${probe.datasetId}: ${reason(e)}`);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }

  /** The selector checks: `select` answers a level within 1..m for m = 1, 3, 5. */
  async selector(c: Contribution<'selectors'>, own: Probe[]): Promise<void> {
    const argument = this.options.selectorArgument ?? '1';
    const selector = await this.load<Selector>(c, () => instantiate<Selector>(this.container, c, {}, (child) => child.register(Tokens.SelectorArgument, { useValue: argument })));
    if (!selector) return;
    const probe = await this.probeFor(own);
    const sample: Sample = probe?.sample ?? { id: 'verify', index: 0, input: { question: 'Is the sky blue?' }, target: true };
    const bad: string[] = [];
    for (const m of [1, 3, 5]) {
      const levels = Array.from({ length: m }, (_, i) => ({ level: i + 1, strategy: `level-${i + 1}` }));
      const call = async (text: string) => {
        const record: CallRecord = { seq: 0, purpose: 'selector', model: 'verify:stand-in', messages: [{ role: 'user', content: text }], output: '1', usage: { promptTokens: 0, completionTokens: 0 }, latencyMs: 0, finishReason: 'stop' };
        return { text: '1', promptText: text, response: { text: '1', usage: record.usage, finishReason: 'stop' }, record };
      };
      try {
        const s = await withTimeout(selector.select({ sample, iteration: 1, levels, task: Object.values(sample.input).join('\n'), feedback: '', history: [], compat: 'strict', call }), this.timeoutMs, `selector '${c.id}'`);
        if (typeof s?.level !== 'number' || !Number.isInteger(s.level) || s.level < 1 || s.level > m) bad.push(`m=${m}: chose ${JSON.stringify(s?.level)}`);
      } catch (e) {
        bad.push(`m=${m}: ${reason(e)}`);
      }
    }
    this.row(c, 'select', bad.length ? 'fail' : 'pass', bad.length ? `a level outside 1..m: ${bad.join('; ')}` : 'a level within 1..m for m = 1, 3, 5');
  }
}

/** The text of the first request's last message (what the strategy sent first), at most 160 characters. */
function firstPrompt(calls: CallRecord[]): string {
  const first = calls[0];
  const text = first?.messages[first.messages.length - 1]?.content ?? '';
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

/**
 * A wrong answer for `sample`: the rendered target of another sample whose target differs, else a `randomAnswer` draw
 * other than the rendered target (letter case and spaces aside; up to 20 draws); undefined when there is none.
 */
function wrongAnswer(scorer: Scorer, sample: Sample, samples: Sample[], rendered: string, ctx: { compat: 'strict'; options: Record<string, Json> }): string | undefined {
  const other = samples.find((s) => s !== sample && JSON.stringify(s.target) !== JSON.stringify(sample.target));
  if (other && scorer.renderTarget) return scorer.renderTarget(other, ctx);
  if (!scorer.randomAnswer) return undefined;
  let seed = 1;
  const random = () => {
    seed = (seed * 16807) % 2147483647;
    return (seed - 1) / 2147483646;
  };
  const norm = (t: string) => t.trim().toLowerCase();
  for (let i = 0; i < 20; i++) {
    const a = scorer.randomAnswer(sample, random, ctx);
    if (norm(a) !== norm(rendered) && norm(a) !== '') return a;
  }
  return undefined;
}
