/**
 * Plugin scaffolds for `hpt-bench plugins new`: a working plugin package for one contribution
 * kind, in plain JavaScript (no build step, `static inject`) or TypeScript (`tsc`, `@inject` decorators,
 * `experimentalDecorators`). The package imports only `@hpt-bench/sdk`, bundles it (`bundleDependencies`, so
 * `hpt-bench plugins install file:<tarball>` works without a registry), and has the `hpt-bench` manifest and
 * `oclif: {}` in its package.json. The author's guide is docs/plugins.md.
 *
 * Where the SDK comes from (`sdk`): `tarball` (the default) depends on `file:vendor/hpt-bench-sdk-<version>.tgz`, a
 * tarball `plugins new` packs from the SDK the CLI itself runs on (so `npm install` needs no registry copy of the SDK);
 * `registry` depends on `^<version>` from the npm registry, for when the SDK is published there.
 */
import { basename, resolve } from 'node:path';
import { HptError } from '@hpt-bench/core';

/** The contribution kinds a scaffold can hold (ladders come with the strategy scaffold). */
export const SCAFFOLD_KINDS = ['dataset', 'strategy', 'model', 'scorer', 'selector'] as const;
export type ScaffoldKind = (typeof SCAFFOLD_KINDS)[number];

/** What to scaffold. */
export interface ScaffoldOptions {
  /** the plugin's directory (its last segment names the package and contribution by default) */
  dir: string;
  kind: ScaffoldKind;
  typescript: boolean;
  /** npm package name; default `hpt-bench-plugin-<id>` */
  name?: string;
  /** contribution id; default the directory's name without `hpt-bench-plugin-`, lower-cased */
  id?: string;
  /** where `@hpt-bench/sdk` comes from: the vendored tarball `vendor/<sdkTarball>` (default) or the registry */
  sdk?: 'tarball' | 'registry';
  /** the SDK's version (default 0.1.0): `^<version>` from the registry, or the tarball hpt-bench-sdk-<version>.tgz */
  sdkVersion?: string;
}

/** The file name `npm pack` gives the SDK of version `version`. */
export function sdkTarballName(version: string): string {
  return `hpt-bench-sdk-${version}.tgz`;
}

/** A scaffold: package name, contribution id, and the files (path relative to the plugin dir -> content). */
export interface Scaffold {
  name: string;
  id: string;
  kind: ScaffoldKind;
  typescript: boolean;
  /** the SDK tarball the caller must write to `vendor/` (undefined with `sdk: 'registry'`) */
  sdkTarball?: string;
  files: Record<string, string>;
}

const ID = /^[a-z0-9][a-z0-9._-]*$/;
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
const SDK_VERSION = '0.1.0';
const TS_VERSION = '^5.9.3';

