/**
 * Matching the samples of two runs (`compare`, level transitions): by sample id and replicate index, restricted to the
 * samples both runs recorded a score for.
 */
import type { SampleUnit } from '@hpt-bench/sdk';

/** The key a sample is matched by: its id and its replicate index (else its occurrence number among equal ids). */
export function pairingKeys(units: readonly SampleUnit[]): string[] {
  const seen = new Map<string, number>();
  return units.map((u) => {
    const k = seen.get(u.sampleId) ?? 0;
    seen.set(u.sampleId, k + 1);
    return `${u.sampleId}\u0000${u.replicate ?? k}`;
  });
}

/**
 * Two runs' units matched by `pairingKeys`, in A's order.
 * - `pairs`: matched units that have at least one recorded score (`scores > 0`) in both runs, as `[a, b]`;
 * - `onlyA` / `onlyB`: units of one run without a match in the other;
 * - `unscored`: matched units left out because a run recorded no score for them (adaptive `--compat reference`).
 * Pure; never throws (no pair at all is the caller's error to raise).
 */
export function pairUnits(a: readonly SampleUnit[], b: readonly SampleUnit[]): { pairs: [SampleUnit, SampleUnit][]; onlyA: number; onlyB: number; unscored: number } {
  const keysB = pairingKeys(b);
  const byKeyB = new Map<string, SampleUnit>();
  b.forEach((u, i) => byKeyB.set(keysB[i]!, u));
  const matchedB = new Set<string>();
  const pairs: [SampleUnit, SampleUnit][] = [];
  let onlyA = 0;
  let unscored = 0;
  for (const [i, key] of pairingKeys(a).entries()) {
    const ua = a[i]!;
    const ub = byKeyB.get(key);
    if (!ub) {
      onlyA++;
      continue;
    }
    matchedB.add(key);
    if (ua.scores <= 0 || ub.scores <= 0) {
      unscored++;
      continue;
    }
    pairs.push([ua, ub]);
  }
  return { pairs, onlyA, onlyB: b.length - matchedB.size, unscored };
}
