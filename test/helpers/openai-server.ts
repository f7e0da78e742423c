import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One chat-completions request as the server received it. */
export interface ReceivedRequest {
  model: string;
  messages: { role: string; content: string }[];
  logprobs: boolean;
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  seed?: number;
  /** `reasoning_effort` and `max_completion_tokens`, when sent (issue #24) */
  reasoningEffort?: string;
  maxCompletionTokens?: number;
  authorization: string | undefined;
  /** the request's `response_format` (structured output), when it sent one */
  responseFormat?: unknown;
}

/**
 * A completion. Reasoning models' shapes (issue #24): `reasoning` puts thinking in the message field the providers
 * document — `reasoning_content` (DeepSeek API "Reasoning Model (deepseek-reasoner)": at the same level as `content`;
 * older vLLM reasoning parsers) or `reasoning` (newer vLLM, OpenRouter); `reasoningTokens` adds
 * `usage.completion_tokens_details.reasoning_tokens` (OpenAI chat completions usage, o-series and GPT-5) and counts them
 * in `completion_tokens`, as OpenAI does; `finishReason` replaces `stop` (e.g. `length`, the limit hit while thinking).
 * `model` is the body's `model` field: by default the requested name echoed (as vLLM and Ollama do); a string answers
 * with that name instead (a replica serving another model, or a dated snapshot such as `m-2024-07-18`); `null` leaves the
 * field out (some local servers omit it).
 */
export interface TextReply {
  text: string;
  logprobs?: number[];
  delayMs?: number;
  reasoning?: { field: 'reasoning_content' | 'reasoning'; text: string };
  reasoningTokens?: number;
  finishReason?: string;
  model?: string | null;
}

/**
 * What the test's rule answers: a completion (optionally with per-token logprobs, optionally after `delayMs`), an HTTP
 * error, or `drop` (the connection is destroyed without a response, like a crashed proxy). Fault modes:
 * - `stall`: status `status` (default 200) and JSON headers, then `prefix` (default a partial completion) and nothing
 *   more, forever;
 * - `trickle`: status 200 and JSON headers, then one byte every `everyMs` ms forever (a valid JSON prefix, then spaces);
 * - `hugeText`: a well-formed completion whose content is `hugeText` ASCII letters, written in `chunkBytes` (default
 *   64 KiB) chunks as fast as the client reads (backpressure honoured), chunked unless `contentLength` is true;
 * - `raw`: `raw` sent verbatim as the body (status default 200, content-type default application/json).
 * Stall and trickle end only when the client closes the connection (or the server is closed).
 */
export type Reply = TextReply | { status: number; body?: unknown; headers?: Record<string, string> } | { drop: true } | FaultReply;

/** The fault-mode replies of `Reply`. */
export type FaultReply =
  | { stall: true; prefix?: string; status?: number }
  | { trickle: { everyMs: number } }
  | { hugeText: number; contentLength?: boolean; chunkBytes?: number }
  | { raw: string; status?: number; headers?: Record<string, string> };

/**
 * What the server saw of its connections and fault-mode bodies:
 * - `connections`: TCP connections accepted; `openConnections()`: those not closed yet; `openRequestConnections()`:
 *   those not closed yet that carried at least one request (a client that aborts a request must close its socket;
 *   undici may open a fresh idle connection right after, which is not counted here);
 * - `faultBytesWritten`: body bytes the fault modes (`stall`, `trickle`, `hugeText`) handed to the socket — with
 *   backpressure honoured, at most one chunk more than the client (and the kernel's buffers) accepted;
 * - `faultBodiesCompleted`: fault-mode bodies written to their end.
 */
export interface ServerStats {
  connections: number;
  openConnections(): number;
  openRequestConnections(): number;
  faultBytesWritten: number;
  faultBodiesCompleted: number;
}

/** A running OpenAI-compatible test server on 127.0.0.1. */
export interface TestServer {
  url: string;
  requests: ReceivedRequest[];
  /** connection and fault-mode counters (see `ServerStats`) */
  stats: ServerStats;
  close(): Promise<void>;
}

