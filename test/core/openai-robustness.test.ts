/**
 * The openai plugin against hostile or broken endpoints, with the real openai SDK against
 * local servers on 127.0.0.1:
 * - `timeoutMs` (`--timeout`) is a deadline for the whole response (headers and body): a server that stalls after the
 *   headers or trickles a byte at a time is given up on in time, the socket is closed, and the ModelClient retries it;
 * - `maxResponseBytes` (`--max-response-bytes`) caps the body while it is read (a 20 MB completion is never read to
 *   its end) and the completion text; too large is a non-retryable `client` error;
 * - non-string message content, odd usage counts, malformed bodies, credentials and queries in the base URL, model
 *   names with control characters.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { assertValidAgainst, cacheKeyMaterial, EndpointLimiters, isHptError, isModelCallError, ModelCallError, ModelClient, type Json, type ModelRequest } from '@hpt-bench/core';
import { OpenAIChatModel } from '../../plugins/openai/src/openai.js';
import { completionFromBody, DEFAULT_MAX_RESPONSE_BYTES } from '../../plugins/openai/src/response.js';
import { serverPool, type TestServer } from '../helpers/openai-server.js';

const REQ: ModelRequest = { messages: [{ role: 'user', content: 'Is the sky blue?' }], temperature: 0, topP: 0.9, maxTokens: 16 };
const KEY = 'sk-test-RobustnessKey-0123456789';
const MiB = 1024 * 1024;

const pool = serverPool();
afterEach(() => pool.closeAll());
const server = pool.server;

function model(baseUrl: string, options: Record<string, number | string> = {}): OpenAIChatModel {
  process.env.HPT_ROBUST_TEST_KEY = KEY;
  return new OpenAIChatModel('test-model', { baseUrl, apiKeyEnv: 'HPT_ROBUST_TEST_KEY', ...options });
}

/** `p`, or a rejection naming `what` when it has not settled within `ms` (so a hang fails the test instead of timing it out). */
async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms`)), ms)));
  try {
    return await Promise.race([p, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** The error `p` fails with (within `ms`); the key never appears in it. */
async function failure(p: Promise<unknown>, ms = 10_000): Promise<Error> {
  try {
    await within(p, ms, 'the call');
  } catch (e) {
    expect((e as Error).message).not.toMatch(/still pending/);
    expect((e as Error).message).not.toContain(KEY);
    return e as Error;
  }
  throw new Error('expected the call to fail');
}

/** Wait (at most `ms`) until no connection that carried a request is open; returns how many still are. */
async function closedSockets(s: TestServer, ms = 1000): Promise<number> {
  const until = Date.now() + ms;
  while (s.stats.openRequestConnections() > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  return s.stats.openRequestConnections();
}

function wrap(inner: OpenAIChatModel, maxRetries = 2) {
  const sleeps: number[] = [];
  const kinds: string[] = [];
  const c = new ModelClient(inner, {
    limiters: new EndpointLimiters(4),
    retry: { maxRetries, baseDelayMs: 10, maxDelayMs: 100 },
    random: () => 0.5,
    sleep: async (ms) => void sleeps.push(ms),
    onRetry: (info) => kinds.push(info.error.kind),
  });
  return { c, sleeps, kinds };
}

/** A chat-completion body with `message` as the first choice's message and `extra` merged at the top level. */
function body(message: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ id: 'c', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message, finish_reason: 'stop', logprobs: null }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 }, ...extra });
}

describe('--timeout covers the whole response, body included', () => {
  it('headers then a stalled body: a retryable timeout within the deadline, and the socket is closed', async () => {
    const s = await server(() => ({ stall: true }));
    const started = Date.now();
    const e = await failure(model(s.url, { timeoutMs: 1000 }).generate(REQ), 5000);
    const elapsed = Date.now() - started;
    expect(isModelCallError(e)).toBe(true);
    expect(e).toMatchObject({ kind: 'timeout', retryable: true, code: 'E_MODEL_CALL' });
    expect(e.message).toContain(`request to ${s.url} timed out after 1 s`);
    expect(e.message).toContain('--timeout');
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(1700);
    expect(s.stats.faultBytesWritten).toBeGreaterThan(0); // the headers and a prefix did arrive
    expect(await closedSockets(s)).toBe(0);
    expect(s.requests).toHaveLength(1);
  });

  it('a body trickling one byte every 50 ms (never idle for long) still ends at the deadline: a total, not an idle, timeout', async () => {
    const s = await server(() => ({ trickle: { everyMs: 50 } }));
    const started = Date.now();
    const e = await failure(model(s.url, { timeoutMs: 1000 }).generate(REQ), 5000);
    const elapsed = Date.now() - started;
    expect(e).toMatchObject({ kind: 'timeout', retryable: true });
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(1700);
    expect(s.stats.faultBytesWritten).toBeGreaterThan(5); // bytes kept coming
    expect(await closedSockets(s)).toBe(0);
    const written = s.stats.faultBytesWritten;
    await new Promise((r) => setTimeout(r, 200));
    expect(s.stats.faultBytesWritten).toBe(written); // the server stopped: nobody listens any more
  });

  it('an error status whose body stalls is a timeout too (the SDK reads error bodies under the same deadline)', async () => {
    const s = await server(() => ({ stall: true, status: 503, prefix: '{"error":{"message":"overlo' }));
    const started = Date.now();
    const e = await failure(model(s.url, { timeoutMs: 500 }).generate(REQ), 5000);
    expect(e).toMatchObject({ kind: 'timeout', retryable: true });
    expect(Date.now() - started).toBeLessThan(1200);
    expect(await closedSockets(s)).toBe(0);
  });

  it('a fractional timeout (ms) is accepted and rounded up', async () => {
    const s = await server(() => ({ stall: true }));
    const started = Date.now();
    const e = await failure(model(s.url, { timeoutMs: 300.4 }).generate(REQ), 5000);
    expect(e).toMatchObject({ kind: 'timeout' });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('through the ModelClient a stalled body is retried, then the sample fails with the timeout; a good answer after stalls succeeds', async () => {
    const s = await server(() => ({ stall: true }));
    const { c, kinds, sleeps } = wrap(model(s.url, { timeoutMs: 400 }), 2);
    const started = Date.now();
    const e = await failure(c.generate(REQ), 5000);
    expect(e).toMatchObject({ kind: 'timeout' });
    expect(s.requests).toHaveLength(3);
    expect(kinds).toEqual(['timeout', 'timeout']);
    expect(sleeps).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(3 * 400 + 1000);
    expect(await closedSockets(s)).toBe(0);

    const s2 = await server((i) => (i < 2 ? { trickle: { everyMs: 20 } } : { text: 'True' }));
    const w = wrap(model(s2.url, { timeoutMs: 400 }), 3);
    expect((await within(w.c.generate(REQ), 5000, 'retried call')).text).toBe('True');
    expect(w.kinds).toEqual(['timeout', 'timeout']);
  });

  it('a quick answer is not affected by the deadline (and leaves no timer behind)', async () => {
    const s = await server(() => ({ text: 'Yes', delayMs: 50 }));
    const m = model(s.url, { timeoutMs: 1000 });
    for (let i = 0; i < 3; i++) expect((await m.generate(REQ)).text).toBe('Yes');
  });
});

describe('--max-response-bytes caps what is read', () => {
  it('a 20 MB completion (chunked) fails with a non-retryable client error at the default 4 MiB, long before the body was sent', async () => {
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(4 * MiB);
    const s = await server(() => ({ hugeText: 20_000_000 }));
    const rssBefore = process.memoryUsage().rss;
    const e = await failure(model(s.url).generate(REQ), 20_000);
    const rssGrowth = process.memoryUsage().rss - rssBefore;
    expect(isModelCallError(e)).toBe(true);
    expect(e).toMatchObject({ kind: 'client', retryable: false, code: 'E_MODEL_CALL' });
    expect(e.message).toContain(`response larger than ${4 * MiB} bytes (--max-response-bytes)`);
    expect(e.message).toContain(s.url);
    expect(s.stats.faultBodiesCompleted).toBe(0);
    // what the server could hand over: the cap plus what the loopback socket buffers hold (~8 MB seen), not the 20 MB
    expect(s.stats.faultBytesWritten).toBeLessThan(20_000_000);
    expect(await closedSockets(s)).toBe(0);
    // a loose bound (server and client share this process): reading the whole 20 MB grew RSS by ~95 MB, capped ~27 MB
    expect(rssGrowth).toBeLessThan(56 * MiB);
  });

  it('a declared Content-Length above the cap fails before the body is read', async () => {
    const s = await server(() => ({ hugeText: 20_000_000, contentLength: true }));
    const e = await failure(model(s.url, { maxResponseBytes: 64 * 1024 }).generate(REQ));
    expect(e).toMatchObject({ kind: 'client', retryable: false });
    expect(e.message).toContain('response larger than 65536 bytes (--max-response-bytes)');
    expect(s.stats.faultBodiesCompleted).toBe(0);
    expect(s.stats.faultBytesWritten).toBeLessThan(16_000_000);
    expect(await closedSockets(s)).toBe(0);
    // the header alone decides: a short body announced as 50 MB fails at once instead of waiting for the rest
    const liar = await server(() => ({ raw: '{"choices":', headers: { 'content-length': '50000000' } }));
    const started = Date.now();
    const e2 = await failure(model(liar.url, { maxResponseBytes: 1000, timeoutMs: 3000 }).generate(REQ), 5000);
    expect(e2).toMatchObject({ kind: 'client' });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('maxResponseBytes is the limit: a reply just under passes, one over fails; through the ModelClient it is not retried', async () => {
    const small = await server(() => ({ text: 'x'.repeat(200) }));
    expect((await model(small.url, { maxResponseBytes: 2000 }).generate(REQ)).text).toBe('x'.repeat(200));
    const big = await server(() => ({ text: 'x'.repeat(3000) }));
    const e = await failure(model(big.url, { maxResponseBytes: 2000 }).generate(REQ));
    expect(e).toMatchObject({ kind: 'client', retryable: false });
    expect(e.message).toContain('response larger than 2000 bytes (--max-response-bytes)');
    const { c, kinds, sleeps } = wrap(model(big.url, { maxResponseBytes: 2000 }), 3);
    expect(await failure(c.generate(REQ))).toMatchObject({ kind: 'client' });
    expect(big.requests).toHaveLength(2); // one direct call, one through the client: no retry
    expect(kinds).toEqual([]);
    expect(sleeps).toEqual([]);
  });

  it('an error status with a huge body is read only up to the cap (the status decides the kind)', async () => {
    const s = await server(() => ({ raw: 'E'.repeat(3 * MiB), status: 500, headers: { 'content-type': 'text/plain' } }));
    const e = await failure(model(s.url, { maxResponseBytes: 1024 }).generate(REQ));
    expect(e).toMatchObject({ kind: 'server', status: 500 });
    expect(e.message).toContain('response larger than 1024 bytes');
    expect(e.message.length).toBeLessThan(2000);
  });

  it('the manifest declares maxResponseBytes (integer, 1..256 MiB) and a fractional timeoutMs; the model rejects bad values', () => {
    const manifest = JSON.parse(readFileSync(fileURLToPath(new URL('../../plugins/openai/package.json', import.meta.url)), 'utf8')) as { 'hpt-bench': { contributes: { models: { options: object }[] } } };
    const schema = manifest['hpt-bench'].contributes.models[0]!.options;
    expect(assertValidAgainst(schema, { maxResponseBytes: 4 * MiB, timeoutMs: 1500.5 }, 'o')).toEqual({ maxResponseBytes: 4 * MiB, timeoutMs: 1500.5 });
    for (const bad of [{ maxResponseBytes: 0 }, { maxResponseBytes: 1.5 }, { maxResponseBytes: 256 * MiB + 1 }, { maxResponseBytes: '4MB' }, { timeoutMs: 0 }, { timeoutMs: 2 ** 31 }]) {
      expect(() => assertValidAgainst(schema, bad as unknown as Record<string, Json>, 'o'), JSON.stringify(bad)).toThrow(/are invalid/);
    }
    expect(model('http://127.0.0.1:1/v1').maxResponseBytes).toBe(DEFAULT_MAX_RESPONSE_BYTES);
    expect(() => model('http://127.0.0.1:1/v1', { maxResponseBytes: 0 })).toThrow(/--max-response-bytes must be an integer/);
    expect(() => model('http://127.0.0.1:1/v1', { timeoutMs: -1 })).toThrow(/timeoutMs must be/);
  });

  it('the completion text is capped in UTF-8 bytes, not characters', () => {
    const ctx = { endpoint: 'http://127.0.0.1:1/v1', model: 'm', maxResponseBytes: 10 };
    const json = (content: unknown) => JSON.parse(body({ role: 'assistant', content })) as unknown;
    expect(completionFromBody(json('ééééé'), ctx).text).toBe('ééééé'); // 10 bytes
    let e: unknown;
    try {
      completionFromBody(json('éééééa'), ctx); // 6 characters, 11 bytes
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(ModelCallError);
    expect(e).toMatchObject({ kind: 'client' });
    expect((e as Error).message).toContain('response larger than 10 bytes (--max-response-bytes)');
  });
});

describe('malformed answers never crash the run', () => {
  it('content as an array of parts is joined as text; non-text parts (reasoning, images) are skipped', async () => {
    const parts = [{ type: 'thinking', thinking: [{ type: 'text', text: 'SECRET REASONING' }] }, { type: 'text', text: 'The answer ' }, 'is ', { type: 'text', text: 'Yes' }, { type: 'image_url', image_url: { url: 'x' } }];
    const s = await server(() => ({ raw: body({ role: 'assistant', content: parts }) }));
    const r = await model(s.url).generate(REQ);
    expect(r.text).toBe('The answer is Yes');
  });

  it('content that is a number, boolean, object or an array of such is a non-retryable client error naming the type', async () => {
    const cases: [unknown, string][] = [
      [42, '(number)'],
      [true, '(boolean)'],
      [{ text: 'x' }, '(object)'],
      [[1, 2], '(array containing number)'],
      [[{ type: 'text', text: 7 }], '(array containing object)'],
    ];
    for (const [content, what] of cases) {
      const s = await server(() => ({ raw: body({ role: 'assistant', content }) }));
      const e = await failure(model(s.url).generate(REQ));
      expect(isModelCallError(e), String(content)).toBe(true);
      expect(e).toMatchObject({ kind: 'client', retryable: false });
      expect(e.message).toContain(`returned a non-text message content ${what}`);
      expect(e.message).not.toMatch(/TypeError|is not a function/);
    }
  });

  it('null or missing content (with or without a refusal) is an empty answer', async () => {
    for (const message of [{ role: 'assistant', content: null }, { role: 'assistant', content: null, refusal: 'I cannot help' }, { role: 'assistant' }, null]) {
      const s = await server(() => ({ raw: body(message) }));
      const r = await model(s.url).generate(REQ);
      expect(r.text).toBe('');
      expect(r.finishReason).toBe('stop');
    }
  });

  it('usage counts that are missing, negative, non-finite, fractional or not numbers are normalised', async () => {
    const cases: [unknown, { promptTokens: number; completionTokens: number }][] = [
      [undefined, { promptTokens: 0, completionTokens: 0 }],
      [null, { promptTokens: 0, completionTokens: 0 }],
      [{}, { promptTokens: 0, completionTokens: 0 }],
      [{ prompt_tokens: -5, completion_tokens: -1 }, { promptTokens: 0, completionTokens: 0 }],
      [{ prompt_tokens: 12.6, completion_tokens: 3.2 }, { promptTokens: 13, completionTokens: 3 }],
      [{ prompt_tokens: '12', completion_tokens: [3] }, { promptTokens: 0, completionTokens: 0 }],
      [{ prompt_tokens: 1e400, completion_tokens: 2 ** 60 }, { promptTokens: 0, completionTokens: 0 }], // 1e400 parses as Infinity
      [{ prompt_tokens: 7, completion_tokens: 5 }, { promptTokens: 7, completionTokens: 5 }],
    ];
    for (const [usage, expected] of cases) {
      const raw = body({ role: 'assistant', content: 'Yes' }).replace(/"usage":\{[^}]*\}/, `"usage":${usage === undefined ? 'null' : JSON.stringify(usage)}`).replace('1e+400', '1e400');
      const s = await server(() => ({ raw: usage === undefined ? raw.replace(',"usage":null', '') : raw }));
      const r = await model(s.url).generate(REQ);
      expect(r.usage, JSON.stringify(usage)).toEqual(expected);
      for (const n of Object.values(r.usage)) expect(Number.isSafeInteger(n) && n >= 0).toBe(true);
    }
  });

  it('a body that is not a completion object is an endpoint error, not a crash', async () => {
    for (const raw of ['null', '"hello"', '[1,2]', '42', '{"choices":"abc"}', '{"choices":[7]}']) {
      const s = await server(() => ({ raw }));
      const e = await failure(model(s.url).generate(REQ));
      expect(isHptError(e), raw).toBe(true);
      expect((e as unknown as { code: string }).code, raw).toBe('E_ENDPOINT');
      expect(e.message).not.toMatch(/TypeError|Cannot read/);
    }
    const empty = await server(() => ({ raw: '', headers: { 'content-length': '0' } }));
    expect(await failure(model(empty.url).generate(REQ))).toMatchObject({ code: 'E_ENDPOINT' });
    const html = await server(() => ({ raw: '<html>hi</html>', headers: { 'content-type': 'text/html' } }));
    const e = await failure(model(html.url).generate(REQ));
    expect(e).toMatchObject({ code: 'E_ENDPOINT' });
    expect(e.message).toContain('text/html');
  });

  it('a truncated JSON body is a retryable malformed-response server error', async () => {
    const s = await server(() => ({ raw: '{"choices":[{"message":{"content":"Ye' }));
    const e = await failure(model(s.url).generate(REQ));
    expect(e).toMatchObject({ kind: 'server', retryable: true });
    expect(e.message).toContain('malformed response');
  });

  it('malformed logprobs are dropped, odd finish reasons become "unknown", lone surrogates become U+FFFD', async () => {
    const raw = JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'a' }, finish_reason: '\u001b[31mred', logprobs: { content: 'nope' } }] });
    const s = await server(() => ({ raw }));
    const r = await model(s.url).generate({ ...REQ, logprobs: true });
    expect(r.text).toBe('a');
    expect(r.logprobs).toBeUndefined();
    expect(r.finishReason).toBe('unknown');
    const s2 = await server(() => ({ raw: JSON.stringify({ choices: [{ message: { content: 'a' }, finish_reason: 'length', logprobs: { content: [{ logprob: -0.5 }, { logprob: 'x' }] } }] }) }));
    const r2 = await model(s2.url).generate({ ...REQ, logprobs: true });
    expect(r2.logprobs).toBeUndefined();
    expect(r2.finishReason).toBe('length');
    const s3 = await server(() => ({ raw: '{"choices":[{"message":{"content":"x\\ud800y\\udc00z\\ud83d\\ude00"},"finish_reason":"stop"}]}' }));
    const r3 = await model(s3.url).generate(REQ);
    expect(r3.text).toBe('x\uFFFDy\uFFFDz\u{1F600}');
  });
});

describe('credentials and queries in the base URL', () => {
  it('user info is sent as HTTP Basic auth and appears in no endpoint, cache key or error', async () => {
    const s = await server((i) => (i === 0 ? { text: 'Yes' } : { status: 500, body: { error: { message: 'bad password s3cr@t for alice, token YWxpY2U6czNjckB0' } } }));
    const withCreds = s.url.replace('http://', 'http://alice:s3cr%40t@');
    const m = model(withCreds);
    expect(m.endpoint).toBe(s.url);
    expect((await m.generate(REQ)).text).toBe('Yes');
    expect(s.requests[0]!.authorization).toBe(`Basic ${Buffer.from('alice:s3cr@t').toString('base64')}`);
    expect(cacheKeyMaterial(m, REQ)).not.toMatch(/alice|s3cr/);
    const e = await failure(m.generate(REQ));
    expect(e).toMatchObject({ kind: 'server', status: 500 });
    expect(e.message).not.toMatch(/alice|s3cr|YWxpY2U6czNjckB0/);
    expect(e.message).toContain('[redacted]');
    expect(e.message).toContain(s.url);
    // unreachable: the message names the credential-free URL
    const down = model('http://bob:hunter2@127.0.0.1:1/v1');
    expect(down.endpoint).toBe('http://127.0.0.1:1/v1');
    const d = await failure(down.generate(REQ));
    expect(d.message).not.toMatch(/bob|hunter2/);
    expect(d.message).toContain('http://127.0.0.1:1/v1');
    // rejected credentials: E_AUTH that speaks of the URL's credentials, not of the key variable
    const denied = await server(() => ({ status: 401, body: { error: { message: 'bad credentials alice:s3cr@t' } } }));
    const a = await failure(model(denied.url.replace('http://', 'http://alice:s3cr%40t@')).generate(REQ));
    expect(isHptError(a) && a.code).toBe('E_AUTH');
    expect(a.message).toContain('HTTP Basic');
    expect(a.message).not.toMatch(/alice|s3cr/);
  });

  it('a query in the base URL is sent with every request and kept out of the endpoint', async () => {
    const seen: IncomingMessage['url'][] = [];
    const srv: Server = createServer((req, res) => {
      seen.push(req.url);
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(body({ role: 'assistant', content: 'ok' })));
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    pool.onClose(() => new Promise<void>((r) => { srv.closeAllConnections(); srv.close(() => r()); }));
    const base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1`;
    const m = model(`${base}?api-version=2024-06-01&api-key=SECRETQ#frag`);
    expect(m.endpoint).toBe(base);
    expect((await m.generate(REQ)).text).toBe('ok');
    expect(seen[0]).toBe('/v1/chat/completions?api-version=2024-06-01&api-key=SECRETQ');
  });

  it('a base URL that is not http(s) or not a URL is a configuration error (before any call)', () => {
    for (const url of ['file:///etc/passwd', 'ftp://host/v1', 'javascript:alert(1)']) {
      let e: unknown;
      try {
        model(url);
      } catch (err) {
        e = err;
      }
      expect(isHptError(e) && e.code, url).toBe('E_CONFIG');
      expect((e as Error).message).toContain('http');
    }
    const before = process.env.OPENAI_BASE_URL;
    process.env.OPENAI_BASE_URL = 'not a url at all user:pw@x';
    try {
      expect(() => new OpenAIChatModel('m', {})).toThrow(/OPENAI_BASE_URL/);
      try {
        new OpenAIChatModel('m', {});
      } catch (err) {
        expect((err as Error).message).not.toContain('pw@');
      }
    } finally {
      if (before === undefined) delete process.env.OPENAI_BASE_URL;
      else process.env.OPENAI_BASE_URL = before;
    }
  });

  it('a model name with control characters (terminal escapes) is a configuration error', () => {
    for (const name of ['gpt\u001b[2Jx', 'a\nb', 'm\u0000', 'x\u009b31m']) {
      expect(() => model('http://127.0.0.1:1/v1') && new OpenAIChatModel(name, { baseUrl: 'http://127.0.0.1:1/v1' }), JSON.stringify(name)).toThrow(/control character/);
    }
  });
});
