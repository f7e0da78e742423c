/** File and output helpers of the `generate` e2e tests. */
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
