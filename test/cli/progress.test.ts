/**
 * The progress display's figures and line (packages/cli/src/progress.ts), on hand-computed states.
 */
import { describe, expect, it } from 'vitest';
import { clock, progressFigures, progressLine, progressMode, ProgressReporter } from '../../packages/cli/src/progress.js';

const state = { done: 90, errored: 10, total: 400, solved: 72, hpiSum: 180, calls: 250, startedAt: 0 };

describe('progress figures', () => {
  it('rates per second of elapsed time, ETA from the sample rate, HPI and accuracy of the done samples', () => {
    const f = progressFigures(state, 50_000);
    expect(f).toEqual({ done: 90, total: 400, elapsedS: 50, samplesPerS: 2, callsPerS: 5, etaS: 150, hpi: 2, accuracy: 0.8, errored: 10 });
    expect(progressLine('boolq', f)).toBe('boolq: 100/400 samples (25.0%), 2.0 samples/s, 5.0 calls/s, elapsed 0:50, ETA 2:30, HPI 2.000, acc 80.0%, errored 10');
  });

  it('a worker of a shared run: its share as the total, and how many other workers share the run', () => {
    const f = progressFigures({ ...state, workers: 2 }, 50_000);
    expect(f.workers).toBe(2);
    expect(progressLine('boolq', f)).toBe('boolq: 100/400 samples (25.0%) (shared with 2 other workers), 2.0 samples/s, 5.0 calls/s, elapsed 0:50, ETA 2:30, HPI 2.000, acc 80.0%, errored 10');
    expect(progressLine('boolq', progressFigures({ ...state, workers: 1 }, 50_000))).toContain('(shared with 1 other worker),');
  });

  it('an unknown total and no sample yet', () => {
    const f = progressFigures({ ...state, done: 0, errored: 0, total: undefined, calls: 0 }, 0);
    expect(f).toEqual({ done: 0, elapsedS: 0, samplesPerS: 0, callsPerS: 0, errored: 0 });
    expect(progressLine('x', f)).toBe('x: 0/? samples, 0.0 samples/s, 0.0 calls/s, elapsed 0:00, ETA -, HPI -, acc -, errored 0');
  });

  it('clock and mode', () => {
    expect([clock(0), clock(59.6), clock(61), clock(3600 + 62), clock(NaN)]).toEqual(['0:00', '1:00', '1:01', '1:01:02', '-']);
    expect(progressMode({ json: true, progress: false, tty: true })).toBe('off');
    expect(progressMode({ json: true, progress: true, tty: false })).toBe('lines');
    expect(progressMode({ json: false, progress: false, tty: true })).toBe('bar');
    expect(progressMode({ json: false, progress: false, tty: false })).toBe('lines');
  });

  it('lines mode writes one line per interval and a last one at stop; off writes nothing', async () => {
    const lines: string[] = [];
    const r = new ProgressReporter('lines', 'd', { intervalMs: 20, write: (l) => lines.push(l) });
    r.update({ ...state, startedAt: performance.now() });
    await new Promise((res) => setTimeout(res, 75));
    r.stop();
    r.stop();
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines.every((l) => l.startsWith('d: 100/400 samples (25.0%)'))).toBe(true);
    const none: string[] = [];
    const off = new ProgressReporter('off', 'd', { write: (l) => none.push(l) });
    off.update(state);
    off.stop();
    expect(none).toEqual([]);
  });
});
