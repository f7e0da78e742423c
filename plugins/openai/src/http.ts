/**
 * The openai plugin's HTTP guards: the error of a response over the byte cap (enforced by the chat transport,
 * transport.ts), and the split of a user's base URL into what requests use, what may be shown (the credential-free
 * `endpoint`) and the secrets error messages must never contain.
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
 * Thrown by the chat transport (`undiciFetch`, transport.ts) when a 2xx body exceeds the cap: more than `maxBytes`
 * bytes after content decoding were received, or the `Content-Length` header announced more. The request's connection
 * is aborted at that moment.
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
