/**
 * A local OpenAI-compatible stand-in (`hpt-bench plugins verify`, issue 27 item 3): a chat-completions endpoint on
 * 127.0.0.1 (an ephemeral port) that answers every `POST …/chat/completions` with one fixed completion and records
 * what it received, so a model plugin that calls an endpoint can be checked without a network or an API key. The body
 * follows the OpenAI chat completions response (`id`, `object: "chat.completion"`, `created`, `model` echoed,
 * `choices[0].message.content`, `finish_reason: "stop"`, `usage.prompt_tokens` / `completion_tokens` / `total_tokens`).
 * Any other path answers 404 with an OpenAI-style error body.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the stand-in answers: the completion text and the token counts it reports. */
export const STAND_IN_REPLY = { text: 'stand-in reply', promptTokens: 11, completionTokens: 3 } as const;

/** One request the stand-in received: its method, path (without query), `Authorization` header and parsed JSON body. */
export interface StandInRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

/** A running stand-in: `url` is the base URL to give a model (`http://127.0.0.1:<port>/v1`). */
export interface StandInServer {
  url: string;
  requests: StandInRequest[];
  close(): Promise<void>;
}

/** Bodies larger than this (bytes) are refused with 413: a model sending megabytes for a one-word prompt is broken. */
const MAX_BODY = 1 << 20;

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function handle(req: IncomingMessage, res: ServerResponse, requests: StandInRequest[]): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (c: Buffer) => {
    size += c.length;
    if (size <= MAX_BODY) chunks.push(c);
  });
  req.on('end', () => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (size > MAX_BODY) return send(res, 413, { error: { message: 'request body too large', type: 'invalid_request_error' } });
    let body: unknown = null;
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
    } catch {
      body = Buffer.concat(chunks).toString('utf8');
    }
    requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization, body });
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) return send(res, 404, { error: { message: `the stand-in serves POST /v1/chat/completions only, not ${req.method} ${path}`, type: 'invalid_request_error' } });
    const model = body && typeof body === 'object' && typeof (body as { model?: unknown }).model === 'string' ? (body as { model: string }).model : 'stand-in';
    const { text, promptTokens, completionTokens } = STAND_IN_REPLY;
    send(res, 200, {
      id: `chatcmpl-stand-in-${requests.length}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    });
  });
}

/**
 * Start the stand-in on 127.0.0.1 (port chosen by the system).
 * @returns the server; `close()` ends open connections and stops it.
 */
export async function startStandIn(): Promise<StandInServer> {
  const requests: StandInRequest[] = [];
  const server = createServer((req, res) => handle(req, res, requests));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
