/**
 * Per-sample results as a user reads them: the `--out` JSONL line of a stored sample (schemas/sample-record.schema.json)
 * and the writer of a run's `--out` file.
 */
import type { SampleRecord, SampleResult } from '@hpt-bench/sdk';
import { AtomicFile } from '../io/atomic-file.js';
import { RunStore } from '../store/store.js';

/**
 * The `--out` record of a stored sample: its `SampleResult` without the internal `index`, with `replicate` (0-based) when
 * the run has `replicates > 1`. Keys in the order of the schema.
 */
export function sampleRecordOf(r: SampleResult, replicates = 1): SampleRecord {
  return {
    sampleId: r.sampleId,
    level: r.level,
    hpi: r.hpi,
    solved: r.solved,
    prediction: r.prediction,
    target: r.target,
    ...(replicates > 1 ? { replicate: r.index % replicates } : {}),
    ...(r.meta ? { meta: r.meta } : {}),
    attempts: r.attempts,
    ...(r.iteration !== undefined ? { iteration: r.iteration } : {}),
    ...(r.selections ? { selections: r.selections } : {}),
    ...(r.records ? { records: r.records } : {}),
  };
}

/**
 * Write run `runId`'s scored samples from `store` to `path` as JSONL (input order, replicates adjacent), atomically
 * (`AtomicFile`). Errored samples are not written (they have no verdict).
 * @throws the store's or the file system's error; `path` is then left as it was.
 */
export async function writeSampleRecords(store: RunStore, runId: string, path: string, replicates = 1): Promise<void> {
  const file = AtomicFile.open(path);
  try {
    for (const r of store.iterSamples(runId)) await file.write(`${JSON.stringify(sampleRecordOf(r, replicates))}\n`);
  } catch (e) {
    file.abort();
    throw e;
  }
  await file.commit();
}

/**
 * Read run `runId`'s scored samples from the store at `storePath` (an SQLite file or a PostgreSQL URL), as `--out`
 * records, in input order. For a library user after `evaluate()`; the store is opened and closed here.
 * @param replicates the run's replicates per sample (`RunSummary.samples`, else 1), for each record's `replicate`.
 * @throws HptError `E_STORE` when the store cannot be opened.
 */
export function readSampleRecords(storePath: string, runId: string, replicates = 1): SampleRecord[] {
  const store = new RunStore(storePath);
  try {
    return [...store.iterSamples(runId)].map((r) => sampleRecordOf(r, replicates));
  } finally {
    store.close();
  }
}
