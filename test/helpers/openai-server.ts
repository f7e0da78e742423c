import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One chat-completions request as the server received it. */
export interface ReceivedRequest {
  model: string;
  messages: { role: string; content: string }[];
  logprobs: boolean;
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  seed?: number;
  authorization: string | undefined;
  /** the request's `response_format` (structured output), when it sent one */
  responseFormat?: unknown;
}

/**
 * What the test's rule answers: a completion (optionally with per-token logprobs, optionally after `delayMs`), an HTTP
 * error, or `drop` (the connection is destroyed without a response, like a crashed proxy).
 */
export type Reply = { text: string; logprobs?: number[]; delayMs?: number } | { status: number; body?: unknown; headers?: Record<string, string> } | { drop: true };

/** A running OpenAI-compatible test server on 127.0.0.1. */
export interface TestServer {
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * Start an OpenAI-compatible server on 127.0.0.1 (random port) whose `POST /v1/chat/completions` answers with
 * `rule(request)`. Every request is recorded in `requests`, in arrival order. Usage counts are characters / 4.
 */
export async function startOpenAIServer(rule: (req: ReceivedRequest) => Reply | Promise<Reply>): Promise<TestServer> {
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
          return;
        }
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        const received: ReceivedRequest = {
          model: body.model as string,
          messages: body.messages as ReceivedRequest['messages'],
          logprobs: body.logprobs === true,
          temperature: body.temperature as number | undefined,
          top_p: body.top_p as number | undefined,
          max_tokens: body.max_tokens as number | undefined,
          seed: body.seed as number | undefined,
          authorization: req.headers.authorization,
          ...(body.response_format !== undefined ? { responseFormat: body.response_format } : {}),
        };
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
        if ('status' in reply) {
          res.writeHead(reply.status, { 'content-type': 'application/json', ...(reply.headers ?? {}) }).end(JSON.stringify(reply.body ?? { error: { message: `HTTP ${reply.status}` } }));
          return;
        }
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        const prompt = received.messages.map((m) => m.content).join('\n');
        const completionTokens = reply.logprobs?.length ?? Math.max(1, Math.ceil(reply.text.length / 4));
        const payload = {
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          created: 0,
          model: received.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: reply.text },
              finish_reason: 'stop',
              logprobs: received.logprobs && reply.logprobs ? { content: reply.logprobs.map((lp, i) => ({ token: `t${i}`, logprob: lp, bytes: null, top_logprobs: [] })) } : null,
            },
          ],
          usage: { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: completionTokens, total_tokens: Math.ceil(prompt.length / 4) + completionTokens },
        };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
