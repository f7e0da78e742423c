/**
 * The openai plugin's HTTP guards: a `fetch` that reads response bodies incrementally and
 * gives up as soon as one exceeds a byte cap, and the split of a user's base URL into what requests use, what may be
 * shown (the credential-free `endpoint`) and the secrets error messages must never contain.
 */
import { HptError } from '@hpt-bench/sdk';

/**
 * The message of a response over the cap (one wording for the body and the completion text, so users find the flag):
 * `response larger than <maxBytes> bytes (--max-response-bytes)`.
 */
export function tooLargeMessage(maxBytes: number): string {
  return `response larger than ${maxBytes} bytes (--max-response-bytes)`;
}

/**
 * Thrown into a response body's stream (so out of `response.json()` / `response.text()`) when the body exceeds the cap
 * of `cappedFetch`: more than `maxBytes` bytes after content decoding were received, or the `Content-Length` header
 * announced more. The request's connection is aborted at that moment.
 */
export class ResponseTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(tooLargeMessage(maxBytes));
    this.name = 'ResponseTooLargeError';
  }
}

/** True when `e` or one of its causes (up to 5 deep) is a `ResponseTooLargeError`; returns it. */
export function findTooLarge(e: unknown): ResponseTooLargeError | undefined {
  let cur: unknown = e;
  for (let depth = 0; depth < 5 && cur; depth++) {
    if (cur instanceof ResponseTooLargeError) return cur;
    if (cur instanceof Error && cur.name === 'ResponseTooLargeError' && typeof (cur as ResponseTooLargeError).maxBytes === 'number') return cur as ResponseTooLargeError;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The `fetch` signature the openai SDK accepts (the global `fetch` of Node 20). */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * A `fetch` (for the openai SDK's `fetch` client option) whose responses' bodies are read at most `maxBytes` bytes far
 * (counted after content decoding, so a gzip bomb is caught too). Past the cap, or when a `Content-Length` without a
 * content encoding announces more, the body's stream fails with `ResponseTooLargeError` and the request is aborted
 * (the socket is closed; the rest of the body is never read or buffered). The SDK reads the body inside
 * `response.json()` / `response.text()`, so what is ever held is at most `maxBytes` plus one network chunk.
 *
 * The caller's `init.signal` still aborts the request, during the headers or the body (the deadline of `--timeout`).
 * Responses without a body (204, HEAD) are returned as they are.
 * @param maxBytes the cap in bytes (a positive integer)
 * @param inner the underlying fetch (default: the global `fetch`, i.e. undici)
 */
export function cappedFetch(maxBytes: number, inner: FetchLike = (input, init) => globalThis.fetch(input, init)): FetchLike {
  return async (input, init) => {
    // the caller's signal goes to the request as it is; cancelling the body stream below also ends the request
    // (undici's fetch aborts the fetch, closing the socket, when its body stream is cancelled)
    const res = await inner(input, init);
    const source = res.body;
    if (!source) return res;
    const declared = Number(res.headers.get('content-length') ?? NaN);
    const encoding = (res.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
    const plain = encoding === 'identity' || encoding === '';
    // Fast path: an unencoded body whose Content-Length is within the cap cannot exceed it (HTTP/1.1 framing ends the
    // body at the declared length), so the response is returned as it is: no second stream, no per-chunk promise.
    if (plain && Number.isFinite(declared) && declared <= maxBytes) return res;
    const reader = source.getReader();
    const early = Number.isFinite(declared) && declared > maxBytes && plain ? new ResponseTooLargeError(maxBytes) : undefined;
    let seen = 0;
    const fail = (controller: ReadableStreamDefaultController<Uint8Array>, err: ResponseTooLargeError) => {
      reader.cancel(err).catch(() => undefined);
      controller.error(err);
    };
    const body = new ReadableStream<Uint8Array>(
      {
        start(controller) {
          if (early) fail(controller, early);
        },
        async pull(controller) {
          let chunk: Awaited<ReturnType<typeof reader.read>>;
          try {
            chunk = await reader.read();
          } catch (e) {
            controller.error(e);
            return;
          }
          if (chunk.done) {
            controller.close();
            return;
          }
          seen += chunk.value.byteLength;
          if (seen > maxBytes) {
            fail(controller, new ResponseTooLargeError(maxBytes));
            return;
          }
          controller.enqueue(chunk.value);
        },
        cancel(reason) {
          return reader.cancel(reason).catch(() => undefined);
        },
      },
      { highWaterMark: 0 },
    );
    const wrapped = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    Object.defineProperty(wrapped, 'url', { value: res.url });
    return wrapped;
  };
}

/**
 * A base URL taken apart (DESIGN.md "Conventions": secrets):
 * - `requestBase`: what the SDK is given as `baseURL`: scheme, host, port and path, without user info, query or fragment;
 * - `endpoint`: the same string, the model's `endpoint` (cache key, limiter unit, logs, error messages);
 * - `query`: the base URL's query parameters, sent with every request (the SDK's `defaultQuery`), never shown;
 * - `basicAuth`: `Basic <base64(user:password)>` (percent-decoded) when the URL had user info, else undefined;
 * - `secrets`: strings error text must not show: user name, password (raw and percent-decoded), `user:password`, the
 *   Basic token, and the values of secret-looking query parameters (`SECRET_QUERY_PARAM`).
 */
export interface BaseUrlParts {
  requestBase: string;
  endpoint: string;
  query: Record<string, string>;
  basicAuth?: string;
  secrets: string[];
}

/** Query parameter names whose values are secrets (`key`, `api-key`, `token`, `sig`, `password`, ...), as in core's `run/secrets`. */
export const SECRET_QUERY_PARAM = /key|token|secret|sig|pass|auth|credential/i;

function decoded(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

/**
 * Take a base URL apart (see `BaseUrlParts`). The scheme must be http or https.
 * @param raw the base URL (`--base-url`, the `baseUrl` option or `OPENAI_BASE_URL`)
 * @param source how to name it in an error, e.g. `--base-url` or `OPENAI_BASE_URL`
 * @throws HptError `E_CONFIG` when `raw` is not a URL or not http(s); the message shows the URL only without its user
 *   info (and not at all when it cannot be parsed and contains an `@`).
 */
export function parseBaseUrl(raw: string, source: string): BaseUrlParts {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    const shown = raw.includes('@') ? '' : ` (got '${raw.slice(0, 200)}')`;
    throw new HptError('E_CONFIG', `${source} is not a valid URL${shown}; give an http(s) URL such as http://127.0.0.1:8000/v1`);
  }
  const username = u.username;
  const password = u.password;
  const query: Record<string, string> = {};
  for (const [k, v] of u.searchParams) query[k] = v;
  u.username = '';
  u.password = '';
  u.search = '';
  u.hash = '';
  const clean = `${u.origin === 'null' ? `${u.protocol}//${u.host}` : u.origin}${u.pathname}`;
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new HptError('E_CONFIG', `${source} must be an http(s) URL of an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (got '${u.protocol}' URL ${clean.slice(0, 200)})`);
  }
  const secrets = new Set<string>();
  for (const v of [username, password, ...Object.entries(query).filter(([k]) => SECRET_QUERY_PARAM.test(k)).map(([, v]) => v)]) {
    if (v) {
      secrets.add(v);
      secrets.add(decoded(v));
    }
  }
  let basicAuth: string | undefined;
  if (username || password) {
    const token = Buffer.from(`${decoded(username)}:${decoded(password)}`, 'utf8').toString('base64');
    basicAuth = `Basic ${token}`;
    secrets.add(token);
    secrets.add(`${decoded(username)}:${decoded(password)}`);
  }
  return { requestBase: clean, endpoint: clean, query, ...(basicAuth ? { basicAuth } : {}), secrets: [...secrets].filter(Boolean) };
}

/** `text` with every occurrence of each secret replaced by `[redacted]`, longest secrets first (empty ones ignored). */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) if (s) out = out.split(s).join('[redacted]');
  return out;
}
