/**
 * Content-addressed prompt text in the store (DESIGN.md "store"). Prompts of long-input datasets repeat the same long
 * text in every call: a HiBench Paper prompt carries the whole ~28k-character paper, and each ladder level, each
 * question about the same paper and each model's run asks with it again. A message is cut into chunks of whole lines
 * (`encodeContent`); every chunk of at least `SHARED_CHUNK_MIN` characters is stored once in the `texts` table
 * (schema.ts), keyed by its hash, and the message keeps a reference to it; shorter chunks stay inline. Chunks of lines
 * (not whole messages) are the unit because the ladder's templates wrap the same input in different text per level,
 * which leaves the input's own lines, and so its chunks, unchanged.
 *
 * Encoding of one message's `content` in `calls.messages` / `selections.messages`: a string when no line is shared
 * (every row written before this existed has this form), else `{"$parts": [...]}` whose items are literal strings or
 * `{"$t": "<hash>"}` references, concatenated in order. Message content is a string in every call record, so an
 * object is never ambiguous.
 */
import { createHash } from 'node:crypto';
import type { ChatMessage } from '@hpt-bench/sdk';
import { HptError } from '@hpt-bench/sdk';

/** Chunks of at least this many UTF-16 code units are stored once and referenced (shorter ones cost less inline than a reference). */
export const SHARED_CHUNK_MIN = 256;

/** A reference to a shared text in an encoded message. */
interface TextRef {
  $t: string;
}

/** Lone surrogates and NUL cannot be stored as raw TEXT unchanged; such lines stay inline (JSON escapes them). */
const SUSPECT = /[\0\uD800-\uDFFF]/;

/** The key of a shared text: the first 128 bits of its SHA-256 (UTF-8), in hex. */
export function textHash(body: string): string {
  return createHash('sha256').update(body, 'utf8').digest('hex').slice(0, 32);
}

/** Recently hashed chunks (the fixed parts of prompt templates recur in every sample): chunk -> `textHash`. */
const recentHashes = new Map<string, string>();
/** Entries kept before `recentHashes` starts over (bounds its memory: at most this many chunks, each < 16 KiB). */
const RECENT_HASHES_MAX = 256;

/** `textHash(chunk)`, remembered for the chunks seen lately (a Map lookup instead of a SHA-256 for a recurring chunk). */
function chunkHash(chunk: string): string {
  let hash = recentHashes.get(chunk);
  if (hash === undefined) {
    if (recentHashes.size >= RECENT_HASHES_MAX) recentHashes.clear();
    hash = textHash(chunk);
    recentHashes.set(chunk, hash);
  }
  return hash;
}

/** Hash of a line that decides chunk boundaries (FNV-1a, 32 bits): cheap, and the same wherever the line occurs. */
function lineHash(line: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < line.length; i++) h = Math.imul(h ^ line.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** On average one line in `BOUNDARY_EVERY` ends a chunk; a chunk never grows past `CHUNK_MAX` code units. */
const BOUNDARY_EVERY = 4;
const CHUNK_MAX = 16384;

/**
 * The content as stored: the string itself when no chunk is shared, else the `$parts` form, calling `put(hash, text)`
 * for each shared chunk (the caller stores it once). Chunks are runs of whole lines cut after a line whose own hash
 * says so (content-defined chunking at line granularity): text a template adds before or after an input changes only
 * the chunks it touches, and the input's other chunks come out identical in every prompt that carries it. A chunk is
 * shared when it has at least `SHARED_CHUNK_MIN` code units and no lone surrogate or NUL.
 */
export function encodeContent(content: string, put: (hash: string, body: string) => void): string | { $parts: (string | TextRef)[] } {
  if (content.length < SHARED_CHUNK_MIN) return content;
  const parts: (string | TextRef)[] = [];
  let literal = '';
  let start = 0; // start of the open chunk
  let pos = 0; // start of the next line
  while (pos < content.length) {
    const nl = content.indexOf('\n', pos);
    const end = nl === -1 ? content.length : nl + 1;
    const line = content.slice(pos, nl === -1 ? content.length : nl);
    pos = end;
    if (pos < content.length && pos - start < CHUNK_MAX && lineHash(line) % BOUNDARY_EVERY !== 0) continue;
    const chunk = content.slice(start, pos);
    start = pos;
    if (chunk.length >= SHARED_CHUNK_MIN && !SUSPECT.test(chunk)) {
      if (literal) parts.push(literal);
      literal = '';
      const hash = chunkHash(chunk);
      put(hash, chunk);
      parts.push({ $t: hash });
    } else {
      literal += chunk;
    }
  }
  if (literal) parts.push(literal);
  return parts.some((p) => typeof p !== 'string') ? { $parts: parts } : content;
}

/** `messages` as the JSON stored in a `messages` column, shared lines handed to `put` (see `encodeContent`). */
export function encodeMessages(messages: readonly ChatMessage[], put: (hash: string, body: string) => void): string {
  return JSON.stringify(messages.map((m) => (typeof m.content === 'string' ? { ...m, content: encodeContent(m.content, put) } : m)));
}

/**
 * The messages of a stored `messages` column, shared lines read with `get`.
 * @throws HptError `E_STORE` when a referenced text is missing (a damaged store).
 */
export function decodeMessages(json: string, get: (hash: string) => string | undefined): ChatMessage[] {
  const messages = JSON.parse(json) as { role: ChatMessage['role']; content: unknown }[];
  for (const m of messages) {
    const c = m.content as { $parts?: (string | TextRef)[] } | string;
    if (typeof c !== 'object' || c === null || !Array.isArray(c.$parts)) continue;
    let text = '';
    for (const p of c.$parts) {
      if (typeof p === 'string') {
        text += p;
        continue;
      }
      const body = get(p.$t);
      if (body === undefined) throw new HptError('E_STORE', `the store lacks shared text ${p.$t} referenced by a stored prompt (the store is damaged)`);
      text += body;
    }
    m.content = text;
  }
  return messages as ChatMessage[];
}