/** A chat-completions request body as the test sees it (`ReceivedRequest`), with the request's Authorization header. */
export function receivedRequest(body: Record<string, unknown>, authorization: string | undefined): ReceivedRequest {
  return {
    model: body.model as string,
    messages: body.messages as ReceivedRequest['messages'],
    logprobs: body.logprobs === true,
    temperature: body.temperature as number | undefined,
    top_p: body.top_p as number | undefined,
    max_tokens: body.max_tokens as number | undefined,
    seed: body.seed as number | undefined,
    ...(body.reasoning_effort !== undefined ? { reasoningEffort: body.reasoning_effort as string } : {}),
    ...(body.max_completion_tokens !== undefined ? { maxCompletionTokens: body.max_completion_tokens as number } : {}),
    authorization,
    ...(body.response_format !== undefined ? { responseFormat: body.response_format } : {}),
  };
}

/** Write `parts` in order, waiting for `drain` when the socket's buffer is full; false when the connection closed first. */
async function writeBody(res: ServerResponse, parts: Buffer[], stats: ServerStats): Promise<boolean> {
  for (const part of parts) {
    if (res.destroyed || res.socket?.destroyed) return false;
    stats.faultBytesWritten += part.length;
    if (!res.write(part)) {
      const closed = await new Promise<boolean>((resolve) => {
        const onDrain = () => {
          res.off('close', onClose);
          resolve(false);
        };
        const onClose = () => {
          res.off('drain', onDrain);
          resolve(true);
        };
        res.once('drain', onDrain);
        res.once('close', onClose);
      });
      if (closed) return false;
    }
  }
  return true;
}

/** Whether `reply` is one of the fault modes (`stall`, `trickle`, `hugeText`, `raw`). */
function isFault(reply: Reply): reply is FaultReply {
  return 'stall' in reply || 'trickle' in reply || 'hugeText' in reply || 'raw' in reply;
}

/** Answer a fault-mode reply (see `Reply`). */
async function answerFault(reply: FaultReply, res: ServerResponse, model: string, stats: ServerStats): Promise<void> {
  if ('stall' in reply) {
    const prefix = Buffer.from(reply.prefix ?? '{"id":"stalled","object":"chat.completion","choices":[');
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
    stats.faultBytesWritten += prefix.length;
    res.write(prefix);
    return; // never ends: the client must give up
  }
  if ('trickle' in reply) {
    res.writeHead(200, { 'content-type': 'application/json' });
    const head = Buffer.from('{"id":"trickled"');
    let i = 0;
    const timer = setInterval(() => {
      if (res.destroyed || res.socket?.destroyed) {
        clearInterval(timer);
        return;
      }
      const byte = i < head.length ? head.subarray(i, i + 1) : Buffer.from(' ');
      i++;
      stats.faultBytesWritten += 1;
      res.write(byte);
    }, reply.trickle.everyMs);
    res.once('close', () => clearInterval(timer));
    return;
  }
  if ('hugeText' in reply) {
    const head = Buffer.from(
      `{"id":"huge","object":"chat.completion","created":0,"model":${JSON.stringify(model)},"choices":[{"index":0,"message":{"role":"assistant","content":"`,
    );
    const tail = Buffer.from(`"},"finish_reason":"stop","logprobs":null}],"usage":{"prompt_tokens":1,"completion_tokens":${Math.ceil(reply.hugeText / 4)},"total_tokens":${Math.ceil(reply.hugeText / 4) + 1}}}`);
    const size = reply.chunkBytes ?? 64 * 1024;
    const chunk = Buffer.alloc(size, 'a');
    const parts: Buffer[] = [head];
    for (let left = reply.hugeText; left > 0; left -= size) parts.push(left >= size ? chunk : chunk.subarray(0, left));
    parts.push(tail);
    const total = head.length + reply.hugeText + tail.length;
    res.writeHead(200, { 'content-type': 'application/json', ...(reply.contentLength ? { 'content-length': String(total) } : {}) });
    if (await writeBody(res, parts, stats)) {
      res.end(() => stats.faultBodiesCompleted++);
    }
    return;
  }
  if ('raw' in reply) {
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...(reply.headers ?? {}) }).end(reply.raw);
  }
}

