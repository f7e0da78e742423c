import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { HptError, type FilterDecl, type Registry } from '@hpt-bench/core';
import { HptCommand } from '../base.js';

/** What the example file names: datasets with an embedded demo split, and a generated dataset with one of its filters. */
export interface ExampleDatasets {
  /** up to two dataset ids that ship a `mini` split (they run offline) */
  mini: string[];
  /** a generated dataset and a filter it declares, for the commented example */
  generated?: { id: string; filter: string; value: string };
}

/**
 * The example evaluation file `hpt-bench init` writes: 2 models × the datasets of `datasets.mini` (the installed
 * plugins' datasets with an embedded `mini` split: the baselines run on them offline as they are), with every other
 * setting shown in comments. The CLI names no benchmark: the ids come from the plugins.
 */
export function exampleEvalFile(datasets: ExampleDatasets): string {
  const mini = datasets.mini.map((id) => `  - id: ${id}\n    split: mini            # the embedded demo split (no download)\n`).join('');
  const gen = datasets.generated;
  return `# hpt-bench evaluation file: \`hpt-bench run --config eval.yaml\`
# Format: schemas/eval-config.schema.json (YAML or JSON). Every model × every dataset below is one run, run in turn;
# each is stored and resumable on its own, so running this file again continues unfinished runs and answers the
# finished ones from the cache. Command-line flags override this file (e.g. --limit 3, --seed 7, --json).
# Precedence: command-line flag > a dataset's or model's own entry > the top-level entry here > the flag's default.
# Relative paths (data, prices, store, out) are relative to this file's directory.
# The datasets you can name: \`hpt-bench list datasets\`.

datasets:
${mini || '  # - id: <dataset>\n'}  # - id: <dataset>
  #   data: samples.jsonl            # your own .json/.jsonl samples
  #   limit: 50                      # only the first 50 samples
  #   threshold: 0.15                # datasets solved by a metric score need a threshold
${gen ? `  # - id: ${gen.id}${' '.repeat(Math.max(1, 24 - gen.id.length))}# a generated dataset, with its filters\n  #   filters: { ${gen.filter}: [${gen.value}] }\n  #   limit: 20\n` : ''}
models:
  - id: baseline:oracle     # answers with the target
  - id: baseline:random     # a seeded valid answer
  # - id: openai:gpt-4o-mini
  #   apiKeyEnv: OPENAI_API_KEY     # the variable that holds the key (never the key itself)
  #   concurrency: 8
  # - id: openai:llama3
  #   name: llama3-local            # label in the table and in {model} of out
  #   baseUrl: http://127.0.0.1:11434/v1
  #   generation: { temperature: 0.6, topP: 0.9, maxTokens: 1024 }
  # - id: openai:meta-llama/Meta-Llama-3-8B-Instruct
  #   baseUrl: [http://gpu1:8000/v1, http://gpu2:8000/v1]   # replicas: calls go to the least busy one

# Defaults of every run (all optional):
seed: 0
compat: strict              # or reference (reproduce the authors' code)
replicates: 1               # ladder climbs per sample (pass@k)
# limit: 100                # samples per dataset unless the dataset says otherwise
# concurrency: 4
# generation: { temperature: 0.6, topP: 0.9, maxTokens: 1024 }
# ladder: hpf
# fullLadder: true          # every level on every sample, no early exit (same results; all attempts stored)
# mode: adaptive            # the adaptive HPF, with a selector:
# selector: fixed:2
# prices: prices.json       # USD per 1M tokens per model id (schemas/prices.schema.json)
store: .hpt-bench/hpt-bench.db
# out: results/{model}-{dataset}.jsonl   # one JSONL file per run
`;
}

/** The example's datasets from the installed plugins (`exampleEvalFile`). */
export function exampleDatasets(registry: Registry): ExampleDatasets {
  const all = registry.list('datasets');
  const mini = all.filter((c) => c.decl.splits && typeof c.decl.splits.mini === 'string').slice(0, 2).map((c) => c.id);
  for (const c of all) {
    const f = (c.decl.filters ?? []).find((x): x is FilterDecl => typeof x === 'object' && Array.isArray(x.values) && x.values.length > 0);
    if (f) return { mini, generated: { id: c.id, filter: f.name, value: f.values![0]! } };
  }
  return { mini };
}

/** `hpt-bench init [FILE]`: write a commented example evaluation file. */
export default class Init extends HptCommand {
  static override summary = 'Write a commented example evaluation file for `hpt-bench run --config`.';
  static override description = 'The example runs 2 models × 2 datasets offline as it is (baseline:oracle and baseline:random on the embedded mini splits of two installed datasets); its comments show the other settings (your data, OpenAI-compatible models with their endpoint and key variable, generation settings, limits, prices, out). The format is schemas/eval-config.schema.json. An existing file is kept unless --force.';
  static override examples = ['<%= config.bin %> init', '<%= config.bin %> init evals/first.yaml && <%= config.bin %> run --config evals/first.yaml'];
  static override args = {
    file: Args.string({ description: 'file to write', default: 'eval.yaml' }),
  };
  static override flags = {
    force: Flags.boolean({ description: 'overwrite FILE when it exists', default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Init);
    const path = resolve(args.file);
    if (existsSync(path)) {
      if (statSync(path).isDirectory()) throw new HptError('E_CONFIG', `${args.file} is a directory; give a file name`);
      if (!flags.force) throw new HptError('E_CONFIG', `${args.file} exists; it is kept (--force overwrites it)`);
    }
    try {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, exampleEvalFile(exampleDatasets(this.discover(flags.plugin ?? []).registry)));
    } catch (e) {
      throw new HptError('E_CONFIG', `cannot write ${args.file}: ${(e as Error).message}`);
    }
    if (flags.json) this.printJson({ file: path });
    else this.log(`wrote ${args.file}; run it with: hpt-bench run --config ${args.file}`);
  }
}
