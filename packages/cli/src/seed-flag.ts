/**
 * The `--seed` flag of the commands that draw or send a seed (`run`, `plan`, `generate`, `calibrate`): one definition
 * and one bound. A seed is stored with the run and in every generated record as a JSON number, which holds integers
 * exactly up to 2^53 − 1 only: `--seed 99999999999999999999` used to be stored as 1e20 (issue #25), a different seed
 * from the one given. Seeds outside ±(2^53 − 1) are refused (usage error, exit 2).
 */
import { CLIError } from '@oclif/core/errors';
import * as Flags from '@oclif/core/flags';

/** The largest seed: 2^53 − 1 = 9007199254740991 (`Number.MAX_SAFE_INTEGER`); the smallest is its negation. */
export const MAX_SEED = Number.MAX_SAFE_INTEGER;

/**
 * Read a `--seed` value: a decimal integer (optional minus sign) from −(2^53 − 1) to 2^53 − 1.
 * @param input the flag's text as given.
 * @returns the seed, exactly the integer given.
 * @throws CLIError (a usage error: `E_USAGE`, exit 2) naming the value and the bound.
 */
export function parseSeed(input: string): number {
  const text = input.trim();
  if (!/^-?\d+$/.test(text)) throw new CLIError(`Expected an integer but received: ${input}`);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new CLIError(`Expected an integer from -${MAX_SEED} to ${MAX_SEED} (2^53 - 1: a larger seed is not stored exactly) but received: ${text}`);
  return n;
}

/**
 * `--seed` with `description` and the bound (`parseSeed`); `default` when given.
 * @example seedFlag('generator seed (recorded in every record)', 0)
 */
export function seedFlag(description: string): ReturnType<typeof optionalSeed>;
export function seedFlag(description: string, defaultValue: number): ReturnType<typeof defaultSeed>;
export function seedFlag(description: string, defaultValue?: number) {
  return defaultValue === undefined ? optionalSeed(description) : defaultSeed(description, defaultValue);
}

function optionalSeed(description: string) {
  return Flags.integer({ description, parse: async (input: string) => parseSeed(input) });
}

function defaultSeed(description: string, defaultValue: number) {
  return Flags.integer({ description, default: defaultValue, parse: async (input: string) => parseSeed(input) });
}
