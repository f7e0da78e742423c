/**
 * Saved HPI_Dataset calibrations (specs/hpt.md §2.4, §9 #21): `hpt-bench calibrate --save` writes a
 * dataset's computed HPI_Dataset here, in the run store (SQLite or PostgreSQL), for later runs to use.
 */
import { type SqlHandle, sqlHandle } from './sql.js';
import { HptError } from '@hpt-bench/sdk';
import { CALIBRATIONS_SCHEMA } from './schema.js';

/**
 * A saved calibration:
 * - `hpiDataset`: the penalty constant (mean over samples of the per-sample mean of the four rule scores, 1..5; not
 *   rounded, hpt.md §2.4 step 4);
 * - `n`: samples it was computed from;
 * - `source`: `annotations` (human rule scores from a file) or `judge` (an LLM judge's rule scores);
 * - `createdAt`: when it was saved, ISO-8601 UTC.
 */
export interface SavedCalibration {
  hpiDataset: number;
  n: number;
  source: string;
  createdAt: string;
}

/**
 * Save `hpiDataset` as dataset `dataset`'s HPI_Dataset, replacing an earlier one (table `hpi_calibrations`, created when
 * missing, on a `RunStore`'s `db`).
 * @param calibration `dataset`: the dataset's canonical id (as `hpt-bench run` resolves it); `hpiDataset`: finite, > 0;
 *   `n`: integer ≥ 1; `source`: e.g. `annotations` or `judge`; `createdAt`: default now.
 * @returns what was saved.
 * @throws HptError `E_CONFIG` for a non-finite or non-positive value or n < 1.
 */
export function saveCalibration(handle: SqlHandle, calibration: { dataset: string; hpiDataset: number; n: number; source: string; createdAt?: string }): SavedCalibration {
  const db = sqlHandle(handle);
  const { dataset, hpiDataset, n, source } = calibration;
  if (!Number.isFinite(hpiDataset) || hpiDataset <= 0) throw new HptError('E_CONFIG', `HPI_Dataset of ${dataset} must be a positive number, got ${hpiDataset}`);
  if (!Number.isInteger(n) || n < 1) throw new HptError('E_CONFIG', `a calibration of ${dataset} needs at least one sample, got n = ${n}`);
  const createdAt = calibration.createdAt ?? new Date().toISOString();
  if (!db.hasTable('hpi_calibrations')) db.exec(CALIBRATIONS_SCHEMA);
  db.prepare(
    'INSERT INTO hpi_calibrations (dataset, hpi_dataset, n, source, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (dataset) DO UPDATE SET hpi_dataset = excluded.hpi_dataset, n = excluded.n, source = excluded.source, created_at = excluded.created_at',
  ).run(dataset, hpiDataset, n, source, createdAt);
  return { hpiDataset, n, source, createdAt };
}

/**
 * The HPI_Dataset saved for `datasetId` by `saveCalibration`, or undefined when none was saved (also when the store has
 * no `hpi_calibrations` table yet; nothing is written).
 */
export function savedHpiDataset(handle: SqlHandle, datasetId: string): SavedCalibration | undefined {
  const db = sqlHandle(handle);
  if (!db.hasTable('hpi_calibrations')) return undefined;
  const row = db.prepare('SELECT hpi_dataset, n, source, created_at FROM hpi_calibrations WHERE dataset = ?').get(datasetId) as
    | { hpi_dataset: number; n: number; source: string; created_at: string }
    | undefined;
  return row ? { hpiDataset: row.hpi_dataset, n: row.n, source: row.source, createdAt: row.created_at } : undefined;
}