/** `my-model` -> `MyModel` (the class name stem). */
function pascal(id: string): string {
  const s = id
    .split(/[^a-zA-Z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
  return /^[A-Za-z]/.test(s) ? s : `P${s}`;
}

/**
 * The files of a new plugin.
 * @throws HptError `E_CONFIG` when the id or package name is not valid (naming the flag to give one).
 */
export function scaffoldPlugin(o: ScaffoldOptions): Scaffold {
  const base = basename(resolve(o.dir))
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+/, '');
  const id = o.id ?? (base.replace(/^hpt-bench-plugin-/, '') || o.kind);
  if (!ID.test(id)) throw new HptError('E_CONFIG', `contribution id '${id}' is not valid: use lower-case letters, digits, '.', '_' and '-', starting with a letter or digit (--id)`);
  const name = o.name ?? `hpt-bench-plugin-${id}`;
  if (!NPM_NAME.test(name)) throw new HptError('E_CONFIG', `package name '${name}' is not a valid npm package name (--name)`);
  const ts = o.typescript;
  const sdkVersion = o.sdkVersion ?? SDK_VERSION;
  const vendored = (o.sdk ?? 'tarball') === 'tarball';
  const sdkSpec = vendored ? `file:vendor/${sdkTarballName(sdkVersion)}` : `^${sdkVersion}`;
  const module = ts ? './dist/index.js' : './index.js';
  const cls = `${pascal(id)}${o.kind === 'dataset' ? 'Dataset' : o.kind === 'strategy' ? 'Strategy' : o.kind === 'model' ? 'Model' : o.kind === 'scorer' ? 'Scorer' : 'Selector'}`;
  const contributes = manifestFor(o.kind, id, module, cls);
  const pkg: Record<string, unknown> = {
    name,
    version: '0.1.0',
    description: `hpt-bench plugin: the ${o.kind} '${id}'`,
    type: 'module',
    license: 'MIT',
    keywords: ['hpt-bench', 'hpt-bench-plugin', 'oclif-plugin'],
    files: ts ? ['dist'] : ['index.js'],
    // npm test: the conformance kit (`hpt-bench plugins verify`) on this directory, after compiling a TypeScript plugin
    scripts: ts ? { build: 'tsc', prepack: 'tsc', test: 'tsc && hpt-bench plugins verify .' } : { test: 'hpt-bench plugins verify .' },
    dependencies: { '@hpt-bench/sdk': sdkSpec },
    bundleDependencies: ['@hpt-bench/sdk'],
    ...(ts ? { devDependencies: { typescript: TS_VERSION } } : {}),
    oclif: {},
    'hpt-bench': { apiVersion: 1, contributes },
  };
  const files: Record<string, string> = {
    'package.json': `${JSON.stringify(pkg, null, 2)}\n`,
    'README.md': readme(name, o.kind, id, ts, vendored ? sdkTarballName(sdkVersion) : undefined),
    '.gitignore': `node_modules/\n*.tgz\n${vendored ? '!vendor/*.tgz\n' : ''}${ts ? 'dist/\n' : ''}`,
  };
  if (ts) {
    files['tsconfig.json'] = `${JSON.stringify(TSCONFIG, null, 2)}\n`;
    files['src/index.ts'] = source(o.kind, id, cls, true);
  } else {
    files['index.js'] = source(o.kind, id, cls, false);
  }
  return { name, id, kind: o.kind, typescript: ts, ...(vendored ? { sdkTarball: sdkTarballName(sdkVersion) } : {}), files };
}

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    experimentalDecorators: true,
    strict: true,
    skipLibCheck: true,
    types: [],
    rootDir: 'src',
    outDir: 'dist',
  },
  include: ['src'],
};

const NO_OPTIONS = { type: 'object', additionalProperties: false, properties: {} };

/** The `contributes` of the manifest for one kind. */
function manifestFor(kind: ScaffoldKind, id: string, module: string, cls: string): Record<string, unknown> {
  switch (kind) {
    case 'dataset':
      return {
        datasets: [{ id, description: 'yes/no questions (replace with your data)', module, export: cls, scorer: 'boolean', hpiDataset: 1, options: NO_OPTIONS }],
      };
    case 'strategy':
      return {
        strategies: [{ id, description: 'one graded call that asks the model to check its answer', module, export: cls, options: NO_OPTIONS }],
        ladders: [{ id: `hpf-${id}`, description: `the five HPF levels, then ${id} as a sixth level`, levels: ['role', 'zero-shot-cot', 'three-shot-cot', 'least-to-most', 'generated-knowledge', id] }],
      };
    case 'model':
      return {
        models: [
          {
            id,
            description: `${id}:<answer> answers every call with <answer> (replace generate() with your provider's call)`,
            module,
            export: cls,
            options: {
              type: 'object',
              properties: {
                baseUrl: { type: 'string', description: 'from --base-url' },
                apiKeyEnv: { type: 'string', description: 'from --api-key-env: the environment variable holding the key' },
                timeoutMs: { type: 'number', description: 'from --timeout (milliseconds)' },
              },
            },
          },
        ],
      };
    case 'scorer':
      return { scorers: [{ id, description: 'exact match of the first line of the completion with the target (case-insensitive)', module, export: cls, options: NO_OPTIONS }] };
    case 'selector':
      return { selectors: [{ id, description: 'adaptive HPF: try level i at iteration i (no model call)', module, export: cls, options: NO_OPTIONS }] };
  }
}

