/**
 * End-to-end: a third-party plugin built OUTSIDE the repository, in a temp dir, with its own
 * package.json and its own installed dependencies — its own copy of @hpt-bench/sdk (the `npm pack` tarball of
 * packages/sdk, never a registry) and, in the TypeScript variant, its own tsyringe and reflect-metadata (tarballs packed
 * from the repository's node_modules; npm runs offline, so nothing comes from the network).
 *
 * Each variant contributes a model (injection of ModelName and Options), a scorer (Options, Logger), a seventh-level
 * strategy (Options), a small dataset scored by its scorer, a declarative sixth level and the 7-level ladder `hpf7`:
 * - `js`: plain JavaScript, `static inject`, no build step;
 * - `ts`: TypeScript compiled with the repository's `tsc` (`experimentalDecorators`): the SDK's `@inject` on the model and
 *   the strategy, the plugin's own tsyringe `@injectable()`/`@inject` on the scorer.
 * The plugin is packed with `npm pack` (`bundleDependencies` carries its SDK copy: the SDK is not on a registry, and a
 * `file:` dependency on a tarball cannot be resolved from oclif's data dir — checked below), installed with
 * `hpt-bench plugins install file:<tarball>` into a sandboxed oclif data dir (XDG_* and HOME -> temp dirs), and run.
 * `plugins link DIR`, `--plugin DIR` (winning over the installed copy, with a warning), a TypeScript module named in a
 * manifest and a class that cannot be built are checked through the CLI too.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorLine, ROOT, runCli, type CliResult } from '../helpers/cli.js';

const NPM = join(ROOT, 'node_modules/npm/bin/npm-cli.js');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

/** The temp dir of this file: packed dependencies, plugin sources, tarballs and sandboxes. */
let work: string;
/** Environment of every npm call: its own HOME and cache, offline, quiet. */
let npmEnv: Record<string, string>;

