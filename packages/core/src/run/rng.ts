import seedrandom from 'seedrandom';
import type { RngFactory } from '@hpt-bench/sdk';

/**
 * Seeded generators (DESIGN.md "Determinism"): `create(key)` is a seedrandom ARC4 stream seeded with `${seed}:${key}`,
 * so each sample/level/call draws from its own stream whatever the concurrency.
 */
export function createRngFactory(seed: number): RngFactory {
  return { seed, create: (key: string) => seedrandom(`${seed}:${key}`) };
}
