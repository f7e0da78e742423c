import * as Flags from '@oclif/core/flags';
import { HptError, judgeLadderPrompts, type JudgeLevelResult, type JudgeOutcome, type JudgeSpec } from '@hpt-bench/core';
import cliProgress from 'cli-progress';
import { endpointFlags, HptCommand, judgeCallSettingsFrom, numberFlag, TerminalTable } from '../base.js';
import { storeFlag } from '../store-flag.js';

/** `hpt-bench judge`: LLM-as-a-judge rating of each HPF level's prompts on the four HPT rules (hpt.md §5.4). */
export default class Judge extends HptCommand {
  static override summary = 'Rate the prompt of every ladder level on the four HPT rules with an LLM judge.';
  static override description = `For every level of the ladder (default hpf: role, zero-shot-cot, three-shot-cot, least-to-most, generated-knowledge) and every item of the dataset(s), build the level's prompt from the dataset's prompt pack (least-to-most: steps 1..k-1 run on the helper model, the last step is filled but not run; generated-knowledge: one helper knowledge call), send it to the judge with the gold answer and the number of multi-step prompts, and read the four rule scores 1-5 (structured output, or parsed from text when the endpoint rejects it). Reports per level the mean of each rule score and their mean (total). Replies whose scores cannot be read count as invalid and are left out. Model calls are cached in --store, so re-running the same command makes no requests.`;
  static override examples = [
    'OPENAI_API_KEY=... <%= config.bin %> judge --model openai:gpt-4o-2024-08-06 --dataset my-dataset --data samples.json',
    '<%= config.bin %> judge --model openai:llama3 --base-url http://127.0.0.1:8000/v1 --dataset my-dataset,other-dataset --data my.json --data other.json --json',
    '<%= config.bin %> judge --model openai:gpt-4o --helper-model openai:gpt-4o-mini --dataset my-dataset --data samples.json --limit 20 --out judge.jsonl',
  ];

  static override flags = {
    model: Flags.string({ char: 'm', description: 'judge model id, e.g. openai:gpt-4o-2024-08-06 (the paper’s judge)', required: true }),
    'helper-model': Flags.string({ description: 'model that runs the least-to-most steps and generates knowledge (default: --model)' }),
    dataset: Flags.string({ char: 'd', description: 'dataset id(s), comma-separated or repeated: the means aggregate over all of them', required: true, multiple: true, delimiter: ',' }),
    data: Flags.string({ description: 'read the samples of a dataset from this .json/.jsonl file; with several datasets give one --data per dataset, in the same order', multiple: true }),
    split: Flags.string({ description: "split: a shipped one such as 'mini', or a Hugging Face split (default: the paper's)" }),
    limit: Flags.integer({ char: 'n', description: 'judge only the first N items of each dataset', min: 1 }),
    ladder: Flags.string({ description: 'ladder id or a JSON file {"id","levels":[...]}', default: 'hpf' }),
    temperature: Flags.string({ description: 'sampling temperature of the judge', default: '0' }),
    'helper-temperature': Flags.string({ description: 'sampling temperature of the helper calls (top-p 0.9, 1024 max tokens)', default: '0.6' }),
    'max-tokens': Flags.integer({ description: 'maximum completion tokens of a judge reply', default: 1024, min: 1 }),
    concurrency: Flags.integer({ char: 'c', description: 'items judged at once, and the ceiling of the adaptive limit of calls in flight per endpoint', default: 4, min: 1, max: 1024 }),
    store: storeFlag('(holds the model-call cache)'),
    out: Flags.string({ description: 'write one JSON line per (level, item) — prompt, gold, scores, raw reply, helper calls — to this file' }),
    'on-invalid': Flags.string({ description: 'a record missing a required field: fail, or skip it with a warning', options: ['fail', 'skip'], default: 'fail' }),
    ...endpointFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Judge);
    const datasetIds = flags.dataset.map((d) => d.trim()).filter(Boolean);
    const data = flags.data ?? [];
    if (data.length && data.length !== datasetIds.length) {
      throw new HptError('E_CONFIG', `--data was given ${data.length} time(s) for ${datasetIds.length} dataset(s) (${datasetIds.join(', ')}); give one --data per --dataset, in the same order`);
    }
    const spec: JudgeSpec = {
      datasets: datasetIds.map((id, i) => ({ id, ...(data[i] ? { data: data[i] } : {}) })),
      ladder: flags.ladder,
      model: flags.model,
      ...(flags['helper-model'] ? { helperModel: flags['helper-model'] } : {}),
      ...(flags.limit ? { limit: flags.limit } : {}),
      ...(flags.split ? { split: flags.split } : {}),
      temperature: numberFlag('--temperature', flags.temperature, 0, 2),
      helperTemperature: numberFlag('--helper-temperature', flags['helper-temperature'], 0, 2),
      maxTokens: flags['max-tokens'],
      onInvalid: flags['on-invalid'] as 'fail' | 'skip',
      cacheDir: flags['cache-dir'],
      ...judgeCallSettingsFrom(flags),
    };
    const { registry, container } = this.discover(flags.plugin);
    const showBar = !flags.json && Boolean(process.stderr.isTTY);
    const bar = showBar ? new cliProgress.SingleBar({ format: 'judge {bar} {value}/{total} items', stream: process.stderr, hideCursor: true }, cliProgress.Presets.shades_classic) : undefined;
    bar?.start(flags.limit ? flags.limit * datasetIds.length : 0, 0);
    let result: JudgeOutcome;
    try {
      result = await judgeLadderPrompts(spec, {
        store: flags.store,
        plugins: { registry, container },
        logger: this.logger,
        ...(flags.out ? { out: flags.out } : {}),
        onItem: (done) => {
          if (!bar) return;
          if (!flags.limit) bar.setTotal(Math.max(done, bar.getTotal()));
          bar.update(done);
        },
      });
    } finally {
      bar?.stop();
    }
    const summary = {
      levels: result.levels,
      dataset: result.datasets.join(','),
      ...(result.datasets.length > 1 ? { datasets: result.datasets } : {}),
      model: result.model,
      helperModel: result.helperModel,
      items: result.items,
      structuredOutput: result.structuredOutput,
      errored: result.errored,
    };
    if (flags.json) {
      this.printJson(summary);
      return;
    }
    this.log(renderJudge(result.levels, summary));
  }
}

const fmt = (v: number | null): string => (v === null ? '-' : v.toFixed(2));

/** The human-readable result: one row per level, means rounded to 2 decimals for display only (hpt.md §9 #20). */
export function renderJudge(levels: JudgeLevelResult[], s: { dataset: string; model: string; helperModel: string; items: number; errored: number }): string {
  const t = new TerminalTable({ head: ['level', 'strategy', 'rule 1 recall', 'rule 2 understanding', 'rule 3 analysis', 'rule 4 application', 'total', 'n', 'invalid'] });
  for (const l of levels) t.push([String(l.level), l.strategy, fmt(l.score1), fmt(l.score2), fmt(l.score3), fmt(l.score4), fmt(l.total), String(l.n), String(l.invalid)]);
  const helper = s.helperModel === s.model ? '' : `, helper ${s.helperModel}`;
  const errored = s.errored ? `; ${s.errored} ratings failed after retries and are left out` : '';
  return `${t.toString()}\njudge ${s.model}${helper} on ${s.dataset}: ${s.items} items${errored}`;
}
