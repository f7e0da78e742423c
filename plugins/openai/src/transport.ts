/**
 * The HTTP transport of chat calls: a `fetch` for the openai SDK (its `fetch` client option) made on undici's
 * `Dispatcher.request` instead of the WHATWG `fetch` of Node, which reads the whole response (at most `maxBytes`)
 * under one deadline before handing the SDK a buffered `Response`.
 *
 * Why not the global `fetch`: per call it builds a Request, a Response and WHATWG streams for both bodies, and a
 * deadline on the body needs an AbortController chained to the SDK's. Against a local server answering at once
 * (bench/exec.mjs scenario 1, 2 cores), a loop of SDK calls over this transport makes about twice the calls per second
 * of the same loop over the global `fetch` (3,748-3,844 vs 1,883-2,011 calls/s). The SDK does the rest as before:
 * request bodies, headers, auth, status errors and parsing.
 */
import { EventEmitter } from 'node:events';
import { STATUS_CODES } from 'node:http';
import { createRequire } from 'node:module';
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Agent as UndiciAgent, Dispatcher } from 'undici';
import { type FetchLike, ResponseTooLargeError, tooLargeMessage } from './http.js';

// undici's index loads all of undici (fetch, WebSocket, EventSource, mocks, caches, interceptors: about 90 ms at every
// start); the transport needs the Agent and the request API only (about 20 ms), so it loads those two modules. The
// package has no export map that forbids this, and its version is pinned exactly (plugins/openai/package.json).
const requireCjs = createRequire(import.meta.url);
const Agent = requireCjs('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
const { request } = requireCjs('undici/lib/api/index.js') as { request: Dispatcher['request'] };

/**
 * Thrown (out of the SDK's call, as its `APIConnectionTimeoutError`) when a request did not complete — connection,
 * headers and whole body — within the transport's deadline. Its message says "timed out", which is how the SDK tells a
 * timeout from other connection failures.
 */
export class DeadlineError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`request timed out after ${timeoutMs} ms (--timeout)`);
    this.name = 'TimeoutError';
  }
}

/** Statuses whose responses have no body (a `Response` with one cannot be built). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

let shared: UndiciAgent | undefined;

/**
 * The process's connection pool for chat calls (keep-alive connections shared by every model of the process, as the
 * global `fetch` shares its own). undici's own idle timeouts are off (`headersTimeout`, `bodyTimeout` 0): the
 * transport's deadline covers the whole request instead; connecting still gives up after undici's 10 s.
 */
function sharedAgent(): UndiciAgent {
  shared ??= new Agent({ headersTimeout: 0, bodyTimeout: 0 });
  return shared;
}

/** `init.headers` (a Headers, a record or pairs, as the SDK builds them) as the flat `[name, value, ...]` list undici takes. */
function flatHeaders(headers: RequestInit['headers']): string[] {
  const out: string[] = [];
  if (!headers) return out;
  const pairs: Iterable<readonly [string, string]> =
    typeof (headers as Headers).forEach === 'function' || Array.isArray(headers) ? (headers as Iterable<[string, string]>) : Object.entries(headers as Record<string, string>);
  for (const [name, value] of pairs) out.push(name, value);
  return out;
}