/** Run a command synchronously. @throws with its output when it exits non-zero. */
function sh(cmd: string, args: string[], cwd: string, env: Record<string, string> = npmEnv): string {
  const r = spawnSync(cmd, args, { cwd, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}
const npm = (args: string[], cwd: string) => sh(process.execPath, [NPM, ...args, '--offline', '--no-audit', '--no-fund', '--loglevel=error'], cwd);

/** The tarball of `name` in the deps dir (packed once per file). */
function tarball(name: string): string {
  const prefix = `${name.replace(/^@/, '').replace('/', '-')}-`;
  const hits = readdirSync(join(work, 'deps')).filter((f) => f.startsWith(prefix) && /^\d/.test(f.slice(prefix.length)));
  if (hits.length !== 1) throw new Error(`no single tarball for ${name} in deps: ${hits.join(', ')}`);
  return join(work, 'deps', hits[0]!);
}

/** A fresh oclif sandbox: data, config, cache and HOME under a new temp dir; npm kept offline. */
function sandbox(): Record<string, string> {
  const dir = mkdtempSync(join(work, 'box-'));
  const home = join(dir, 'home');
  mkdirSync(home);
  return { XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config'), XDG_CACHE_HOME: join(dir, 'cache'), HOME: home, npm_config_offline: 'true', npm_config_cache: join(dir, 'npm-cache') };
}

// ---------------------------------------------------------------------------------------------------------------
// The plugin. Its dataset's samples and the level at which its model answers each right (0: never).
const SAMPLES = [
  { id: 'r1', question: 'What has keys but opens no locks?', answer: 'piano', solve_at: '7' },
  { id: 'r2', question: 'What runs but never walks?', answer: 'river', solve_at: '2' },
  { id: 'r3', question: 'What has a neck but no head?', answer: 'bottle', solve_at: '6' },
  { id: 'r4', question: 'What gets wetter the more it dries?', answer: 'towel', solve_at: '0' },
];
const HPI_DATASET = 1.5;
const LADDER = ['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge', 'sixth', 'seventh-level'];

function manifest(module: string): unknown {
  return {
    apiVersion: 1,
    contributes: {
      datasets: [
        {
          id: 'riddles',
          description: 'four riddles (test fixture)',
          scorer: { id: 'tagged', options: { tag: 'ANSWER' } },
          hpiDataset: HPI_DATASET,
          file: './data/riddles.jsonl',
          fields: { question: 'question' },
          target: { field: 'answer', type: 'string' },
          meta: { solveAt: 'solve_at' },
        },
      ],
      models: [
        {
          id: 'seventh',
          module,
          export: 'SeventhModel',
          options: { type: 'object', properties: { timeoutMs: { type: 'number' }, apiKeyEnv: { type: 'string' } } },
        },
      ],
      scorers: [{ id: 'tagged', module, export: 'TaggedScorer' }],
      strategies: [
        { id: 'sixth', kind: 'single-call', template: 'Sixth level. {question}' },
        { id: 'seventh-level', module, export: 'SeventhStrategy', options: { type: 'object', properties: { style: { type: 'string' } } } },
      ],
      ladders: [{ id: 'hpf7', levels: LADDER, options: { 'seventh-level': { style: 'terse' } } }],
    },
  };
}

const JS_SOURCE = `import { fileURLToPath } from 'node:url';
import { Tokens } from '@hpt-bench/sdk';

// where this module and the SDK copy it imports live (the test checks which copy ran)
const HERE = fileURLToPath(new URL('.', import.meta.url));
const SDK = fileURLToPath(import.meta.resolve('@hpt-bench/sdk'));

export class SeventhModel {
  static inject = [Tokens.ModelName, Tokens.Options];
  constructor(name, options) {
    this.id = 'seventh:' + name;
    this.name = name;
    this.options = options;
  }
  async generate(request) {
    const ctx = request.context;
    const right = ctx !== undefined && ctx.purpose === 'graded' && ctx.level === Number(ctx.sample.meta?.solveAt);
    const info = JSON.stringify({ name: this.name, options: this.options, root: HERE, sdk: SDK });
    return { text: 'ANSWER: ' + (right ? String(ctx.sample.target) : 'unsure') + ' ' + info, usage: { promptTokens: 1, completionTokens: 1 }, finishReason: 'stop' };
  }
}

export class TaggedScorer {
  static inject = [Tokens.Options, Tokens.Logger];
  constructor(options, logger) {
    this.id = 'tagged';
    this.injected = options;
    logger.info('tagged scorer built with options ' + JSON.stringify(options));
  }
  prepare(ctx) {
    this.tag = ctx.options.tag;
  }
  score(sample, output) {
    const m = new RegExp('^' + this.tag + ': (\\\\S+) (.*)$').exec(output.completion);
    const answer = m ? m[1] : null;
    const solved = answer === sample.target;
    return { solved, score: solved ? 1 : 0, extracted: { answer, model: m ? JSON.parse(m[2]) : null, scorer: { injected: this.injected, tag: this.tag } } };
  }
}

export class SeventhStrategy {
  static inject = [Tokens.Options];
  constructor(options) {
    this.id = 'seventh-level';
    this.options = options;
  }
  async run(ctx) {
    const r = await ctx.call('graded', ctx.fill(ctx.entry?.template ?? 'Seventh level. {question}'), ctx.pack.cue);
    return { graded: { promptText: r.promptText, completion: r.text, cue: ctx.pack.cue }, notes: { injected: this.options } };
  }
}
`;

const TS_SOURCE = `import 'reflect-metadata';
import { inject as tsyringeInject, injectable as tsyringeInjectable } from 'tsyringe';
import { inject, injectable, Tokens, type Json, type GradedOutput, type Logger, type Model, type ModelRequest, type ModelResponse, type Sample, type ScoreContext, type Scorer, type Strategy, type StrategyContext, type StrategyOutput, type Verdict } from '@hpt-bench/sdk';

const meta = import.meta as unknown as { url: string; resolve(specifier: string): string };
const HERE = decodeURIComponent(new URL('.', meta.url).pathname);
const SDK = decodeURIComponent(new URL(meta.resolve('@hpt-bench/sdk')).pathname);

/** The plugin's model: the SDK's parameter decorators. */
export class SeventhModel implements Model {
  readonly id: string;
  constructor(@inject(Tokens.ModelName) private readonly name: string, @inject(Tokens.Options) private readonly options: Record<string, Json>) {
    this.id = \`seventh:\${name}\`;
  }
  async generate(request: ModelRequest): Promise<ModelResponse> {
    const ctx = request.context;
    const right = ctx !== undefined && ctx.purpose === 'graded' && ctx.level === Number(ctx.sample.meta?.solveAt);
    const info = JSON.stringify({ name: this.name, options: this.options, root: HERE, sdk: SDK });
    return { text: \`ANSWER: \${right ? String(ctx!.sample.target) : 'unsure'} \${info}\`, usage: { promptTokens: 1, completionTokens: 1 }, finishReason: 'stop' };
  }
}

/** The plugin's scorer: its own tsyringe copy's decorators (the host reads their metadata). */
@tsyringeInjectable()
export class TaggedScorer implements Scorer {
  readonly id = 'tagged';
  private tag = '';
  constructor(@tsyringeInject(Tokens.Options) private readonly injected: Record<string, Json>, @tsyringeInject(Tokens.Logger) logger: Logger) {
    logger.info(\`tagged scorer built with options \${JSON.stringify(injected)}\`);
  }
  prepare(ctx: ScoreContext): void {
    this.tag = String(ctx.options.tag);
  }
  score(sample: Sample, output: GradedOutput): Verdict {
    const m = new RegExp(\`^\${this.tag}: (\\\\S+) (.*)$\`).exec(output.completion);
    const answer = m ? m[1]! : null;
    const solved = answer === sample.target;
    return { solved, score: solved ? 1 : 0, extracted: { answer, model: m ? (JSON.parse(m[2]!) as Json) : null, scorer: { injected: this.injected, tag: this.tag } } };
  }
}

/** The seventh level: the SDK's class decorator and parameter decorator. */
@injectable()
export class SeventhStrategy implements Strategy {
  readonly id = 'seventh-level';
  constructor(@inject(Tokens.Options) private readonly options: Record<string, Json>) {}
  async run(ctx: StrategyContext): Promise<StrategyOutput> {
    const r = await ctx.call('graded', ctx.fill(ctx.entry?.template ?? 'Seventh level. {question}'), ctx.pack.cue);
    return { graded: { promptText: r.promptText, completion: r.text, cue: ctx.pack.cue }, notes: { injected: this.options } };
  }
}
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    strict: true,
    skipLibCheck: true,
    lib: ['ES2022', 'DOM'],
    types: [],
    rootDir: 'src',
    outDir: 'dist',
  },
  include: ['src'],
};

/** Packages the SDK needs at install time (its dependencies), installed from tarballs without saving them. */
const SDK_DEPS = ['ajv', 'ajv-formats', 'fast-deep-equal', 'fast-uri', 'json-schema-traverse', 'require-from-string'];

interface Variant {
  kind: 'js' | 'ts';
  name: string;
  dir: string;
  tarball: string;
}

/** Write, install, (compile) and pack one variant of the plugin in `work/<kind>-plugin`. */
function buildPlugin(kind: 'js' | 'ts', bundle = true): Variant {
  const name = `hpt-bench-plugin-seventh-${kind}${bundle ? '' : '-unbundled'}`;
  const dir = join(work, `${kind}-plugin${bundle ? '' : '-unbundled'}`);
  mkdirSync(join(dir, 'data'), { recursive: true });
  const own = kind === 'ts' ? ['@hpt-bench/sdk', 'tsyringe', 'reflect-metadata'] : ['@hpt-bench/sdk'];
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify(
      {
        name,
        version: '1.0.0',
        description: `hpt-bench test plugin (${kind}): a seventh level, a model, a scorer`,
        type: 'module',
        license: 'MIT',
        files: kind === 'ts' ? ['dist', 'data'] : ['index.js', 'data'],
        oclif: {},
        ...(bundle ? { bundleDependencies: own } : {}),
        'hpt-bench': manifest(kind === 'ts' ? './dist/index.js' : './index.js'),
      },
      null,
      2,
    ),
  );
  writeFileSync(join(dir, 'data/riddles.jsonl'), SAMPLES.map((s) => JSON.stringify(s)).join('\n') + '\n');
  // the SDK's (and tsyringe's) own dependencies first, unsaved, then the plugin's dependencies, saved as file: tarballs
  npm(['install', '--no-save', '--no-package-lock', ...SDK_DEPS.map(tarball), ...(kind === 'ts' ? [tarball('tslib')] : [])], dir);
  npm(['install', ...own.map(tarball)], dir);
  if (kind === 'ts') {
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src/index.ts'), TS_SOURCE);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
    sh(process.execPath, [TSC, '-p', dir], dir);
  } else {
    writeFileSync(join(dir, 'index.js'), JS_SOURCE);
  }
  const out = JSON.parse(npm(['pack', '--json', '--pack-destination', work], dir)) as { filename: string }[];
  return { kind, name, dir, tarball: join(work, out[0]!.filename) };
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'hpt-third-party-'));
  const home = join(work, 'npm-home');
  mkdirSync(home);
  npmEnv = { HOME: home, npm_config_cache: join(work, 'npm-cache'), npm_config_update_notifier: 'false' };
  mkdirSync(join(work, 'deps'));
  // once per file: the SDK as `npm pack` makes it (already built by `npm run build`), and the dependencies a plugin's
  // own install needs, packed from the repository's node_modules (no registry, no network)
  const nm = join(ROOT, 'node_modules');
  const folders = [join(ROOT, 'packages/sdk'), ...SDK_DEPS.map((d) => join(nm, d)), join(nm, 'tsyringe'), join(nm, 'tsyringe/node_modules/tslib'), join(nm, 'reflect-metadata')];
  npm(['pack', '--ignore-scripts', '--pack-destination', join(work, 'deps'), ...folders], ROOT);
}, 60_000);
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Prediction {
  answer: string | null;
  model: { name: string; options: Record<string, unknown>; root: string; sdk: string } | null;
  scorer: { injected: Record<string, unknown>; tag: string };
}
interface OutRecord {
  sampleId: string;
  level: number | null;
  solved: boolean;
  prediction: Prediction;
  attempts: { level: number; strategy: string; notes?: Record<string, unknown> }[];
}

/** Run the plugin's dataset, model and ladder (`--timeout 7` and `--api-key-env` reach the model as injected options). */
async function runPlugin(env: Record<string, string>, name: string, extra: string[] = []): Promise<{ r: CliResult; summary: Record<string, unknown>; out: OutRecord[] }> {
  const dir = mkdtempSync(join(work, 'run-'));
  const out = join(dir, 'out.jsonl');
  const r = await runCli(['run', '--dataset', 'riddles', '--ladder', 'hpf7', '--model', `seventh:${name}`, '--timeout', '7', '--api-key-env', 'RIDDLE_KEY', '--json', '--out', out, '--store', join(dir, 'store.db'), ...extra], { env, cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  const records = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as OutRecord);
  return { r, summary: JSON.parse(r.stdout) as Record<string, unknown>, out: records };
}

/** The summary and predictions every run of the plugin must give; `root` is the plugin copy that must have run. */
function expectPluginRun(res: Awaited<ReturnType<typeof runPlugin>>, name: string, root: string): void {
  const { summary, out, r } = res;
  expect(summary).toMatchObject({ dataset: 'riddles', model: `seventh:${name}`, ladder: LADDER, n: 4, hpiDataset: HPI_DATASET, complete: true });
  // levels reached: r2 at 2 (a built-in HPF level), r3 at 6 (the declarative sixth), r1 at 7 (the plugin's code strategy)
  expect(summary.levelCounts).toEqual({ '1': 0, '2': 1, '3': 0, '4': 0, '5': 0, '6': 1, '7': 1, unsolved: 1 });
  expect(summary.hpi).toBeCloseTo((7 + 2 + 6 + (7 + HPI_DATASET)) / 4, 12);
  expect(summary.accuracy).toBeCloseTo(3 / 4, 12);
  expect(out.map((o) => [o.sampleId, o.level])).toEqual([['r1', 7], ['r2', 2], ['r3', 6], ['r4', null]]);
  for (const o of out) {
    // the model's injected ModelName and Options (only the options its schema declares), from the plugin's own SDK copy
    expect(o.prediction.model).toEqual({ name, options: { timeoutMs: 7000, apiKeyEnv: 'RIDDLE_KEY' }, root: expect.stringMatching(new RegExp(`^${root}/`)), sdk: expect.stringMatching(new RegExp(`^${root}/node_modules/@hpt-bench/sdk/`)) });
    // the scorer got the dataset's scorer options by injection, the same as through prepare()
    expect(o.prediction.scorer).toEqual({ injected: { tag: 'ANSWER' }, tag: 'ANSWER' });
  }
  expect(out[0]!.prediction.answer).toBe('piano');
  expect(out[3]!.prediction.answer).toBe('unsure');
  // the seventh level ran for r1 and r4 only, with its injected Options
  const seventh = out.flatMap((o) => o.attempts.filter((a) => a.level === 7).map((a) => [o.sampleId, a.strategy, a.notes]));
  // (the ladder's options for that level, validated against the strategy's schema)
  expect(seventh).toEqual([['r1', 'seventh-level', { injected: { style: 'terse' } }], ['r4', 'seventh-level', { injected: { style: 'terse' } }]]);
  // the injected Logger: the scorer's line on stderr (nothing else there)
  expect(r.stderr.split('\n').filter((l) => l !== '')).toEqual(['tagged scorer built with options {"tag":"ANSWER"}']);
}

describe.sequential.each(['js', 'ts'] as const)('a third-party plugin (%s) built outside the repository with its own SDK copy', (kind) => {
  let plugin: Variant;
  let env: Record<string, string>;
  const modelName = kind === 'js' ? 'alpha' : 'beta';

  beforeAll(() => {
    plugin = buildPlugin(kind);
    env = sandbox();
  }, 120_000);

  it('packs its own SDK copy (and, in TypeScript, its own tsyringe and reflect-metadata) into the tarball', () => {
    const listing = sh('tar', ['-tzf', plugin.tarball], work);
    expect(listing).toMatch(/^package\/node_modules\/@hpt-bench\/sdk\/dist\/index\.js$/m);
    expect(listing).toMatch(/^package\/node_modules\/ajv\/package\.json$/m);
    if (kind === 'ts') {
      expect(listing).toMatch(/^package\/node_modules\/tsyringe\/package\.json$/m);
      expect(listing).toMatch(/^package\/node_modules\/reflect-metadata\/package\.json$/m);
      expect(listing).toMatch(/^package\/dist\/index\.js$/m);
      expect(listing).not.toMatch(/^package\/src\//m);
    }
  });

  it('installs with `plugins install file:<tarball>` into the sandboxed data dir and lists its contributions', async () => {
    const install = await runCli(['plugins', 'install', `file:${plugin.tarball}`], { env, timeoutMs: 120_000 });
    expect(install.code, install.stderr).toBe(0);
    const root = join(env.XDG_DATA_HOME!, 'hpt-bench/node_modules', plugin.name);
    expect(JSON.parse(readFileSync(join(root, 'node_modules/@hpt-bench/sdk/package.json'), 'utf8')).version).toBe('0.1.0');
    const list = await runCli(['list', '--json'], { env });
    expect(list.stderr).toBe('');
    const listed = JSON.parse(list.stdout) as Record<string, { id: string; plugin: string; origin: string; levels?: string[] }[]>;
    const mine = (k: string) => listed[k]!.filter((c) => c.plugin === plugin.name).map((c) => [c.id, c.origin]);
    expect(mine('models')).toEqual([['seventh', 'installed']]);
    expect(mine('scorers')).toEqual([['tagged', 'installed']]);
    expect(mine('strategies')).toEqual([['sixth', 'installed'], ['seventh-level', 'installed']]);
    expect(mine('datasets')).toEqual([['riddles', 'installed']]);
    expect(listed.ladders!.find((l) => l.id === 'hpf7')?.levels).toEqual(LADDER);
  });

  it('runs its model, scorer and 7-level ladder with injected options: levels 2, 6 and 7 reached', async () => {
    const root = join(env.XDG_DATA_HOME!, 'hpt-bench/node_modules', plugin.name);
    expectPluginRun(await runPlugin(env, modelName), modelName, root);
  });

  it('the development copy passed with --plugin DIR wins over the installed one, with one warning naming both', async () => {
    const installed = join(env.XDG_DATA_HOME!, 'hpt-bench/node_modules', plugin.name);
    const res = await runPlugin(env, modelName, ['--plugin', plugin.dir]);
    const warning = `warning: plugin ${plugin.name}: using the development copy at ${plugin.dir} (--plugin) instead of the installed copy at ${installed}`;
    expect(res.r.stderr.split('\n')[0]).toBe(warning);
    expectPluginRun({ ...res, r: { ...res.r, stderr: res.r.stderr.split('\n').slice(1).join('\n') } }, modelName, plugin.dir);
  });
});

describe.sequential('the JavaScript plugin through `plugins link` and `--plugin DIR` alone', () => {
  let plugin: Variant;
  beforeAll(() => {
    plugin = buildPlugin('js');
  }, 120_000);

  it('`plugins link DIR` (its own node_modules) runs like the installed copy', async () => {
    const env = sandbox();
    const link = await runCli(['plugins', 'link', plugin.dir, '--no-install'], { env });
    expect(link.code, link.stderr).toBe(0);
    expectPluginRun(await runPlugin(env, 'linked'), 'linked', plugin.dir);
  });

  it('`--plugin DIR` without installing anything', async () => {
    expectPluginRun(await runPlugin(sandbox(), 'local', ['--plugin', plugin.dir]), 'local', plugin.dir);
  });

  it('without bundleDependencies, `plugins install file:` cannot resolve the file: dependency on the SDK tarball', async () => {
    const unbundled = buildPlugin('js', false);
    const env = sandbox();
    const r = await runCli(['plugins', 'install', `file:${unbundled.tarball}`], { env, timeoutMs: 120_000 });
    expect(r.code).toBe(2);
    // npm resolves the plugin's `file:../deps/hpt-bench-sdk-0.1.0.tgz` against the plugin's place in the node_modules
    // it is installed into (first a temporary one: the package is checked there before it reaches the data dir), where
    // no such file exists; the one error line says so
    const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(errorLine(r)).toMatch(new RegExp(`^Error: cannot install file:${escaped(unbundled.tarball)}: npm failed \\(ENOENT\\): ENOENT: no such file or directory, open '[^']*/node_modules/deps/hpt-bench-sdk-0\\.1\\.0\\.tgz'$`));
    expect(existsSync(join(env.XDG_DATA_HOME!, 'hpt-bench/node_modules', unbundled.name))).toBe(false);
  });
});

