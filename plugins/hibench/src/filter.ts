import { HptError } from '@hpt-bench/sdk';
import { closest } from 'fastest-levenshtein';

/**
 * Check the values of one filter dimension against the valid ones and return the selection (all valid values, in
 * their canonical order, when `wanted` is undefined or empty; else the wanted ones in canonical order).
 * @param what the flag's name for the error message, e.g. `--task` or `--preset`.
 * @param scenario the scenario, for the message.
 * @throws HptError `E_CONFIG` naming the unknown value, the closest valid one and the full list.
 */
export function selectValues<T extends string>(scenario: string, what: string, valid: readonly T[], wanted: readonly string[] | undefined): T[] {
  if (!wanted || wanted.length === 0) return [...valid];
  for (const w of wanted) {
    if (!(valid as readonly string[]).includes(w)) {
      const hint = valid.length ? ` (did you mean '${suggest(w, valid)}'?)` : '';
      throw new HptError('E_CONFIG', `${scenario}: unknown ${what} '${w}'${hint}; valid: ${valid.join(', ')}`);
    }
  }
  return valid.filter((v) => wanted.includes(v));
}

/** The valid value closest to `wanted`: one that contains it (the shortest), else the nearest by edit distance. */
export function suggest(wanted: string, valid: readonly string[]): string {
  const w = wanted.toLowerCase();
  const containing = valid.filter((v) => v.toLowerCase().includes(w)).sort((a, b) => a.length - b.length);
  return containing[0] ?? closest(wanted, [...valid]);
}
