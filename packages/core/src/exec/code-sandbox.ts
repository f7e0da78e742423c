/**
 * The code sandbox service of the core (issue 26, item 4): the SDK's `CodeSandbox` (`Tokens.CodeSandbox`, injected
 * into scorers) implemented with the `@hpt-bench/sandbox` package, whose `runPython` runs one program at once and never
 * queues. The core decides how many programs run at the same time: every run waits for a slot of an `AimdLimiter`
 * (exec/limiter.ts, used here as a plain FIFO semaphore: outcomes are always `ok`, so its limit stays at its ceiling).
 *
 * One instance per process (`sharedCodeSandbox`, 8 runs at once, as the sandbox allowed before it was a package) is
 * registered in every run container (`createRunContainer`), so a matrix's runs, `score` and `sandbox check` share the
 * bound. The escape suite (`check`) calls the package directly: how its programs overlap is part of what it proves.
 */
import { checkSandbox, MAX_CONCURRENT_RUNS, runPython, sandboxIsolation } from '@hpt-bench/sandbox';
import type { CodeSandbox, SandboxCheckOptions, SandboxCheckReport, SandboxIsolation, SandboxRunOptions, SandboxRunResult } from '@hpt-bench/sdk';
import { AimdLimiter } from './limiter.js';

/** Sandboxed programs in flight per process by default (the sandbox's own limit before issue 26, item 4). */
export const DEFAULT_SANDBOX_CONCURRENCY = 8;

/**
 * A `CodeSandbox` that runs at most `concurrency` programs at once; further `run` calls wait, first come first served,
 * and their timeout starts only when their program is spawned.
 */
export class BoundedCodeSandbox implements CodeSandbox {
  private readonly limiter: AimdLimiter;

  /**
   * @param concurrency the most programs in flight, an integer in 1..255 (the sandbox gives each run in flight a user
   *   id of its own, 255 per process).
   * @throws RangeError for any other `concurrency`.
   */
  constructor(readonly concurrency: number = DEFAULT_SANDBOX_CONCURRENCY) {
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENT_RUNS) {
      throw new RangeError(`sandbox concurrency must be an integer in 1..${MAX_CONCURRENT_RUNS}, got ${concurrency}`);
    }
    this.limiter = new AimdLimiter(concurrency);
  }

  /**
   * `CodeSandbox.run`: waits for a slot, then runs the program once (`@hpt-bench/sandbox` `runPython`). Only the SDK's
   * options are passed on (timeoutMs, memoryMb, maxProcesses, python, isolate). Never rejects.
   */
  async run(program: string, options: SandboxRunOptions = {}): Promise<SandboxRunResult> {
    const { timeoutMs, memoryMb, maxProcesses, python, isolate } = options;
    const release = await this.limiter.acquire();
    try {
      return await runPython(program, { timeoutMs, memoryMb, maxProcesses, python, isolate });
    } finally {
      release('ok');
    }
  }

  /** `CodeSandbox.isolation`: the probe's observation for this interpreter and mode (cached per process). */
  isolation(options: SandboxCheckOptions = {}): SandboxIsolation {
    return sandboxIsolation(options);
  }

  /** `CodeSandbox.check`: the escape suite (`@hpt-bench/sandbox` `checkSandbox`), not memoized; a few seconds. */
  check(options: SandboxCheckOptions = {}): Promise<SandboxCheckReport> {
    return checkSandbox(options);
  }

  /** Programs running now (holding a slot). */
  get inFlight(): number {
    return this.limiter.inFlight;
  }

  /** `run` calls waiting for a slot. */
  get waiting(): number {
    return this.limiter.waiting;
  }
}

let shared: BoundedCodeSandbox | undefined;

/** The process's code sandbox (created on first use, `DEFAULT_SANDBOX_CONCURRENCY` runs at once). */
export function sharedCodeSandbox(): BoundedCodeSandbox {
  shared ??= new BoundedCodeSandbox();
  return shared;
}
