/**
 * Test doubles for the model client (test/core/client-*.test.ts): a model that answers from a script, the request and
 * retry policy those tests share, and fresh call caches on real SQLite stores in a temporary directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { CallCache, EndpointLimiters, ModelClient, RunStore, type Model, type ModelRequest, type ModelResponse, type RetryInfo, type RetryPolicy } from '@hpt-bench/core';

/** Retries fast enough for tests: 3 retries, 100 ms base, 1 s cap. */
export const POLICY: RetryPolicy = { maxRetries: 3, baseDelayMs: 100, maxDelayMs: 1000 };
/** A one-message request with fixed generation settings. */
export const REQ: ModelRequest = { messages: [{ role: 'user', content: 'Is the sky blue?' }], temperature: 0, topP: 0.9, maxTokens: 16 };
/** A successful response with `text` (5 prompt and 1 completion tokens, 120 ms). */
export const ok = (text = 'True'): ModelResponse => ({ text, usage: { promptTokens: 5, completionTokens: 1 }, finishReason: 'stop', latencyMs: 120 });

/**
 * A fake model answering from a script: each entry is a response, or an Error (or any other object without `text`) to
 * throw; the last entry repeats. Counts calls and the peak number of calls in flight.
 */
export class ScriptedModel implements Model {
  calls = 0;
  inFlight = 0;
  peak = 0;
  constructor(
    readonly id: string,
    private readonly script: (ModelResponse | Error | object)[],
    readonly endpoint?: string,
    private readonly delayMs = 0,
  ) {}
  async generate(_request: ModelRequest): Promise<ModelResponse> {
    const step = this.script[Math.min(this.calls, this.script.length - 1)]!;
    this.calls++;
    this.inFlight++;
    this.peak = Math.max(this.peak, this.inFlight);
    try {
      if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
      if (step instanceof Error || !('text' in step)) throw step;
      return { ...(step as ModelResponse) };
    } finally {
      this.inFlight--;
    }
  }
}

/** A factory of empty call caches, each on its own store file in a temporary directory removed after the file's tests. */
export function cacheFactory(prefix: string): () => CallCache {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  return () => new CallCache(new RunStore(join(dir, `${++n}.db`)).db);
}

/**
 * A `ModelClient` around `inner` for tests: 4 slots per endpoint, `POLICY`, jitter fixed at 0.5, sleeps recorded
 * instead of waited (`sleeps`, in ms) and every retry recorded (`retries`); `over` replaces any of these options.
 */
export function client(inner: Model, over: Partial<ConstructorParameters<typeof ModelClient>[1]> = {}): { c: ModelClient; sleeps: number[]; retries: RetryInfo[] } {
  const sleeps: number[] = [];
  const retries: RetryInfo[] = [];
  const c = new ModelClient(inner, {
    limiters: new EndpointLimiters(4),
    retry: POLICY,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    onRetry: (info) => retries.push(info),
    ...over,
  });
  return { c, sleeps, retries };
}
