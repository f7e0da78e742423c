/**
 * Reasoning models' thinking written inline in the reply (issue #24): `<think>…</think>` (Qwen3, DeepSeek-R1 and its
 * distills, gpt-oss through some servers when no reasoning parser is configured), `<thinking>…</thinking>`, and Kimi's
 * `◁think▷…◁/think▷`. The thinking is kept apart from the answer: it is stored with the call as its reasoning and never
 * reaches extraction or scoring.
 */

/**
 * A reply split into its answer and its thinking.
 * - `answer`: the reply without its thinking blocks, trimmed (`''` when the reply ended inside a block);
 * - `thinking`: the text of the blocks, in order, separated by a blank line (null when the reply has none);
 * - `truncated`: the reply ended inside an unclosed block (the length limit was hit while thinking): it has no answer.
 */
export interface SplitReply {
  answer: string;
  thinking: string | null;
  truncated: boolean;
}

/** Opening and closing tags of a thinking block, case-insensitive. */
const OPEN_RE = /<think(?:ing)?>|◁think▷/giu;
const CLOSE_RE = /<\/think(?:ing)?>|◁\/think▷/iu;

/**
 * Splits a reply into its answer and its inline thinking:
 * - every closed block (`<think>…</think>`, `<thinking>…</thinking>`, `◁think▷…◁/think▷`) is thinking, wherever it
 *   stands (also after a preamble such as "Sure."); the text around the blocks is the answer;
 * - a closing tag with no opening one before it (the chat template opened the block in the prompt, as DeepSeek-R1's
 *   does) makes everything before it thinking;
 * - a reply that ends inside an opened block is `truncated`: its answer is `''` (whatever preamble came before the
 *   block is not an answer) and the block's text is its thinking.
 * A reply without tags is returned as it is (`answer` = the text, untrimmed; `thinking` null).
 */
export function splitThinking(text: string): SplitReply {
  if (!/think/iu.test(text)) return { answer: text, thinking: null, truncated: false };
  const thoughts: string[] = [];
  let answer = '';
  let rest = text;
  // a closing tag before any opening one: the block was opened by the prompt
  const firstClose = CLOSE_RE.exec(rest);
  OPEN_RE.lastIndex = 0;
  const firstOpen = OPEN_RE.exec(rest);
  if (firstClose !== null && (firstOpen === null || firstClose.index < firstOpen.index)) {
    thoughts.push(rest.slice(0, firstClose.index));
    rest = rest.slice(firstClose.index + firstClose[0].length);
  }
  for (;;) {
    OPEN_RE.lastIndex = 0;
    const open = OPEN_RE.exec(rest);
    if (open === null) {
      answer += rest;
      break;
    }
    answer += rest.slice(0, open.index);
    rest = rest.slice(open.index + open[0].length);
    const close = CLOSE_RE.exec(rest);
    if (close === null) {
      thoughts.push(rest);
      return { answer: '', thinking: joinThoughts(thoughts), truncated: true };
    }
    thoughts.push(rest.slice(0, close.index));
    rest = rest.slice(close.index + close[0].length);
  }
  if (thoughts.length === 0) return { answer: text, thinking: null, truncated: false };
  return { answer: answer.trim(), thinking: joinThoughts(thoughts), truncated: false };
}

/** The blocks' texts, each trimmed, separated by a blank line. */
function joinThoughts(thoughts: string[]): string {
  return thoughts.map((t) => t.trim()).join('\n\n');
}