/** The source file of one kind, in JavaScript or TypeScript. */
function source(kind: ScaffoldKind, id: string, cls: string, ts: boolean): string {
  const t = (typed: string, plain: string) => (ts ? typed : plain);
  const header = `// The ${kind} '${id}' of this hpt-bench plugin. It imports only @hpt-bench/sdk; the host builds the class and passes
// its constructor what it declares ${ts ? 'with @inject(Tokens.X) (experimentalDecorators)' : 'in static inject (no build step)'}. See docs/plugins.md.\n`;
  switch (kind) {
    case 'model':
      return `${header}import { ${t('inject, ', '')}Tokens${t(', type Json, type Logger, type Model, type ModelRequest, type ModelResponse', '')} } from '@hpt-bench/sdk';

export class ${cls}${t(' implements Model', '')} {
${t('  readonly id: string;\n', '')}${t('', '  static inject = [Tokens.ModelName, Tokens.Options, Tokens.Logger];\n\n')}  /**
   * @param name the part of --model after the colon (\`${id}:True\` -> 'True')
   * @param options the options the manifest declares (baseUrl, apiKeyEnv, timeoutMs from the run's flags)
   */
  constructor(${t(`@inject(Tokens.ModelName) private readonly name: string, @inject(Tokens.Options) private readonly options: Record<string, Json>, @inject(Tokens.Logger) logger: Logger`, 'name, options, logger')}) {
    this.id = \`${id}:\${name}\`;${t('', '\n    this.name = name;\n    this.options = options;')}
    logger.debug(\`built \${this.id}\`);
  }

  /** Replace with your provider's call (read the key from process.env[this.options.apiKeyEnv], never from a file). */
  async generate(${t('request: ModelRequest', 'request')})${t(': Promise<ModelResponse>', '')} {
    const text = this.name || 'True';
    return { text, usage: { promptTokens: request.messages.reduce((n, m) => n + m.content.length, 0), completionTokens: text.length }, finishReason: 'stop' };
  }
}
`;
    case 'scorer':
      return `${header}import { ${t('inject, ', '')}Tokens${t(', type GradedOutput, type Json, type Logger, type Sample, type ScoreContext, type Scorer, type Verdict', '')} } from '@hpt-bench/sdk';

export class ${cls}${t(' implements Scorer', '')} {
  ${t('readonly ', '')}id = '${id}';
${t('', '  static inject = [Tokens.Options, Tokens.Logger];\n\n')}  constructor(${t('@inject(Tokens.Options) private readonly options: Record<string, Json>, @inject(Tokens.Logger) private readonly logger: Logger', 'options, logger')}) {${t('', '\n    this.options = options;\n    this.logger = logger;')}}

  /** Called once before the run with the options the dataset gives this scorer (its manifest's scorer.options). */
  prepare(${t('ctx: ScoreContext', 'ctx')})${t(': void', '')} {
    this.logger.debug(\`${id}: scorer options \${JSON.stringify(ctx.options)}\`);
  }

  /** Solved when the first line of the completion equals the target, ignoring case and surrounding spaces. */
  score(${t('sample: Sample, output: GradedOutput', 'sample, output')})${t(': Verdict', '')} {
    const extracted = output.completion.trim().split('\\n')[0]${t('!', '')}.trim();
    const solved = extracted.toLowerCase() === String(sample.target).toLowerCase();
    return { solved, score: solved ? 1 : 0, extracted };
  }

  /** A completion this scorer accepts (lets \`--model baseline:oracle\` answer datasets scored by it). */
  renderTarget(${t('sample: Sample', 'sample')})${t(': string', '')} {
    return String(sample.target);
  }
}
`;
    case 'strategy':
      return `${header}import { ${t('inject, injectable, ', '')}Tokens${t(', type Json, type Logger, type Strategy, type StrategyContext, type StrategyOutput', '')} } from '@hpt-bench/sdk';

/** Used when the dataset's prompt pack has no entry '${id}' (placeholders: the sample's input fields, e.g. {question}). */
const FALLBACK = "{question}\\nAnswer, then check your answer once more before giving it.";

${t('@injectable()\n', '')}export class ${cls}${t(' implements Strategy', '')} {
  ${t('readonly ', '')}id = '${id}';
${t('', '  static inject = [Tokens.Options, Tokens.Logger];\n\n')}  constructor(${t('@inject(Tokens.Options) private readonly options: Record<string, Json>, @inject(Tokens.Logger) private readonly logger: Logger', 'options, logger')}) {${t('', '\n    this.options = options;\n    this.logger = logger;')}}

  /** One graded call: the pack's template for this strategy (or FALLBACK), then the pack's answer cue. */
  async run(${t('ctx: StrategyContext', 'ctx')})${t(': Promise<StrategyOutput>', '')} {
    const template = ctx.entry?.template ?? FALLBACK;
    const r = await ctx.call('graded', ctx.fill(template), ctx.pack.cue);
    return { graded: { promptText: r.promptText, completion: r.text, cue: ctx.pack.cue } };
  }
}
`;
    case 'selector':
      return `${header}import { ${t('inject, ', '')}Tokens${t(', type Json, type Selection, type SelectionContext, type Selector', '')} } from '@hpt-bench/sdk';

export class ${cls}${t(' implements Selector', '')} {
  ${t('readonly ', '')}id = '${id}';
${t('', '  static inject = [Tokens.SelectorArgument, Tokens.Options];\n\n')}  /** @param argument the part of --selector after '${id}:' ('' when none) */
  constructor(${t('@inject(Tokens.SelectorArgument) private readonly argument: string, @inject(Tokens.Options) private readonly options: Record<string, Json>', 'argument, options')}) {${t('', '\n    this.argument = argument;\n    this.options = options;')}}

  /** Level i at iteration i: the manual ladder, in the adaptive accounting (a sample solved at level x scores 2x). */
  async select(${t('ctx: SelectionContext', 'ctx')})${t(': Promise<Selection>', '')} {
    return { level: Math.min(ctx.iteration, ctx.levels.length) };
  }
}
`;
    case 'dataset':
      return `${header}import { ${t('inject, ', '')}Tokens${t(', type Dataset, type DatasetLoadOptions, type Json, type Logger, type Sample', '')} } from '@hpt-bench/sdk';

/** Replace with your data (or read options.data, a file given with --data). Targets are what the scorer expects. */
const RECORDS = [
  { id: 'q1', question: 'Is water wet?', answer: true },
  { id: 'q2', question: 'Is the sun cold?', answer: false },
  { id: 'q3', question: 'Do fish swim?', answer: true },
];

export class ${cls}${t(' implements Dataset', '')} {
  ${t('readonly ', '')}id = '${id}';
${t('', '  static inject = [Tokens.Options, Tokens.Logger];\n\n')}  constructor(${t('@inject(Tokens.Options) private readonly options: Record<string, Json>, @inject(Tokens.Logger) private readonly logger: Logger', 'options, logger')}) {${t('', '\n    this.options = options;\n    this.logger = logger;')}}

  /**
   * The samples. \`input\` holds the placeholders of the prompt pack: this dataset names no promptPack, so the generic
   * pack is used, which reads {question} (and optional {format}, {format_cot}, {exemplars}, {system}).
   */
  async *load(${t('options: DatasetLoadOptions', 'options')})${t(': AsyncIterable<Sample>', '')} {
    if (options.data) this.logger.warn(\`${id}: --data is not read by this dataset yet\`);
    let index = 0;
    for (const r of RECORDS) yield { id: r.id, index: index++, input: { question: r.question }, target: r.answer };
  }
}
`;
  }
}

