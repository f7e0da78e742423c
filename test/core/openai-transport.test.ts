/**
 * The openai plugin's chat transport (plugins/openai/src/transport.ts, `undiciFetch`): a `fetch` for the SDK over
 * undici's `Dispatcher.request`, tested against real HTTP servers on 127.0.0.1 — directly, and through
 * `OpenAIChatModel` with the real SDK: content decoding and the cap after decoding, bodiless statuses, redirects,
 * headers both ways, the caller's signal, the deadline, and what it refuses to send.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Readable } from 'node:stream';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { isModelCallError, type ModelRequest } from '@hpt-bench/core';
import { ResponseTooLargeError } from '../../plugins/openai/src/http.js';
import { OpenAIChatModel } from '../../plugins/openai/src/openai.js';
import { DeadlineError, undiciFetch } from '../../plugins/openai/src/transport.js';

const REQ: ModelRequest = { messages: [{ role: 'user', content: 'Is the sky blue?' }], temperature: 0, topP: 1, maxTokens: 8 };
const MiB = 1024 * 1024;

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A server answering every request with `handle`; records requests and tracks open sockets. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse, seen: Seen) => void): Promise<{ url: string; seen: Seen[]; open: () => number; server: Server }> {
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(s);
      handle(req, res, s);
    });
  });
  server.on('connection', (sock) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, open: () => sockets.size, server };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

function completion(text: string): string {
  return JSON.stringify({ id: 'c', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop', logprobs: null }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } });
}

function model(baseUrl: string, options: Record<string, number> = {}): OpenAIChatModel {
  process.env.HPT_TRANSPORT_TEST_KEY = 'sk-transport-test-0123456789';
  return new OpenAIChatModel('test-model', { baseUrl, apiKeyEnv: 'HPT_TRANSPORT_TEST_KEY', ...options });
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}

async function until(cond: () => boolean, ms = 1000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}

describe('content decoding, as the global fetch does', () => {
  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('a %s-encoded completion is decoded', async (encoding, compress) => {
    const s = await serve((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
      res.end(compress(Buffer.from(completion(`answer in ${encoding}`))));
    });
    expect((await model(`${s.url}/v1`).generate(REQ)).text).toBe(`answer in ${encoding}`);
  });

  it('the cap counts decoded bytes: a 64 KB gzip body inflating to 64 MiB fails as too large, and the socket is closed', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * MiB, 0x20));
    expect(bomb.length).toBeLessThan(100_000);
    const s = await serve((_, res) => {
      // chunked and never ended: only the client can close this connection
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.write(bomb);
    });
    const rss = process.memoryUsage().rss;
    const e = await rejection(model(`${s.url}/v1`, { maxResponseBytes: MiB }).generate(REQ));
    expect(isModelCallError(e)).toBe(true);
    expect(e).toMatchObject({ kind: 'client', retryable: false });
    expect(e.message).toContain(`response larger than ${MiB} bytes (--max-response-bytes)`);
    expect(process.memoryUsage().rss - rss).toBeLessThan(48 * MiB); // never inflated to 64 MiB
    await until(() => s.open() === 0);
    expect(s.open()).toBe(0);
  });

  it('an unknown encoding is handed over as it is (the SDK then reports the malformed body)', async () => {
    const s = await serve((_, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'x-custom' });
      res.end('opaque bytes');
    });
    const res = await undiciFetch({ maxBytes: MiB, timeoutMs: 5000 })(`${s.url}/x`, { method: 'GET' });
    expect(await res.text()).toBe('opaque bytes');
    expect(res.headers.get('content-encoding')).toBe('x-custom');
  });
});

describe('requests and responses as fetch gives them', () => {
  it('sends method, headers and body verbatim; returns status, repeated headers, url and the whole body', async () => {
    const s = await serve((_, res) => {
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.setHeader('x-request-id', 'req-42');
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    const headers = new Headers({ authorization: 'Bearer k', 'content-type': 'application/json', 'x-extra': 'v' });
    const res = await undiciFetch({ maxBytes: MiB, timeoutMs: 5000 })(`${s.url}/v1/thing?q=1`, { method: 'post', headers, body: '{"a":1}' });
    expect(s.seen[0]).toMatchObject({ method: 'POST', url: '/v1/thing?q=1', body: '{"a":1}' });
    expect(s.seen[0]!.headers).toMatchObject({ authorization: 'Bearer k', 'content-type': 'application/json', 'x-extra': 'v' });
    expect(res.status).toBe(201);
    expect(res.ok).toBe(true);
    expect(res.statusText).toBe('Created');
    expect(res.url).toBe(`${s.url}/v1/thing?q=1`);
    expect(res.headers.get('x-request-id')).toBe('req-42');
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await res.json()).toEqual({ ok: true });
  });

  it('a 204 has no body; a redirect is returned as it is, not followed', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/empty') {
        res.writeHead(204);
        res.end();
      } else {
        res.writeHead(307, { location: '/elsewhere' });
        res.end('moved');
      }
    });
    const f = undiciFetch({ maxBytes: MiB, timeoutMs: 5000 });
    const empty = await f(`${s.url}/empty`, { method: 'DELETE' });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    const moved = await f(`${s.url}/old`, { method: 'POST', body: '{}' });
    expect(moved.status).toBe(307);
    expect(moved.headers.get('location')).toBe('/elsewhere');
    expect(s.seen.map((r) => r.url)).toEqual(['/empty', '/old']);
  });

  it('refuses a streamed request body (the chat transport sends strings or bytes) before any request', async () => {
    const s = await serve((_, res) => res.end('{}'));
    const f = undiciFetch({ maxBytes: MiB, timeoutMs: 5000 });
    const e = await rejection(f(`${s.url}/x`, { method: 'POST', body: Readable.toWeb(Readable.from(['a'])) as unknown as RequestInit['body'], duplex: 'half' } as RequestInit));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toContain('string or byte bodies only');
    expect(s.seen).toHaveLength(0);
    const bytes = await f(`${s.url}/y`, { method: 'POST', body: new TextEncoder().encode('raw bytes') });
    expect(bytes.status).toBe(200);
    expect(s.seen[0]!.body).toBe('raw bytes');
  });
});

describe('deadline, cap and the caller signal', () => {
  it('headers that never come: DeadlineError at the deadline, socket closed', async () => {
    const s = await serve(() => undefined); // reads the request, never answers
    const started = Date.now();
    const e = await rejection(undiciFetch({ maxBytes: MiB, timeoutMs: 300 })(`${s.url}/x`, { method: 'POST', body: '{}' }));
    expect(e).toBeInstanceOf(DeadlineError);
    expect(e.message).toBe('request timed out after 300 ms (--timeout)');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(1000);
    await until(() => s.open() === 0);
    expect(s.open()).toBe(0);
  });

  it('a 2xx body over the cap rejects with ResponseTooLargeError; exactly the cap passes', async () => {
    const s = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x'.repeat(req.url === '/over' ? 1001 : 1000));
    });
    const f = undiciFetch({ maxBytes: 1000, timeoutMs: 5000 });
    expect((await (await f(`${s.url}/at`, {})).text()).length).toBe(1000);
    const e = await rejection(f(`${s.url}/over`, {}));
    expect(e).toBeInstanceOf(ResponseTooLargeError);
    expect(e.message).toBe('response larger than 1000 bytes (--max-response-bytes)');
  });

  it("the caller's signal aborts a request in flight (AbortError) and closes its socket; an aborted signal sends nothing", async () => {
    const s = await serve(() => undefined);
    const f = undiciFetch({ maxBytes: MiB, timeoutMs: 10_000 });
    const ac = new AbortController();
    const pending = f(`${s.url}/x`, { method: 'POST', body: '{}', signal: ac.signal });
    await until(() => s.seen.length === 1);
    ac.abort();
    const e = await rejection(pending);
    expect(e.name).toBe('AbortError');
    await until(() => s.open() === 0);
    expect(s.open()).toBe(0);
    const before = s.seen.length;
    const e2 = await rejection(f(`${s.url}/y`, { method: 'POST', body: '{}', signal: AbortSignal.abort() }));
    expect(e2.name).toBe('AbortError');
    await new Promise((r) => setTimeout(r, 50));
    expect(s.seen.length).toBe(before);
  });

  it('a request undici refuses (a header value with a line break) fails at once, sends nothing and leaves no timer behind', async () => {
    const s = await serve((_, res) => res.end('{}'));
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const e = await rejection(undiciFetch({ maxBytes: MiB, timeoutMs: 60_000 })(`${s.url}/x`, { method: 'POST', headers: [['x-bad', 'a\r\nb']], body: '{}' }));
    expect(e.message).toMatch(/header/i);
    expect(timers()).toBeLessThanOrEqual(before);
    await new Promise((r) => setTimeout(r, 30));
    expect(s.seen).toHaveLength(0);
    // and a request that completes clears its deadline too
    await undiciFetch({ maxBytes: MiB, timeoutMs: 60_000 })(`${s.url}/y`, { method: 'POST', body: '{}' });
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it('through the model, an unreachable endpoint is a retryable connection error naming it', async () => {
    const s = await serve((_, res) => res.end('{}'));
    const url = `${s.url}/v1`;
    servers.splice(0).forEach((x) => x.close());
    await new Promise((r) => setTimeout(r, 20));
    const e = await rejection(model(url).generate(REQ));
    expect(e).toMatchObject({ kind: 'connection', retryable: true });
    expect(e.message).toContain(`cannot reach ${url}`);
  });
});
