/**
 * Units behind the robustness guarantees: the outage breaker's windows, the model client's response cap and store
 * failures, credential-free URLs and redaction, well-formed text for the store.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BREAKER_AFTER_SUCCESS,
  BREAKER_BEFORE_SUCCESS,
  CallCache,
  credentialFreeUrl,
  EndpointLimiters,
  ModelClient,
  OutageBreaker,
  redact,
  RunStore,
  urlSecrets,
  wellFormed,
  type Model,
  type ModelRequest,
  type ModelResponse,
} from '@hpt-bench/core';

describe('OutageBreaker', () => {
  it('before any success, trips on the third errored sample and remembers them', () => {
    const b = new OutageBreaker(4);
    expect(BREAKER_BEFORE_SUCCESS).toBe(3);
    expect(b.failure(10)).toBe(false);
    expect(b.failure(11)).toBe(false);
    expect(b.failure(12)).toBe(true);
    expect(b.beforeSuccess).toEqual([10, 11, 12]);
    expect(b.anySuccess).toBe(false);
  });

  it('after a success, trips only after max(8, concurrency) errored samples in a row; a success resets the streak', () => {
    const small = new OutageBreaker(2);
    small.success();
    for (let i = 0; i < BREAKER_AFTER_SUCCESS - 1; i++) expect(small.failure(i)).toBe(false);
    expect(small.streak).toBe(BREAKER_AFTER_SUCCESS - 1);
    small.success();
    expect(small.streak).toBe(0);
    for (let i = 0; i < BREAKER_AFTER_SUCCESS - 1; i++) expect(small.failure(i)).toBe(false);
    expect(small.failure(99)).toBe(true);
    expect(small.beforeSuccess).toEqual([]);
    const wide = new OutageBreaker(20);
    wide.success();
    for (let i = 0; i < 19; i++) expect(wide.failure(i)).toBe(false);
    expect(wide.failure(19)).toBe(true);
  });
});

const request: ModelRequest = { messages: [{ role: 'user', content: 'Q?' }], temperature: 0, topP: 1, maxTokens: 16 };
const answering = (text: unknown): Model & { calls: number } => {
  const m = {
    id: 'fake:m',
    endpoint: 'http://127.0.0.1:9/v1',
    calls: 0,
    async generate(): Promise<ModelResponse> {
      m.calls++;
      return { text: text as string, usage: { promptTokens: 1, completionTokens: 1 }, finishReason: 'stop', latencyMs: 1 };
    },
  };
  return m;
};
const noRetry = { maxRetries: 3, baseDelayMs: 0, maxDelayMs: 0, maxRetryAfterMs: 0 };

describe('ModelClient at the edges', () => {
  it('a completion over maxResponseBytes (UTF-8 bytes, not characters) fails as a non-retryable client error', async () => {
    const inner = answering('é'.repeat(600)); // 600 characters, 1,200 bytes
    const client = new ModelClient(inner, { limiters: new EndpointLimiters(2), retry: { ...noRetry }, maxResponseBytes: 1000 });
    await expect(client.generate(request)).rejects.toMatchObject({ code: 'E_MODEL_CALL', kind: 'client', exitCode: 1, message: expect.stringMatching(/larger than 1000 bytes \(--max-response-bytes\): 1200 bytes/) });
    expect(inner.calls).toBe(1);
    const fits = new ModelClient(answering('é'.repeat(500)), { limiters: new EndpointLimiters(2), retry: { ...noRetry }, maxResponseBytes: 1000 });
    await expect(fits.generate(request)).resolves.toMatchObject({ text: 'é'.repeat(500) });
  });

  it('a model plugin returning a non-string text fails the call instead of crashing later', async () => {
    const client = new ModelClient(answering(42), { limiters: new EndpointLimiters(2), retry: { ...noRetry } });
    await expect(client.generate(request)).rejects.toMatchObject({ kind: 'client', message: expect.stringMatching(/returned a number instead of a text completion/) });
  });

  it('a cache write on a broken store fails the call with the store error (it is not swallowed)', async () => {
    const store = new RunStore(join(mkdtempSync(join(tmpdir(), 'hpt-trust-')), 's.db'), { groupCommit: { maxWrites: 1, maxDelayMs: 0 } });
    const cache = new CallCache(store.db, store);
    // break the store: a write that violates the schema
    store.createRun({ id: 'r', dataset: 'd', model: 'm', mode: 'manual', config: {} });
    expect(() => store.defer(() => store.db.prepare('INSERT INTO runs (id) VALUES (NULL)').run())).toThrow(/cannot write to the store/);
    const inner = answering('True');
    const client = new ModelClient(inner, { limiters: new EndpointLimiters(2), retry: { ...noRetry }, cache });
    await expect(client.generate(request)).rejects.toMatchObject({ code: 'E_STORE', exitCode: 1 });
    expect(client.stats.cacheWriteErrors).toBe(1);
    store.close();
  });
});

describe('secrets in URLs', () => {
  it('credentialFreeUrl drops user info and secret-looking query values, keeping the rest', () => {
    expect(credentialFreeUrl('http://alice:s3cret@127.0.0.1:8000/v1')).toBe('http://127.0.0.1:8000/v1');
    expect(credentialFreeUrl('https://h.example/v1?api-version=2024-01&api-key=abc123')).toBe('https://h.example/v1?api-version=2024-01&api-key=redacted');
    expect(credentialFreeUrl('http://127.0.0.1:8000/v1')).toBe('http://127.0.0.1:8000/v1');
    expect(credentialFreeUrl('not a url')).toBe('not a url');
  });

  it('urlSecrets lists raw and decoded secrets; redact replaces them but ignores ones too short to be real', () => {
    expect(urlSecrets('http://alice:p%40ss-word@h/v1?token=t0k3n-value').sort()).toEqual(['alice', 'p%40ss-word', 'p@ss-word', 't0k3n-value'].sort());
    expect(urlSecrets('http://h/v1')).toEqual([]);
    expect(urlSecrets(undefined)).toEqual([]);
    expect(redact('key p@ss-word and t0k3n-value', ['p@ss-word', 't0k3n-value'])).toBe('key [redacted] and [redacted]');
    expect(redact('check the server', ['k'])).toBe('check the server');
  });
});

describe('wellFormed', () => {
  it('replaces lone surrogates and NUL with U+FFFD, keeps pairs and ordinary text as they are', () => {
    expect(wellFormed('plain')).toBe('plain');
    expect(wellFormed('emoji \ud83d\ude00')).toBe('emoji \ud83d\ude00');
    expect(wellFormed('a\ud800b')).toBe('a\ufffdb');
    expect(wellFormed('\udc00x')).toBe('\ufffdx');
    expect(wellFormed('x\u0000y')).toBe('x\ufffdy');
    expect(wellFormed('\ud83d\ude00\ud83d')).toBe('\ud83d\ude00\ufffd');
  });
});
