/**
 * Encoding and decoding of the store's rows: runs, graded outputs (stored without the prompt text the calls table
 * holds), calls, attempts and selections, and the text cleaning of raw text columns.
 */
import type { AttemptRecord, CallRecord, ChatMessage, ExtractionTrace, GradedOutput, Json, SelectionRecord } from '@hpt-bench/sdk';
import type { RunRecord, RunStatus } from './store.js';

/**
 * `text` as well-formed UTF-16 without NUL: lone surrogates become U+FFFD (SQLite would store them as invalid UTF-8)
 * and U+0000 becomes U+FFFD (C tools reading the store stop at a NUL). Applied to the raw text columns (completions,
 * selector replies, errors, sample ids); JSON columns escape both already.
 */
export function wellFormed(text: string): string {
  return SUSPECT.test(text) ? text.replace(ILL_FORMED, '\uFFFD') : text;
}

/** Any surrogate or NUL (cheap pre-test); `ILL_FORMED` matches the lone surrogates and NULs themselves. */
const SUSPECT = /[\0\uD800-\uDFFF]/;
const ILL_FORMED = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A `runs` row as a `RunRecord` (JSON columns parsed; absent newer columns as null). */
export function toRun(row: Record<string, unknown>): RunRecord {
  return {
    id: row.id as string,
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
    status: row.status as RunStatus,
    dataset: row.dataset as string,
    model: row.model as string,
    mode: row.mode as string,
    config: JSON.parse(row.config as string) as Record<string, Json>,
    summary: row.summary ? (JSON.parse(row.summary as string) as Record<string, Json>) : null,
    error: (row.error as string | null) ?? null,
    configHash: (row.config_hash as string | null) ?? null,
    owner: (row.owner as string | null) ?? null,
    heartbeatAt: (row.heartbeat_at as string | null) ?? null,
    preflight: typeof row.preflight === 'string' ? (JSON.parse(row.preflight) as Record<string, Json>) : null,
    fingerprint: typeof row.fingerprint === 'string' ? (JSON.parse(row.fingerprint) as Record<string, Json>) : null,
  };
}

/**
 * The user message of an attempt's last graded call: what `graded.promptText` is for every built-in strategy
 * (`assemblePrompt` returns it as both).
 */
function gradedCallPrompt(calls: CallRecord[]): string | undefined {
  for (let i = calls.length - 1; i >= 0; i--) {
    const c = calls[i]!;
    if (c.purpose !== 'graded') continue;
    for (let k = c.messages.length - 1; k >= 0; k--) if (c.messages[k]!.role === 'user') return c.messages[k]!.content;
    return undefined;
  }
  return undefined;
}

/**
 * The attempt's graded output as stored: without `promptText` when it is the graded call's user message, which the
 * calls table holds already (this copy was about a third of a store's bytes). Any other `promptText` is stored as is.
 */
export function storedGraded(a: AttemptRecord): string {
  const { promptText, ...rest } = a.graded;
  return promptText === gradedCallPrompt(a.calls) ? JSON.stringify(rest) : JSON.stringify(a.graded);
}

/** The inverse of `storedGraded` (rows written before it carry `promptText` and are returned unchanged). */
function loadedGraded(json: string, calls: CallRecord[]): GradedOutput {
  const g = JSON.parse(json) as Partial<GradedOutput>;
  if (Object.hasOwn(g, 'promptText')) return g as GradedOutput;
  const promptText = gradedCallPrompt(calls);
  return (promptText === undefined ? g : { promptText, ...g }) as GradedOutput;
}

/** Decodes a stored `messages` column (texts.ts `decodeMessages` with the store's shared texts). */
export type MessagesDecoder = (json: string) => ChatMessage[];

/** A `selections` row as a `SelectionRecord` (with its selector call when the selector asked a model). */
export function selectionFromRow(s: Record<string, unknown>, messages: MessagesDecoder): SelectionRecord {
  return {
    iteration: s.iteration as number,
    level: s.level as number | null,
    valid: s.valid === 1,
    ...(s.raw !== null ? { raw: s.raw as string } : {}),
    ...(s.solved !== null ? { solved: s.solved === 1 } : {}),
    ...(s.model !== null
      ? {
          call: {
            seq: 0,
            purpose: 'selector' as const,
            model: s.model as string,
            messages: messages(s.messages as string),
            output: s.output as string,
            usage: { promptTokens: s.prompt_tokens as number, completionTokens: s.completion_tokens as number, ...(s.reasoning_tokens !== null && s.reasoning_tokens !== undefined ? { reasoningTokens: Number(s.reasoning_tokens) } : {}) },
            latencyMs: s.latency_ms as number,
            finishReason: s.finish_reason as string,
            ...(s.cached === 1 ? { cached: true } : {}),
            ...(s.batched === 1 ? { batched: true } : {}),
            ...(typeof s.reasoning === 'string' ? { reasoning: s.reasoning } : {}),
            ...(s.truncated_thinking === 1 ? { truncatedThinking: true } : {}),
          },
        }
      : {}),
  };
}

/** A `calls` row as a `CallRecord`. */
export function callFromRow(c: Record<string, unknown>, messages: MessagesDecoder): CallRecord {
  return {
    seq: c.seq as number,
    purpose: c.purpose as 'graded',
    model: c.model as string,
    messages: messages(c.messages as string),
    output: c.output as string,
    usage: { promptTokens: c.prompt_tokens as number, completionTokens: c.completion_tokens as number, ...(c.reasoning_tokens !== null && c.reasoning_tokens !== undefined ? { reasoningTokens: Number(c.reasoning_tokens) } : {}) },
    latencyMs: c.latency_ms as number,
    finishReason: c.finish_reason as string,
    ...(c.mean_token_prob !== null || c.purpose === 'knowledge' ? { meanTokenProb: c.mean_token_prob as number | null } : {}),
    ...(c.cached === 1 ? { cached: true } : {}),
    ...(c.batched === 1 ? { batched: true } : {}),
    ...(typeof c.reasoning === 'string' ? { reasoning: c.reasoning } : {}),
    ...(c.truncated_thinking === 1 ? { truncatedThinking: true } : {}),
  };
}

/** An `attempts` row as an `AttemptRecord`, with its calls taken from `calls` (the sample's `calls` rows). */
export function attemptFromRow(a: Record<string, unknown>, calls: Record<string, unknown>[], messages: MessagesDecoder): AttemptRecord {
  const own = calls.filter((c) => c.attempt === a.attempt).map((c) => callFromRow(c, messages));
  return {
    level: a.level as number,
    strategy: a.strategy as string,
    solved: a.solved === 1,
    score: a.score as number,
    extracted: JSON.parse(a.extracted as string) as Json,
    ...(typeof a.extraction === 'string' ? { extraction: JSON.parse(a.extraction) as ExtractionTrace } : {}),
    graded: loadedGraded(a.graded as string, own),
    ...(a.notes ? { notes: JSON.parse(a.notes as string) } : {}),
    ...(a.iteration !== null && a.iteration !== undefined ? { iteration: a.iteration as number } : {}),
    calls: own,
  };
}
