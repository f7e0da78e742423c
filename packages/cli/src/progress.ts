/**
 * The progress display of `hpt-bench run` (README "Progress"): samples done of the total, rates, elapsed time, ETA,
 * running HPI and accuracy, errored samples. On a terminal a bar (cli-progress) redrawn as samples finish; elsewhere
 * (CI logs, a file) one line every `intervalMs` and a last line when the run ends; nothing with `--json` unless
 * `--progress` is given. Everything goes to stderr.
 */
import type { RunProgress } from '@hpt-bench/core';
import { createRequire } from 'node:module';
import type cliProgress from 'cli-progress';

/** cli-progress, loaded when a bar is first drawn (on a TTY): runs that print lines or nothing never load it. */
const loadCliProgress = (): typeof cliProgress => createRequire(import.meta.url)('cli-progress') as typeof cliProgress;

/** How progress is shown: a redrawn bar, periodic lines, or not at all. */
export type ProgressMode = 'bar' | 'lines' | 'off';

/**
 * The mode for a run: off with `--json` unless `--progress`; a bar when stderr is a terminal; lines otherwise.
 */
export function progressMode(options: { json: boolean; progress: boolean; tty: boolean }): ProgressMode {
  if (options.json && !options.progress) return 'off';
  return options.tty ? 'bar' : 'lines';
}

/** `m:ss` or `h:mm:ss` for a duration in seconds (`-` when not finite). */
export function clock(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '-';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** The figures of one progress report (rates per second of elapsed time; ETA from the sample rate; undefined = unknown). */
export interface ProgressFigures {
  done: number;
  total?: number;
  elapsedS: number;
  samplesPerS: number;
  callsPerS: number;
  etaS?: number;
  hpi?: number;
  accuracy?: number;
  errored: number;
  /** the other workers seen executing a shared run with this one (the total is this worker's share), when there are any */
  workers?: number;
}

/** The figures of `p` at time `now` (`performance.now()` milliseconds). */
export function progressFigures(p: RunProgress, now: number): ProgressFigures {
  const elapsedS = Math.max(0, (now - p.startedAt) / 1000);
  const finished = p.done + p.errored;
  const samplesPerS = elapsedS > 0 ? finished / elapsedS : 0;
  const remaining = p.total === undefined ? undefined : Math.max(0, p.total - finished);
  return {
    done: p.done,
    ...(p.total !== undefined ? { total: p.total } : {}),
    elapsedS,
    samplesPerS,
    callsPerS: elapsedS > 0 ? p.calls / elapsedS : 0,
    ...(remaining !== undefined && samplesPerS > 0 ? { etaS: remaining / samplesPerS } : remaining === 0 ? { etaS: 0 } : {}),
    ...(p.done > 0 ? { hpi: p.hpiSum / p.done, accuracy: p.solved / p.done } : {}),
    errored: p.errored,
    ...(p.workers ? { workers: p.workers } : {}),
  };
}

/** ` (shared with N other workers)` for a shared run's total, else nothing. */
function sharedNote(f: ProgressFigures): string {
  return f.workers ? ` (shared with ${f.workers} other worker${f.workers === 1 ? '' : 's'})` : '';
}

/**
 * One progress line: `120/1134 samples (10.6%), 3.2 samples/s, 8.1 calls/s, elapsed 0:37, ETA 5:14, HPI 1.830,
 * acc 92.5%, errored 0` (`?` for a total not counted yet, `-` for what is not known; a shared run's
 * count adds ` (shared with N other workers)`: the total is this worker's share).
 */
export function progressLine(label: string, f: ProgressFigures): string {
  const finished = f.done + f.errored;
  const of = (f.total === undefined ? `${finished}/? samples` : `${finished}/${f.total} samples (${f.total ? ((100 * finished) / f.total).toFixed(1) : '100.0'}%)`) + sharedNote(f);
  return [
    `${label}: ${of}`,
    `${f.samplesPerS.toFixed(1)} samples/s`,
    `${f.callsPerS.toFixed(1)} calls/s`,
    `elapsed ${clock(f.elapsedS)}`,
    `ETA ${f.etaS === undefined ? '-' : clock(f.etaS)}`,
    `HPI ${f.hpi === undefined ? '-' : f.hpi.toFixed(3)}`,
    `acc ${f.accuracy === undefined ? '-' : `${(100 * f.accuracy).toFixed(1)}%`}`,
    `errored ${f.errored}`,
  ].join(', ');
}

/** Shows a run's progress on stderr in the given mode; `update` after each sample, `stop` once at the end. */
export class ProgressReporter {
  private bar: cliProgress.SingleBar | undefined;
  private timer: NodeJS.Timeout | undefined;
  private last: RunProgress | undefined;
  private stopped = false;

  /**
   * @param intervalMs lines mode: time between two lines (default 5 s)
   * @param write where lines go (default stderr)
   */
  constructor(
    private readonly mode: ProgressMode,
    private readonly label: string,
    private readonly options: { intervalMs?: number; write?: (line: string) => void; stream?: NodeJS.WriteStream } = {},
  ) {
    if (mode === 'bar') {
      const cliProgress = loadCliProgress();
      this.bar = new cliProgress.SingleBar(
        { format: `${label} {bar} {progress} | {rates} | {times} | HPI {hpi} | acc {acc}{errored}`, stream: options.stream ?? process.stderr, hideCursor: true },
        cliProgress.Presets.shades_classic,
      );
      this.bar.start(1, 0, this.payload(undefined));
    } else if (mode === 'lines') {
      this.timer = setInterval(() => this.line(), options.intervalMs ?? 5000);
      this.timer.unref();
    }
  }

  /** A new state of the run. */
  update(p: RunProgress): void {
    this.last = p;
    if (!this.bar) return;
    const finished = p.done + p.errored;
    this.bar.setTotal(p.total ?? finished + 1);
    this.bar.update(finished, this.payload(p));
  }

  /**
   * Ends the display: the bar is stopped; in lines mode the last line is written when `finished` (a run that fails
   * ends with its one error line instead). Idempotent.
   */
  stop(finished = true): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.bar) this.bar.stop();
    else if (this.mode === 'lines' && finished) this.line();
  }

  private line(): void {
    if (!this.last) return;
    const text = progressLine(this.label, progressFigures(this.last, performance.now()));
    (this.options.write ?? ((l: string) => process.stderr.write(`${l}\n`)))(text);
  }

  private payload(p: RunProgress | undefined): Record<string, string> {
    if (!p) return { progress: '0/? samples', rates: '-', times: '-', hpi: '-', acc: '-', errored: '' };
    const f = progressFigures(p, performance.now());
    const finished = f.done + f.errored;
    return {
      progress: `${finished}/${f.total ?? '?'} samples${sharedNote(f)}`,
      rates: `${f.samplesPerS.toFixed(1)} samples/s, ${f.callsPerS.toFixed(1)} calls/s`,
      times: `elapsed ${clock(f.elapsedS)}, ETA ${f.etaS === undefined ? '-' : clock(f.etaS)}`,
      hpi: f.hpi === undefined ? '-' : f.hpi.toFixed(2),
      acc: f.accuracy === undefined ? '-' : `${(100 * f.accuracy).toFixed(1)}%`,
      errored: f.errored ? ` | errored ${f.errored}` : '',
    };
  }
}
