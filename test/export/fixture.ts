/**
 * A store for the export tests, made by the built CLI in this process (`runCli`): BoolQ `mini` (8 samples) with
 * `baseline:random` on the 5-level HPF ladder, with `baseline:oracle`, and with `baseline:random` on a 2-level ladder
 * with `--replicates 2` (so some samples stay unsolved and sample ids repeat). `storeTruth` reads a run's per-sample
 * levels and HPI straight from the store with SQL (better-sqlite3, read-only), independently of the exporters.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { runCli, SHARED } from '../helpers/cli.js';

/** The shared specs of the export formats (read at test time, never copied into the project). */
export const SPECS = join(SHARED, 'specs', 'export-formats');

export interface Fixture {
  dir: string;
  store: string;
  runs: { random: string; oracle: string; replicated: string };
}

async function run(args: string[]): Promise<string> {
  const r = await runCli(args);
  if (r.code !== 0) throw new Error(`run failed: ${r.stderr}${r.stdout}`);
  return (JSON.parse(r.stdout) as { runId: string }).runId;
}

/** Make the three runs in a new temp store. */
export async function makeFixture(): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'hpt-export-'));
  const store = join(dir, 's.db');
  const base = ['run', '--dataset', 'boolq', '--split', 'mini', '--store', store, '--json'];
  const ladder = join(dir, 'two.json');
  writeFileSync(ladder, JSON.stringify({ id: 'two', levels: ['role', 'zero-shot-cot'] }));
  const random = await run([...base, '--model', 'baseline:random']);
  const oracle = await run([...base, '--model', 'baseline:oracle']);
  const replicated = await run([...base, '--model', 'baseline:random', '--ladder', ladder, '--replicates', '2']);
  return { dir, store, runs: { random, oracle, replicated } };
}

/** A run's per-sample truth: `<sample id>#<replicate>` → level (null: unsolved) and HPI; the run's HPI and accuracy. */
export interface Truth {
  samples: Map<string, { level: number | null; hpi: number; solved: boolean }>;
  hpi: number;
  accuracy: number;
  m: number;
  hpiDataset: number;
  levelCounts: Record<string, number>;
}

/** Read `runId`'s truth from the store file with SQL (not through hpt-bench's code). */
export function storeTruth(storePath: string, runId: string): Truth {
  const db = new Database(storePath, { readonly: true });
  try {
    const rows = db.prepare("SELECT sample_id, level, hpi, solved, scores, meta FROM samples WHERE run_id = ? AND status = 'done' ORDER BY idx").all(runId) as { sample_id: string; level: number | null; hpi: number; solved: number; scores: number; meta: string | null }[];
    const samples = new Map<string, { level: number | null; hpi: number; solved: boolean }>();
    let h = 0;
    let n = 0;
    let solved = 0;
    const levelCounts: Record<string, number> = { unsolved: 0 };
    for (const r of rows) {
      const rep = r.meta ? ((JSON.parse(r.meta) as { replicate?: number }).replicate ?? 0) : 0;
      samples.set(`${r.sample_id}#${rep}`, { level: r.level, hpi: r.hpi, solved: r.solved === 1 });
      h += r.hpi;
      n += r.scores;
      solved += r.solved;
      if (r.solved) levelCounts[String(r.level)] = (levelCounts[String(r.level)] ?? 0) + 1;
      else levelCounts.unsolved! += 1;
    }
    const summary = JSON.parse((db.prepare('SELECT summary FROM runs WHERE id = ?').get(runId) as { summary: string }).summary) as { ladder: string[]; hpiDataset: number };
    return { samples, hpi: h / n, accuracy: solved / n, m: summary.ladder.length, hpiDataset: summary.hpiDataset, levelCounts };
  } finally {
    db.close();
  }
}

/** The lines of a JSONL file, parsed. */
export function readJsonl(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Export `runIds` in `format` into `out` with the CLI (`--json`); @returns the files written, by run id. */
export async function exportWith(store: string, runIds: string[], format: string, out: string): Promise<Map<string, string[]>> {
  const r = await runCli(['export', ...runIds, '--format', format, '--out', out, '--store', store, '--json']);
  if (r.code !== 0) throw new Error(`export failed (${r.code}): ${r.stderr}${r.stdout}`);
  const j = JSON.parse(r.stdout) as { format: string; runs: { runId: string; files: string[] }[] };
  if (j.format !== format) throw new Error(`format ${j.format}`);
  return new Map(j.runs.map((x) => [x.runId, x.files]));
}
