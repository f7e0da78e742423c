// Shared by the benchmark scripts: a small deterministic PRNG, so every run measures the same inputs. It is the
// report's bootstrap generator (packages/core/src/report/bootstrap.ts), from the build (`npm run build` first).

/** mulberry32: returns a generator of floats in [0, 1) determined by `seed`. */
export { mulberry32 } from '../packages/core/dist/report/bootstrap.js';
