/** File and output helpers of the e2e tests (`generate` outputs, `run --out` records). */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Json } from '@hpt-bench/sdk';

/** The SHA-256 (hex) of a file's bytes: byte-identical outputs compare equal. */
export function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** The records of a JSONL text (empty lines skipped). @throws SyntaxError on a line that is not JSON. */
export function jsonLines(text: string): Record<string, Json>[] {
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, Json>);
}

/**
 * Per sample (by sample id) of an `--out` file: level (null = unsolved), hpi, solved and prediction — what two runs of
 * the same data must agree on when their replies are the same.
 */
export function perSample(outFile: string): Record<string, { level: number | null; hpi: number; solved: boolean; prediction: Json }> {
  return Object.fromEntries(
    readFileSync(outFile, 'utf8').split('\n').filter(Boolean).map((l) => {
      const x = JSON.parse(l) as { sampleId: string; level: number | null; hpi: number; solved: boolean; prediction: Json };
      return [x.sampleId, { level: x.level, hpi: x.hpi, solved: x.solved, prediction: x.prediction }];
    }),
  );
}
