import seedrandom from 'seedrandom';

/**
 * A seeded pseudo-random stream (seedrandom's Alea). All HiBench randomness comes from streams made by `rngFor`, keyed
 * by the run seed plus the coordinates of what is drawn (scenario, preset, structure index, task...), so filtering a
 * suite never changes the items it keeps, and the same seed always gives the same suite (spec §7 rec. 27: one seeded
 * PRNG family per run, seed recorded; Python's `random` stream is not reproduced).
 */
export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [lo, hi], both inclusive. @throws RangeError when hi < lo. */
  int(lo: number, hi: number): number;
  /** One uniformly chosen element. @throws RangeError on an empty array. */
  pick<T>(items: readonly T[]): T;
  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[];
  /** `k` distinct elements without replacement, in draw order (min(k, length) of them). */
  sample<T>(items: readonly T[], k: number): T[];
  /** true with probability `p` (default 0.5). */
  bool(p?: number): boolean;
}

/** A stream seeded with `seed` and the given keys (joined with '|'). */
export function rngFor(seed: number, ...keys: (string | number)[]): Rng {
  const prng = seedrandom.alea(`${seed}|${keys.join('|')}`);
  return rngOf(() => prng());
}

/**
 * The `Rng` draws over any uniform [0, 1) stream `next` (e.g. the random baseline's seeded stream handed to
 * `Scorer.randomAnswer`): the same draws `rngFor` makes from its own stream.
 */
export function rngOf(next: () => number): Rng {
  const int = (lo: number, hi: number): number => {
    if (hi < lo) throw new RangeError(`rng.int: empty range [${lo}, ${hi}]`);
    return lo + Math.floor(next() * (hi - lo + 1));
  };
  const shuffle = <T>(items: readonly T[]): T[] => {
    const a = items.slice();
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [a[i], a[j]] = [a[j]!, a[i]!];
    }
    return a;
  };
  return {
    next,
    int,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError('rng.pick: empty array');
      return items[Math.floor(next() * items.length)]!;
    },
    shuffle,
    sample: <T>(items: readonly T[], k: number): T[] => shuffle(items).slice(0, Math.max(0, k)),
    bool: (p = 0.5) => next() < p,
  };
}
