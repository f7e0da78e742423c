import { HptError } from '@hpt-bench/core';

/** The `HptError` code `f` throws, `undefined` when it returns, or a marker string when it throws something else. */
export function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof HptError ? e.code : `not an HptError: ${String(e)}`;
  }
  return undefined;
}
