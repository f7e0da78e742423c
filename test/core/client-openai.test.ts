/**
 * The real openai SDK against local servers: HTTP failures become the right `ModelCallError` kinds
 * (with the server's retry-after hint), the SDK itself does not retry, and through a ModelClient the call succeeds.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EndpointLimiters, isHptError, isModelCallError, ModelCallError, ModelClient, type ModelRequest } from '@hpt-bench/core';
import { OpenAIChatModel } from '../../plugins/openai/src/openai.js';
import { serverPool } from '../helpers/openai-server.js';
import { closedPort } from '../helpers/net.js';

const REQ: ModelRequest = { messages: [{ role: 'user', content: 'Is the sky blue?' }], temperature: 0, topP: 0.9, maxTokens: 16 };
const KEY = 'sk-test-NeverInErrors-0123456789';

const pool = serverPool();
afterEach(() => pool.closeAll());
const server = pool.server;

/** A server whose n-th request is handled by `actions[n]` (the last repeats): drop the socket, before or after the headers, or answer. */
async function droppingServer(actions: ('drop' | 'drop-mid-body' | 'ok')[]): Promise<{ url: string; count: () => number }> {
  let n = 0;
  const srv: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const action = actions[Math.min(n++, actions.length - 1)];
      if (action === 'drop') {
        req.socket.destroy();
      } else if (action === 'drop-mid-body') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '400' });
        res.write('{"id":"x","object":"chat.completion","choices":[');
        setTimeout(() => req.socket.destroy(), 10);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({ id: 'c', object: 'chat.completion', created: 0, model: 'test-model', choices: [{ index: 0, message: { role: 'assistant', content: 'Yes' }, finish_reason: 'stop', logprobs: null }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } }),
        );
      }
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  pool.onClose(() => new Promise<void>((r) => { srv.closeAllConnections(); srv.close(() => r()); }));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1`, count: () => n };
}

function model(baseUrl: string, options: Record<string, number> = {}): OpenAIChatModel {
  process.env.HPT_CLIENT_TEST_KEY = KEY;
  return new OpenAIChatModel('test-model', { baseUrl, apiKeyEnv: 'HPT_CLIENT_TEST_KEY', ...options });
}

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    expect((e as Error).message).not.toContain(KEY);
    return e as Error;
  }
  throw new Error('expected the call to fail');
}

describe('OpenAIChatModel errors', () => {
  it('exposes its base URL as endpoint', () => {
    expect(model('http://127.0.0.1:1/v1').endpoint).toBe('http://127.0.0.1:1/v1');
  });

  it('HTTP 429 is a rate-limit error with the retry-after-ms hint; the SDK does not retry by itself', async () => {
    const s = await server(() => ({ status: 429, headers: { 'retry-after-ms': '1500', 'retry-after': '9' }, body: { error: { message: 'Rate limit reached' } } }));
    const e = await failure(model(s.url).generate(REQ));
    expect(isModelCallError(e)).toBe(true);
    expect(e).toBeInstanceOf(ModelCallError);
    expect(e).toMatchObject({ kind: 'rate-limit', status: 429, retryAfterMs: 1500, retryable: true, code: 'E_MODEL_CALL' });
    expect(e.message).toContain('HTTP 429');
    expect(s.requests).toHaveLength(1);
    const s2 = await server(() => ({ status: 429, headers: { 'retry-after': '2' } }));
    expect(await failure(model(s2.url).generate(REQ))).toMatchObject({ kind: 'rate-limit', retryAfterMs: 2000 });
    const s3 = await server(() => ({ status: 429 }));
    const noHint = (await failure(model(s3.url).generate(REQ))) as ModelCallError;
    expect(noHint.kind).toBe('rate-limit');
    expect(noHint.retryAfterMs).toBeUndefined();
  });

  it('HTTP 5xx is a server error (key redacted), 408 a timeout, other 4xx a non-retryable client error', async () => {
    const s = await server(() => ({ status: 503, body: { error: { message: `overloaded for ${KEY}` } } }));
    const e = await failure(model(s.url).generate(REQ));
    expect(e).toMatchObject({ kind: 'server', status: 503, retryable: true });
    expect(e.message).toContain('[redacted]');
    expect(s.requests).toHaveLength(1);
    const s500 = await server(() => ({ status: 500 }));
    expect(await failure(model(s500.url).generate(REQ))).toMatchObject({ kind: 'server', status: 500 });
    const s408 = await server(() => ({ status: 408 }));
    expect(await failure(model(s408.url).generate(REQ))).toMatchObject({ kind: 'timeout', status: 408 });
    const s400 = await server(() => ({ status: 400, body: { error: { message: "This model's maximum context length is 4096 tokens" } } }));
    const bad = await failure(model(s400.url).generate(REQ));
    expect(bad).toMatchObject({ kind: 'client', status: 400, retryable: false });
    expect(bad.message).toContain('maximum context length');
  });

  it('HTTP 401/403 stay E_AUTH and 404 E_ENDPOINT (not ModelCallErrors)', async () => {
    for (const status of [401, 403]) {
      const s = await server(() => ({ status, body: { error: { message: `Incorrect API key provided: ${KEY}` } } }));
      const e = await failure(model(s.url).generate(REQ));
      expect(isModelCallError(e)).toBe(false);
      expect(isHptError(e) && e.code).toBe('E_AUTH');
      expect(e.message).toContain('HPT_CLIENT_TEST_KEY');
    }
    const s = await server(() => ({ status: 404 }));
    const e = await failure(model(s.url).generate(REQ));
    expect(isModelCallError(e)).toBe(false);
    expect(isHptError(e) && e.code).toBe('E_ENDPOINT');
  });

  it('a reply slower than timeoutMs is a timeout', async () => {
    const s = await server(async () => {
      await new Promise((r) => setTimeout(r, 1500));
      return { text: 'late' };
    });
    const started = Date.now();
    const e = await failure(model(s.url, { timeoutMs: 150 }).generate(REQ));
    expect(e).toMatchObject({ kind: 'timeout', retryable: true });
    expect(e.message).toMatch(/timed out/);
    expect(Date.now() - started).toBeLessThan(1200);
    expect(s.requests).toHaveLength(1);
  });

  it('a refused or dropped connection is a connection error', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const refused = await failure(model(url).generate(REQ));
    expect(refused).toMatchObject({ kind: 'connection', retryable: true });
    expect(refused.message.startsWith(`cannot reach ${url} (`)).toBe(true);
    expect(refused.message).toContain('--base-url');
    const d = await droppingServer(['drop']);
    const dropped = await failure(model(d.url).generate(REQ));
    expect(dropped).toMatchObject({ kind: 'connection' });
    expect(d.count()).toBe(1);
    const mid = await droppingServer(['drop-mid-body']);
    expect(await failure(model(mid.url).generate(REQ))).toMatchObject({ kind: 'connection' });
    expect(mid.count()).toBe(1);
  });
});

describe('OpenAIChatModel through ModelClient', () => {
  function wrap(inner: OpenAIChatModel) {
    const sleeps: number[] = [];
    const kinds: string[] = [];
    const c = new ModelClient(inner, {
      limiters: new EndpointLimiters(4),
      retry: { maxRetries: 5, baseDelayMs: 10, maxDelayMs: 100 },
      random: () => 0.5,
      sleep: async (ms) => void sleeps.push(ms),
      onRetry: (info) => kinds.push(info.error.kind),
    });
    return { c, sleeps, kinds };
  }

  it('429 (retry-after-ms honoured), 500 and a timeout are retried until the call succeeds', async () => {
    const s = await server(async (i) => {
      if (i === 0) return { status: 429, headers: { 'retry-after-ms': '40' } };
      if (i === 1) return { status: 500 };
      if (i === 2) {
        await new Promise((r) => setTimeout(r, 1000));
        return { text: 'too late' };
      }
      return { text: 'True' };
    });
    const { c, sleeps, kinds } = wrap(model(s.url, { timeoutMs: 200 }));
    const r = await c.generate(REQ);
    expect(r.text).toBe('True');
    expect(s.requests).toHaveLength(4);
    expect(kinds).toEqual(['rate-limit', 'server', 'timeout']);
    expect(sleeps).toEqual([40, 10, 20]);
  });

  it('dropped connections are retried until the call succeeds; a 400 is not retried', async () => {
    const d = await droppingServer(['drop', 'drop-mid-body', 'ok']);
    const { c, kinds } = wrap(model(d.url));
    expect((await c.generate(REQ)).text).toBe('Yes');
    expect(d.count()).toBe(3);
    expect(kinds).toEqual(['connection', 'connection']);

    const s = await server(() => ({ status: 400 }));
    const w = wrap(model(s.url));
    expect(await failure(w.c.generate(REQ))).toMatchObject({ kind: 'client' });
    expect(s.requests).toHaveLength(1);
    expect(w.sleeps).toEqual([]);
  });

  it('gives up after maxRetries with the last error', async () => {
    const s = await server(() => ({ status: 502 }));
    const { c, sleeps } = wrap(model(s.url));
    expect(await failure(c.generate(REQ))).toMatchObject({ kind: 'server', status: 502 });
    expect(s.requests).toHaveLength(6);
    expect(sleeps).toEqual([5, 10, 20, 40, 50]);
  });
});