/** A buffered `Response` of status `status` with headers `raw` (undici's: lower-case names, arrays for repeated ones). */
function bufferedResponse(status: number, raw: Record<string, string | string[] | undefined>, body: Buffer | string | null, url: string): Response {
  const headers = new Headers();
  for (const name in raw) {
    const value = raw[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.append(name, value);
  }
  const response = new Response(NULL_BODY.has(status) ? null : body, { status, statusText: STATUS_CODES[status] ?? '', headers });
  Object.defineProperty(response, 'url', { value: url });
  return response;
}

/** The decoder of a `Content-Encoding` the global `fetch` also decodes (gzip, deflate, br), or undefined (body as is). */
function decoderFor(encoding: string): Transform | undefined {
  if (encoding === 'gzip' || encoding === 'x-gzip') return createGunzip();
  if (encoding === 'deflate') return createInflate();
  if (encoding === 'br') return createBrotliDecompress();
  return undefined;
}

/**
 * A `fetch` for the openai SDK over undici's `Dispatcher.request` (see the file comment), for requests whose body is a
 * string or bytes (JSON, as the SDK sends chat completions).
 *
 * - Deadline: the request — connecting, sending, the headers and the whole body — must complete within `timeoutMs`;
 *   else it is aborted (the socket closed) and the promise rejects with `DeadlineError`. A body trickling a byte at a
 *   time ends at the deadline too: it is a total, not an idle, timeout.
 * - Cap: the body is read at most `maxBytes` bytes far, counted after content decoding (gzip, deflate and br are
 *   decoded, as `fetch` does, so a gzip bomb is caught too); an unencoded body whose `Content-Length` announces more
 *   fails before it is read. For a 2xx answer the promise then rejects with `ResponseTooLargeError` and the socket is
 *   closed; for an error status the `Response` keeps its status and carries the too-large message as its body, so the
 *   status still decides the kind of error.
 * - `init.signal` (the SDK's own timeout and a caller's signal) aborts the request as with `fetch` (`AbortError`).
 * - Redirects are not followed (an API endpoint does not redirect; a 3xx is returned as it is).
 * @param options.maxBytes the cap in bytes (a positive integer); options.timeoutMs the deadline in ms (1..2^31-1);
 *   options.dispatcher the connection pool (default: one undici `Agent` per process).
 * @returns a function with the signature of the global `fetch`, resolving to a `Response` whose body is fully read.
 * @throws (as rejections) `DeadlineError`, `ResponseTooLargeError`, `AbortError`, undici's connection errors
 *   (refused, reset, connect timeout), and `TypeError` for a request body that is a stream or form data.
 */
export function undiciFetch(options: { maxBytes: number; timeoutMs: number; dispatcher?: Dispatcher }): FetchLike {
  const { maxBytes, timeoutMs } = options;
  const dispatcher = options.dispatcher ?? sharedAgent();
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const requestBody = init?.body ?? null;
      if (requestBody !== null && typeof requestBody !== 'string' && !(requestBody instanceof Uint8Array)) {
        reject(new TypeError('the chat transport sends string or byte bodies only'));
        return;
      }
      const url = new URL(href);
      const abort = new EventEmitter(); // undici takes an EventEmitter as the request's signal ('abort')
      const callerSignal = init?.signal ?? undefined;
      let raw: Readable | undefined;
      let decoded: Readable | undefined;
      let settled = false;
      const done = (): boolean => {
        if (settled) return false;
        settled = true;
        clearTimeout(timer);
        callerSignal?.removeEventListener('abort', onCallerAbort);
        return true;
      };
      const fail = (err: unknown): void => {
        if (!done()) return;
        abort.emit('abort');
        decoded?.destroy();
        raw?.destroy();
        reject(err);
      };
      const onCallerAbort = (): void => fail(callerSignal?.reason ?? new DOMException('This operation was aborted', 'AbortError'));
      const timer = setTimeout(() => fail(new DeadlineError(timeoutMs)), timeoutMs);
      if (callerSignal) {
        if (callerSignal.aborted) return onCallerAbort();
        callerSignal.addEventListener('abort', onCallerAbort, { once: true });
      }
      let sent: Promise<Dispatcher.ResponseData<unknown>>;
      try {
        sent = request.call(dispatcher, {
          origin: url.origin,
          path: url.pathname + url.search,
          method: (init?.method ?? 'GET').toUpperCase() as Dispatcher.HttpMethod,
          headers: flatHeaders(init?.headers),
          body: requestBody,
          signal: abort,
        });
      } catch (e) {
        // a request undici refuses at once (e.g. an invalid header value): the timer and the listener go with it
        return fail(e);
      }
      sent.then((res) => {
        raw = res.body;
        if (settled) {
          raw.destroy();
          return;
        }
        const status = res.statusCode;
        const ok = status >= 200 && status < 300;
        // an error status keeps its status, with the cap's message as its body (the status decides the error's kind)
        const overCap = (): void => {
          if (ok) return fail(new ResponseTooLargeError(maxBytes));
          if (!done()) return;
          decoded?.destroy();
          raw?.destroy();
          resolve(bufferedResponse(status, res.headers, tooLargeMessage(maxBytes), href));
        };
        const encoding = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
        const decoder = decoderFor(encoding);
        const declared = Number(res.headers['content-length'] ?? NaN);
        if (!decoder && declared > maxBytes) return overCap();
        let stream: Readable = raw;
        if (decoder) {
          decoded = decoder;
          raw.on('error', fail);
          stream = raw.pipe(decoder);
        }
        const chunks: Buffer[] = [];
        let seen = 0;
        stream.on('data', (chunk: Buffer) => {
          if (settled) return;
          seen += chunk.length;
          if (seen > maxBytes) return overCap();
          chunks.push(chunk);
        });
        stream.on('error', fail);
        stream.on('end', () => {
          if (!done()) return;
          resolve(bufferedResponse(status, res.headers, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, seen), href));
        });
      }, fail);
    });
}