/** The scaffold's README: what it contributes, where its SDK comes from, and how to test, pack, install and link it. */
function readme(name: string, kind: ScaffoldKind, id: string, ts: boolean, sdkTarball: string | undefined): string {
  const sdkFrom = sdkTarball ? `vendor/${sdkTarball}` : 'the npm registry';
  const build = ts ? `npm install              # installs @hpt-bench/sdk from ${sdkFrom} and typescript\nnpm run build            # tsc: src/index.ts -> dist/index.js (the manifest names dist/index.js)\n` : `npm install              # installs @hpt-bench/sdk from ${sdkFrom} (no build step: index.js is what runs)\n`;
  const tryIt: Record<ScaffoldKind, string> = {
    dataset: `hpt-bench run --plugin . --dataset ${id} --model baseline:oracle --json`,
    strategy: `hpt-bench run --plugin . --dataset <dataset> --split mini --ladder hpf-${id} --model baseline:random --json`,
    model: `hpt-bench run --plugin . --dataset <dataset> --split mini --model ${id}:True --json`,
    scorer: `hpt-bench run --plugin . --dataset <a dataset whose manifest names scorer '${id}'> --model baseline:oracle --json`,
    selector: `hpt-bench run --plugin . --dataset <dataset> --split mini --mode adaptive --selector ${id} --model baseline:random --json`,
  };
  const tgz = `${name.replace(/^@/, '').replace('/', '-')}-0.1.0.tgz`;
  const sdkNote = sdkTarball
    ? `\`@hpt-bench/sdk\` comes from \`vendor/${sdkTarball}\`, which \`hpt-bench plugins new\` packed from the SDK of the hpt-bench
that wrote this package (\`"@hpt-bench/sdk": "file:vendor/${sdkTarball}"\`): \`npm install\` needs no registry copy of
the SDK. Keep the tarball with the sources (it is not in the plugin's own tarball: \`files\` leaves it out). When the SDK
is on a registry, use it from there instead: \`npm install @hpt-bench/sdk@^0.1.0\` (or \`hpt-bench plugins new --sdk
registry\`), then delete \`vendor/\`.`
    : `\`@hpt-bench/sdk\` comes from the npm registry (\`hpt-bench plugins new --sdk registry\`).`;
  return `# ${name}

An [hpt-bench](https://github.com/hpt-bench/hpt-bench) plugin contributing the ${kind} \`${id}\`${kind === 'strategy' ? ` and the ladder \`hpf-${id}\` (the five HPF levels, then \`${id}\`)` : ''}.
Written in ${ts ? 'TypeScript (compiled with `tsc`; constructor injection with `@inject(Tokens.X)`, `experimentalDecorators`)' : 'plain JavaScript (no build step; constructor injection with `static inject = [Tokens.X, ...]`)'}.
The manifest is the \`hpt-bench\` field of package.json; the plugin author's guide is \`docs/plugins.md\` in the hpt-bench repository.

${sdkNote}

## Test it

\`\`\`sh
${build}npm test                 # ${ts ? 'tsc, then ' : ''}hpt-bench plugins verify .: manifest, loading, and each contribution exercised
hpt-bench list --plugin .                # the ${kind} '${id}' is listed (origin: local)
${kind === 'dataset' || kind === 'scorer' ? '' : 'hpt-bench list datasets --json           # <dataset> below: one with a shipped mini split\n'}${tryIt[kind]}
\`\`\`

\`--plugin DIR\` loads the plugin from this directory for one command; when the same plugin is also installed, this
development copy wins (with a warning).

## Pack and install it

\`\`\`sh
npm pack                                                     # ${ts ? 'runs tsc (prepack), then ' : ''}writes ${tgz}
hpt-bench plugins install file:./${tgz}
hpt-bench list ${kind === 'strategy' ? 'strategies' : `${kind}s`}                                   # origin: installed
hpt-bench plugins uninstall ${name}
\`\`\`

\`@hpt-bench/sdk\` is listed in \`bundleDependencies\`, so the tarball carries its own copy of the SDK (and the SDK's
dependencies): \`plugins install file:\` then needs no registry for it. Bundling is required while the dependency is a
\`file:\` tarball: that path could not be resolved from hpt-bench's plugin directory. Or link the directory instead of
installing it: \`hpt-bench plugins link .\`.
`;
}
