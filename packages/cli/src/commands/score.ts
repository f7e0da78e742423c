import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { type CompatMode, HptError, type Json, readJsonText, resolveScoreSubject, scoreWithMetric, scoreWithScorer, type ScoreOutcome } from '@hpt-bench/core';
import { HptCommand } from '../base.js';

/** The text of a predictions/references file, or HptError `E_DATA` naming it. */
function readText(path: string): string {
  try {
    return readJsonText(path);
  } catch (e) {
    throw new HptError('E_DATA', `cannot read ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
}

/** The lines of a file: a final newline does not add one; `\r\n` is accepted; a leading UTF-8 BOM is dropped. */
function linesOf(path: string): string[] {
  const lines = readText(path).split(/\r?\n/);
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** One JSON value per line of a `.jsonl` file. @throws HptError `E_DATA` naming the file and line. */
function jsonLines(path: string): Json[] {
  return linesOf(path).map((l, i) => {
    try {
      return JSON.parse(l) as Json;
    } catch {
      throw new HptError('E_DATA', `${path}:${i + 1} is not valid JSON (a .jsonl file holds one JSON value per line)`);
    }
  });
}

/**
 * Read the segments of a predictions/references file: `.jsonl` = one JSON string per line (multi-line segments);
 * anything else = plain text, one segment per line (a final newline does not add a segment; `\r\n` is accepted). A
 * leading UTF-8 byte order mark is not part of the first segment.
 * @throws HptError `E_DATA` naming the file (and line) when it is missing or a JSONL line is not a JSON string.
 */
export function readSegments(path: string): string[] {
  if (!path.toLowerCase().endsWith('.jsonl')) return linesOf(path);
  return jsonLines(path).map((v, i) => {
    if (typeof v !== 'string') throw new HptError('E_DATA', `${path}:${i + 1} is not a JSON string`);
    return v;
  });
}

/**
 * Read the targets of a references file for a scorer: `.jsonl` = any JSON value per line (a boolean, a number, a list,
 * a string, ...); anything else = one string per line.
 * @throws HptError `E_DATA` naming the file (and line).
 */
export function readTargets(path: string): Json[] {
  return path.toLowerCase().endsWith('.jsonl') ? jsonLines(path) : linesOf(path);
}

/**
 * `hpt-bench score <scorer-or-metric>`: any standalone metric (manifest kind `metrics`: sacrebleu, bleu-hf, rouge, a
 * community metric) or scorer (kind `scorers`: boolean, choice, numeric, bleu, rouge, the HiBench matchers, a
 * community scorer) of any plugin, resolved through the registry, on files of predictions and references.
 */
export default class Score extends HptCommand {
  static override summary = 'Score predictions against references with any standalone metric or scorer of the installed plugins.';
  static override description = `A metric (see \`hpt-bench list metrics\`) scores the whole file: sacreBLEU-compatible BLEU (sacrebleu), the HPT reference's HF-evaluate BLEU (bleu-hf), rouge_score-compatible ROUGE (rouge), or a plugin's. A scorer (\`hpt-bench list scorers\`) judges each prediction against its target as in a run and reports how many it solves, the mean score and its dataset metric. An id that names both (rouge) is the metric unless --as scorer. With --per-sample, one value per segment as well.`;
  static override examples = [
    '<%= config.bin %> score sacrebleu --predictions hyp.txt --references ref1.txt --references ref2.txt',
    '<%= config.bin %> score bleu-hf --predictions hyp.txt --references ref.txt --per-sample --json',
    '<%= config.bin %> score rouge --predictions summaries.jsonl --references gold.jsonl --option stemmer=true --json',
    '<%= config.bin %> score numeric --predictions answers.txt --references gold.txt --per-sample',
    '<%= config.bin %> score hierarchy-list --predictions out.txt --references gold.jsonl --option sep=,',
  ];
  static override args = {
    id: Args.string({ description: 'a metric or scorer id (see `hpt-bench list metrics` and `hpt-bench list scorers`)', required: true }),
  };
  static override flags = {
    predictions: Flags.string({ description: 'predictions: plain text (one segment per line) or .jsonl (one JSON string per line)', required: true }),
    references: Flags.string({ description: 'references, as many as predictions; repeat for several reference streams (metrics). For a scorer, a .jsonl file may hold any JSON target per line (true, 42, ["a","b"])', required: true, multiple: true }),
    option: Flags.string({ char: 'o', description: 'option k=v; metrics: e.g. tokenize=13a|none, smooth=exp|floor|add-k|none, smooth-value=X, level=corpus|sentence, lowercase=true, stemmer=true; scorers: their options (a JSON value or a string), e.g. threshold=0.2, matcher=list', multiple: true }),
    'per-sample': Flags.boolean({ description: 'one score per segment as well', default: false }),
    as: Flags.string({ description: 'read the id as a metric or as a scorer (default: a metric when one has this id)', options: ['metric', 'scorer'] }),
    compat: Flags.string({ description: 'scorers: strict (the intended parsing) or reference (the authors’ code)', options: ['strict', 'reference'], default: 'strict' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Score);
    const options: Record<string, string> = {};
    for (const kv of flags.option ?? []) {
      const at = kv.indexOf('=');
      if (at <= 0) throw new HptError('E_CONFIG', `--option must be k=v, got '${kv}'`);
      options[kv.slice(0, at)] = kv.slice(at + 1);
    }
    const { registry, container } = this.discover(flags.plugin);
    const subject = resolveScoreSubject(registry, args.id, flags.as as 'metric' | 'scorer' | undefined);
    const predictions = readSegments(flags.predictions);
    let outcome: ScoreOutcome;
    if (subject.kind === 'metrics') {
      outcome = await scoreWithMetric(container, subject.contribution, predictions, flags.references.map(readSegments), options, flags['per-sample']);
    } else {
      const scorerOptions: Record<string, Json> = Object.fromEntries(Object.entries(options).map(([k, v]) => [k, jsonOrString(v)]));
      outcome = await scoreWithScorer(container, subject.contribution, predictions, flags.references.map(readTargets), scorerOptions, flags.compat as CompatMode, flags['per-sample']);
    }
    if (flags.json) {
      this.printJson({ ...outcome.aggregate, ...(outcome.perSample ? { scores: outcome.perSample } : {}) });
      return;
    }
    for (const s of outcome.perSample ?? []) this.log(typeof s === 'number' ? s.toFixed(4) : JSON.stringify(s));
    this.log(outcome.text ?? JSON.stringify(outcome.aggregate, null, 2));
  }
}

/** A `--option` value for a scorer: its JSON reading when it is JSON (`0.2`, `true`, `["a"]`), else the string. */
function jsonOrString(v: string): Json {
  try {
    return JSON.parse(v) as Json;
  } catch {
    return v;
  }
}