/**
 * Start an OpenAI-compatible server on 127.0.0.1 (random port) whose `POST /v1/chat/completions` answers with
 * `rule(request)`. Every request is recorded in `requests`, in arrival order. Usage counts are characters / 4.
 */
export async function startOpenAIServer(rule: (req: ReceivedRequest) => Reply | Promise<Reply>): Promise<TestServer> {
  const requests: ReceivedRequest[] = [];
  let open = 0;
  const carrying = new Set<Socket>();
  const stats: ServerStats = { connections: 0, openConnections: () => open, openRequestConnections: () => carrying.size, faultBytesWritten: 0, faultBodiesCompleted: 0 };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    // one close listener per connection, not per request (a keep-alive connection carries many)
    if (!req.socket.destroyed && !carrying.has(req.socket)) {
      const socket = req.socket;
      carrying.add(socket);
      socket.once('close', () => carrying.delete(socket));
    }
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
          return;
        }
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        const received = receivedRequest(body, req.headers.authorization);
        requests.push(received);
        let reply: Reply;
        try {
          reply = await rule(received);
        } catch (e) {
          reply = { status: 500, body: { error: { message: `test rule failed: ${(e as Error).message}` } } };
        }
        if ('drop' in reply) {
          req.socket.destroy();
          return;
        }
        if (isFault(reply)) {
          await answerFault(reply, res, received.model, stats);
          return;
        }
        if ('status' in reply) {
          res.writeHead(reply.status, { 'content-type': 'application/json', ...(reply.headers ?? {}) }).end(JSON.stringify(reply.body ?? { error: { message: `HTTP ${reply.status}` } }));
          return;
        }
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        const prompt = received.messages.map((m) => m.content).join('\n');
        const completionTokens = (reply.logprobs?.length ?? Math.max(1, Math.ceil(reply.text.length / 4))) + (reply.reasoningTokens ?? 0);
        const payload = {
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          created: 0,
          ...(reply.model === null ? {} : { model: reply.model ?? received.model }),
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: reply.text, ...(reply.reasoning ? { [reply.reasoning.field]: reply.reasoning.text } : {}) },
              finish_reason: reply.finishReason ?? 'stop',
              logprobs: received.logprobs && reply.logprobs ? { content: reply.logprobs.map((lp, i) => ({ token: `t${i}`, logprob: lp, bytes: null, top_logprobs: [] })) } : null,
            },
          ],
          usage: {
            prompt_tokens: Math.ceil(prompt.length / 4),
            completion_tokens: completionTokens,
            total_tokens: Math.ceil(prompt.length / 4) + completionTokens,
            ...(reply.reasoningTokens !== undefined ? { completion_tokens_details: { reasoning_tokens: reply.reasoningTokens } } : {}),
          },
        };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
      })();
    });
  });
  server.on('connection', (socket) => {
    stats.connections++;
    open++;
    socket.once('close', () => open--);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    stats,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * Servers for tests that start one per test: `server(rule)` starts one answering `rule(i)` for its i-th request (0-based);
 * `onClose(fn)` adds another clean-up (e.g. a raw `http` server); `closeAll()` runs them all, newest first (call it in
 * `afterEach`).
 */
export function serverPool(): { server(rule: (i: number) => Reply | Promise<Reply>): Promise<TestServer>; onClose(close: () => Promise<void>): void; closeAll(): Promise<void> } {
  const closers: (() => Promise<void>)[] = [];
  return {
    async server(rule) {
      let i = 0;
      const s = await startOpenAIServer(() => rule(i++));
      closers.push(() => s.close());
      return s;
    },
    onClose(close) {
      closers.push(close);
    },
    async closeAll() {
      while (closers.length) await closers.pop()!();
    },
  };
}
