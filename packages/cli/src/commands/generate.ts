import { once } from 'node:events';
import { resolve } from 'node:path';
import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { AtomicFile, generatedRecords, HptError, parseFilterOptions, type CompatMode } from '@hpt-bench/core';
import { filterFlags, HptCommand, TerminalTable } from '../base.js';
import { seedFlag } from '../seed-flag.js';

/** What `hpt-bench generate --json` prints: where the records went and how many per task. */
export interface GenerateSummary {
  dataset: string;
  out: string;
  records: number;
  seed: number;
  compat: CompatMode;
  filters: Record<string, string[]>;
  tasks: Record<string, number>;
  ms: number;
}

/** Flush the buffered JSONL text when it reaches this many characters. */
const CHUNK = 1 << 20;

/**
 * `hpt-bench generate`: write the records of a generated dataset (any plugin's generator) as JSONL.
 * Same parameters and seed => byte-identical file (DESIGN.md "The four plugin kinds": generated datasets).
 */
export default class Generate extends HptCommand {
  static override summary = 'Write the samples of a generated dataset as JSONL.';
  static override description = `Generates every record of the suite (or the part the filters select), one self-describing JSON object per line: id, scenario, task, preset, representation, icl, system, prompt, target, matcher, seed, params, args and the structure, formula or document it asks about. With no filters, the full default suite: all tasks x presets x representations x ICL modes. The file is written to a temporary name and renamed when complete. Feed it back with \`hpt-bench run --dataset <same dataset> --data FILE.jsonl\`. The generated datasets and the filters each declares, with their values, are listed by \`hpt-bench list datasets --json\` (FILTERS below: those of the installed plugins).`;
  static override examples = [
    '<%= config.bin %> list datasets --json',
    '<%= config.bin %> generate <dataset> --out samples.jsonl',
    '<%= config.bin %> generate <dataset> --task <task> --seed 7 --out part.jsonl',
    '<%= config.bin %> generate <dataset> --filter <name>=<value>[,<value>...] --limit 1 --out -',
  ];

  static override args = {
    dataset: Args.string({ description: 'a generated dataset id (see `hpt-bench list datasets`)', required: true }),
  };

  static override flags = {
    out: Flags.string({ char: 'o', description: "output JSONL file ('-' for stdout)", required: true }),
    seed: seedFlag('generator seed, an integer up to 2^53 - 1 (recorded in every record)', 0),
    compat: Flags.string({ description: "strict (the tasks' intended semantics) or reference (the authors' toolkit behaviour)", options: ['strict', 'reference'], default: 'strict' }),
    limit: Flags.integer({ char: 'n', description: 'write only the first N records', min: 1 }),
    data: Flags.string({ description: 'a local source for datasets built from data rather than drawn at random (a file or folder, as the dataset documents); a generator drawn from --seed refuses it' }),
    ...filterFlags,
  };

  async run(): Promise<void> {
    const started = performance.now();
    const { registry, container, argv } = this.discoverWithFilters(Generate);
    const { args, flags } = await this.parse(Generate, argv);
    const compat = flags.compat as CompatMode;
    const filters = parseFilterOptions(flags.filter ?? []);
    const { datasetId, records } = await generatedRecords({ registry, container }, args.dataset, { seed: flags.seed, compat, filters, ...(flags.data !== undefined ? { data: flags.data } : {}) });
    const toStdout = flags.out === '-';
    const path = toStdout ? '-' : resolve(flags.out);
    // a file is written whole or not at all (a temp file renamed into place); stdout is streamed
    const file = toStdout ? undefined : AtomicFile.open(path);
    const tasks: Record<string, number> = {};
    let n = 0;
    let buf = '';
    const showCount = !toStdout && !flags.json && Boolean(process.stderr.isTTY);
    const flush = async (): Promise<void> => {
      if (!buf) return;
      if (file) await file.write(buf);
      else if (!process.stdout.write(buf)) await once(process.stdout, 'drain');
      buf = '';
      if (showCount) process.stderr.write(`\r${n} records`);
    };
    try {
      for (const r of records) {
        buf += `${JSON.stringify(r)}\n`;
        n++;
        const task = typeof r.task === 'string' ? r.task : '(none)';
        tasks[task] = (tasks[task] ?? 0) + 1;
        if (buf.length >= CHUNK) await flush();
        if (flags.limit !== undefined && n >= flags.limit) break;
      }
      await flush();
      if (n === 0) throw new HptError('E_DATA', `the filters select no records of ${datasetId}; nothing was written`);
      await file?.commit();
    } catch (e) {
      file?.abort();
      throw e;
    }
    if (showCount) process.stderr.write('\n');
    const summary: GenerateSummary = { dataset: datasetId, out: path, records: n, seed: flags.seed, compat, filters, tasks, ms: Math.round(performance.now() - started) };
    if (flags.json) {
      if (toStdout) process.stderr.write(`${JSON.stringify(summary)}\n`);
      else this.printJson(summary);
      return;
    }
    if (toStdout) return;
    const t = new TerminalTable({ head: ['task', 'records'] });
    for (const [task, count] of Object.entries(tasks)) t.push([task, String(count)]);
    t.push(['total', String(n)]);
    process.stdout.write(`${t.toString()}\nwrote ${n} records of ${datasetId} (seed ${flags.seed}, ${compat}) to ${path} in ${summary.ms} ms\n`);
  }
}
