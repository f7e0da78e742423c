import { Args, Flags } from '@oclif/core';
import { HptError, readJsonText } from '@hpt-bench/core';
import { scoreStandalone, STANDALONE_METRICS } from '@hpt-bench/metrics';
import { HptCommand } from '../base.js';

/**
 * Read the segments of a predictions/references file: `.jsonl` = one JSON string per line (multi-line segments);
 * anything else = plain text, one segment per line (a final newline does not add a segment; `\r\n` is accepted). A
 * leading UTF-8 byte order mark is not part of the first segment.
 * @throws HptError `E_DATA` naming the file (and line) when it is missing or a JSONL line is not a JSON string.
 */
export function readSegments(path: string): string[] {
  let text: string;
  try {
    text = readJsonText(path);
  } catch (e) {
    throw new HptError('E_DATA', `cannot read ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  const lines = text.split(/\r?\n/);
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  if (!path.toLowerCase().endsWith('.jsonl')) return lines;
  return lines.map((l, i) => {
    let v: unknown;
    try {
      v = JSON.parse(l);
    } catch {
      throw new HptError('E_DATA', `${path}:${i + 1} is not valid JSON (a .jsonl file holds one JSON string per line)`);
    }
    if (typeof v !== 'string') throw new HptError('E_DATA', `${path}:${i + 1} is not a JSON string`);
    return v;
  });
}

/** `hpt-bench score <metric>`: BLEU (sacreBLEU-compatible or the HPT reference's HF variant) or ROUGE on files. */
export default class Score extends HptCommand {
  static override summary = 'Score predictions against references with sacreBLEU-compatible BLEU, HF-evaluate BLEU, or rouge_score-compatible ROUGE.';
  static override examples = [
    '<%= config.bin %> score sacrebleu --predictions hyp.txt --references ref1.txt --references ref2.txt',
    '<%= config.bin %> score bleu-hf --predictions hyp.txt --references ref.txt --per-sample --json',
    '<%= config.bin %> score rouge --predictions summaries.jsonl --references gold.jsonl --option stemmer=true --json',
  ];
  static override args = {
    metric: Args.string({ description: 'metric id', options: [...STANDALONE_METRICS], required: true }),
  };
  static override flags = {
    predictions: Flags.string({ description: 'predictions: plain text (one segment per line) or .jsonl (one JSON string per line)', required: true }),
    references: Flags.string({ description: 'references, same format and length as --predictions; repeat for several reference streams', required: true, multiple: true }),
    option: Flags.string({ char: 'o', description: 'metric option k=v: tokenize=13a|none, smooth=exp|floor|add-k|none, smooth-value=X, level=corpus|sentence, lowercase=true, stemmer=true', multiple: true }),
    'per-sample': Flags.boolean({ description: 'one score per segment', default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Score);
    const options: Record<string, string> = {};
    for (const kv of flags.option ?? []) {
      const at = kv.indexOf('=');
      if (at <= 0) throw new HptError('E_CONFIG', `--option must be k=v, got '${kv}'`);
      options[kv.slice(0, at)] = kv.slice(at + 1);
    }
    const predictions = readSegments(flags.predictions);
    const refs = flags.references.map(readSegments);
    const result = scoreStandalone(args.metric, predictions, refs, options, flags['per-sample']);
    if (flags.json) {
      this.printJson(result);
      return;
    }
    if ('scores' in result) {
      for (const s of result.scores as unknown[]) this.log(typeof s === 'number' ? s.toFixed(4) : JSON.stringify(s));
      return;
    }
    if ('rouge1' in result) {
      for (const [t, v] of Object.entries(result)) {
        const r = v as { precision: number; recall: number; fmeasure: number };
        this.log(`${t.padEnd(9)} P ${r.precision.toFixed(4)}  R ${r.recall.toFixed(4)}  F ${r.fmeasure.toFixed(4)}`);
      }
      return;
    }
    const r = result as { score: number; precisions?: number[]; bp?: number; brevityPenalty?: number; sysLen?: number; refLen?: number };
    const extra = r.precisions ? ` (${r.precisions.map((p) => p.toFixed(1)).join('/')}, BP ${(r.bp ?? r.brevityPenalty ?? 0).toFixed(3)})` : '';
    this.log(`${args.metric} ${args.metric === 'sacrebleu' ? r.score.toFixed(2) : r.score.toFixed(4)}${extra}`);
  }
}