describe('errors a plugin author meets, through the CLI', () => {
  /** A plugin dir with one model contribution and these files. */
  function authorPlugin(name: string, module: string, files: Record<string, string>): string {
    const dir = join(work, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', oclif: {}, 'hpt-bench': { apiVersion: 1, contributes: { models: [{ id: 'mine', module, export: 'MyModel' }] } } }));
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(join(dir, rel, '..'), { recursive: true });
      writeFileSync(join(dir, rel), text);
    }
    return dir;
  }
  const runMine = (dir: string) => runCli(['run', '--plugin', dir, '--dataset', 'boolq', '--split', 'mini', '--model', 'mine:x', '--json', '--store', join(dir, 'store.db')], { env: sandbox() });

  it('a TypeScript module named in the manifest: compile it (tsc) and name the .js file', async () => {
    const dir = authorPlugin('hpt-bench-plugin-uncompiled', './src/model.ts', { 'src/model.ts': 'export class MyModel { readonly id: string = "mine"; constructor(private readonly n: number) {} }\n' });
    const line = errorLine(await runMine(dir));
    expect(line).toBe(`Error: plugin hpt-bench-plugin-uncompiled: model 'mine' module ./src/model.ts is TypeScript, which Node does not import; compile it (tsc, see docs/plugins.md "TypeScript") and name the .js file in the manifest's "module"`);
  });

  it('a constructor parameter without a declared token: the plugin, class, parameter and what to do', async () => {
    const dir = authorPlugin('hpt-bench-plugin-undeclared', './model.js', { 'model.js': 'export class MyModel {\n  constructor(settings) { this.id = "mine"; this.settings = settings; }\n  async generate() { return { text: "", usage: { promptTokens: 0, completionTokens: 0 }, finishReason: "stop" }; }\n}\n' });
    const line = errorLine(await runMine(dir));
    expect(line).toBe(
      "Error: plugin hpt-bench-plugin-undeclared: cannot construct model 'mine' (class MyModel): constructor parameter 1 (settings) declares no injection token; declare it with @inject(Tokens.X) from @hpt-bench/sdk (TypeScript, experimentalDecorators) or list the tokens in a static inject = [Tokens.Logger, ...] (JavaScript); see docs/plugins.md \"Injection\"",
    );
  });
});
