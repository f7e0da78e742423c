/**
 * Text scanning shared by the answer extractors (issue #23): where a reply starts once a repeated cue and markdown
 * noise are dropped, sentence boundaries, parentheticals, and the explicit final-answer markers models write
 * ("The answer is (B).", "Answer: 18", "Final answer: ...", `####`, `\boxed{}`, a JSON `"answer"` field, a bold line).
 * Every position is a UTF-16 offset into the completion the extractor was given.
 */

/** A stretch of the completion: `[start, end)`. */
export interface Region {
  start: number;
  end: number;
}

/** Leading noise before an answer: whitespace, markdown emphasis/heading/quote/code marks, quotes, bullets, `:`/`=`. */
const LEAD_NOISE_RE = /^[\s*_`#>"'“”‘’«»•·:=–—-]+/u;

/** Like `LEAD_NOISE_RE` for a number: keeps `-`/`−` (a sign) and `#` (`####`). */
const LEAD_NOISE_NUMBER_RE = /^[\s*_`>"'“”‘’«»•·:=]+/u;

/** The offset of the first character of `text` from `from` on that is not leading noise (`number`: keeps a sign). */
export function skipNoise(text: string, from: number, number = false): number {
  const m = (number ? LEAD_NOISE_NUMBER_RE : LEAD_NOISE_RE).exec(text.slice(from, from + 200));
  return from + (m ? m[0].length : 0);
}

/**
 * The offset where a reply's answer starts: after leading noise and one case-insensitive repetition of the cue
 * (`Answer:` again, also as `**Answer:**`), then noise again. `number` keeps a leading sign.
 */
export function replyStart(text: string, cue: string | undefined, number = false): number {
  let at = skipNoise(text, 0, number);
  const c = (cue ?? '').trim();
  if (c !== '' && text.slice(at, at + c.length).toLowerCase() === c.toLowerCase()) at = skipNoise(text, at + c.length, number);
  return at;
}

/** A list enumerator's number before a `.` at a line start ("1. ", "  - 2. "): its dot ends no sentence. */
const ENUMERATOR_BEFORE_DOT_RE = /^[ \t>*_-]*\d+$/u;

/**
 * True when the `.` at `i` ends no sentence: a decimal point or an abbreviation dot (anything but whitespace, a closing
 * quote, bracket or emphasis follows), or the dot of a list enumerator ("1. ").
 */
function innerDot(text: string, i: number): boolean {
  const next = text[i + 1];
  if (next !== undefined && !/[\s"'”’)*_\]]/u.test(next)) return true;
  const lineStart = text.lastIndexOf('\n', i - 1) + 1;
  return (next === ' ' || next === '\t') && i - lineStart <= 12 && ENUMERATOR_BEFORE_DOT_RE.test(text.slice(lineStart, i));
}

/**
 * The end of the sentence that starts at `from` (exclusive of the terminator), not past `limit`: the first line break,
 * `!`, `?`, `;`, or `.` followed by whitespace, a closing quote/bracket/emphasis or the end (so `12.5` and `e.g`
 * do not end it).
 */
export function sentenceEnd(text: string, from: number, limit = text.length): number {
  for (let i = from; i < limit; i++) {
    const ch = text[i];
    if (ch === '\n' || ch === '!' || ch === '?' || ch === ';') return i;
    if (ch === '.' && !innerDot(text, i)) return i;
  }
  return limit;
}

/**
 * The sentences of `text[from, to)`, in order: split at line breaks and at sentence ends (`sentenceEnd`), trimmed of
 * surrounding whitespace; empty ones are dropped.
 */
export function sentences(text: string, from = 0, to = text.length): Region[] {
  const out: Region[] = [];
  let at = from;
  while (at < to) {
    const end = sentenceEnd(text, at, to);
    let s = at;
    let e = end;
    while (s < e && /\s/u.test(text[s] as string)) s++;
    while (e > s && /\s/u.test(text[e - 1] as string)) e--;
    if (e > s) out.push({ start: s, end: e });
    at = end + 1;
  }
  return out;
}

/** `text[r.start, r.end)` with every parenthetical `( ... )` / `[ ... ]` (not nested across lines) replaced by spaces. */
export function blankParentheticals(text: string, r: Region): string {
  return text.slice(r.start, r.end).replace(/\([^()\n]*\)|\[[^[\]\n]*\]/gu, (m) => ' '.repeat(m.length));
}

/**
 * Inline and display math: `$...$` on one line, `$$...$$`, `\(...\)`, `\[...\]`; an unclosed one runs to the end of
 * the stretch (a reply cut off inside a formula), except a lone `$` without a LaTeX command after it, which is a
 * currency sign ("It costs $5, so B.").
 */
const MATH_RE = /\$\$[\s\S]*?(?:\$\$|$)|\$[^$\n]*\$|\$(?=[^$\n]*\\[A-Za-z])[^$\n]*$|\\\([\s\S]*?(?:\\\)|$)|\\\[[\s\S]*?(?:\\\]|$)/gu;

/** `text[r.start, r.end)` with its math (`MATH_RE`) replaced by spaces: `\mathrm{J}` names no option. */
export function blankMath(text: string, r: Region): string {
  return text.slice(r.start, r.end).replace(MATH_RE, (m) => ' '.repeat(m.length));
}

/** The kinds of explicit final-answer marker (`Marker.rule`). */
export type MarkerRule = 'hash' | 'boxed' | 'json-answer' | 'final-answer' | 'answer-is' | 'answer-label' | 'bold';

/**
 * An explicit final-answer marker found in a reply: its kind, where it starts, and the region its answer is read from.
 * `clip`: whether the answer ends with its sentence (prose markers) or is the whole region (`\boxed{}`, a JSON field,
 * a bold line).
 */
export interface Marker {
  rule: MarkerRule;
  at: number;
  region: Region;
  clip: boolean;
}

/**
 * The region after a prose marker ending at `from`: the rest of the line; when that holds only noise, the next
 * non-blank line (a model writing "Answer:" on a line of its own, the answer on the next).
 */
function lineRegion(text: string, from: number): Region {
  let end = text.indexOf('\n', from);
  if (end < 0) end = text.length;
  if (skipNoise(text, from) < end) return { start: from, end };
  let next = end + 1;
  while (next < text.length) {
    let e = text.indexOf('\n', next);
    if (e < 0) e = text.length;
    if (text.slice(next, e).trim() !== '') return { start: next, end: e };
    next = e + 1;
  }
  return { start: from, end };
}

/** The offset of the `}` closing the brace opened just before `from`, or -1. */
function closingBrace(text: string, from: number): number {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\') {
      i++;
      continue;
    }
    if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return i;
  }
  return -1;
}

/** The offset of the `quote` (`"`, or `'` in a Python-style dict) closing a string whose content starts at `from`, or -1 (unterminated). */
function closingQuote(text: string, from: number, quote: string): number {
  for (let i = from; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\') i++;
    else if (ch === quote) return i;
  }
  return -1;
}

const HASH_RE = /#{4,}/gu;
const BOXED_RE = /\\(?:boxed|fbox)\s*\{/gu;
const JSON_ANSWER_RE = /["']answer["']\s*:\s*/giu;
const FINAL_ANSWER_RE = /\bfinal\s+answer\b(?:[\s*_]*(?:[:=—–-]|\bis\b|\bwas\b|\bwould\s+be\b|\bwill\s+be\b)|\**[ \t]*(?=\n))/iuy;
const ANSWER_LABEL_RE = /\banswer\b[\s*_]*(?:\([^)\n]{0,20}\))?[\s*_]*[:：]/iuy;
const BOLD_LINE_RE = /^[ \t>*-]*\*\*([^*\n]+?)\*\*[ \t]*[.!]?[ \t]*$/gmu;

/** `answer is`-style markers; choices also accept "the correct option/choice is". */
function answerIsRe(choice: boolean): RegExp {
  const noun = choice ? '(?:answer|option|choice)' : 'answer';
  return new RegExp(`\\b${noun}(?:\\s*\\(s\\))?\\s+(?:is|was|would\\s+be|should\\s+be|will\\s+be|must\\s+be|=)\\b(?:\\s*:)?`, 'iuy');
}
const ANSWER_IS_RE = answerIsRe(false);
const CHOICE_IS_RE = answerIsRe(true);

/**
 * Every explicit final-answer marker in `text`, ordered by position (`at`). `choice` also reads "the correct option
 * is ..." and "... choice is ...". A JSON `"answer"` field (or a Python-style `{'answer': 'B'}`) counts only when its string is closed (well-formed);
 * a bare JSON value (a number, `true`) runs to the next `,`, `}` or line end.
 */
export function findMarkers(text: string, choice = false): Marker[] {
  const out: Marker[] = [];
  // each family of markers is looked for only when its key string occurs (most replies hold one or two families)
  const lower = text.toLowerCase();
  if (text.includes('####')) {
    for (const m of text.matchAll(HASH_RE)) {
      const from = (m.index as number) + m[0].length;
      out.push({ rule: 'hash', at: m.index as number, region: lineRegion(text, from), clip: true });
    }
  }
  if (text.includes('\\boxed') || text.includes('\\fbox')) {
    for (const m of text.matchAll(BOXED_RE)) {
      const from = (m.index as number) + m[0].length;
      const close = closingBrace(text, from);
      if (close >= 0) out.push({ rule: 'boxed', at: m.index as number, region: { start: from, end: close }, clip: false });
    }
  }
  const answer = lower.includes('answer');
  if (answer) {
    for (const m of text.matchAll(JSON_ANSWER_RE)) {
      const from = (m.index as number) + m[0].length;
      const q = text[from];
      if (q === '"' || q === "'") {
        const close = closingQuote(text, from + 1, q);
        if (close >= 0) out.push({ rule: 'json-answer', at: m.index as number, region: { start: from + 1, end: close }, clip: false });
      } else {
        const rest = /^[^,}\n]*/u.exec(text.slice(from)) as RegExpExecArray;
        if (rest[0].trim() !== '') out.push({ rule: 'json-answer', at: m.index as number, region: { start: from, end: from + rest[0].length }, clip: false });
      }
    }
  }
  // prose markers: sticky patterns tried where their key word occurs (a scan of the lower-cased text is far cheaper
  // than a case-insensitive Unicode search of the whole reply)
  const tryAt = (rule: MarkerRule, re: RegExp, at: number) => {
    re.lastIndex = at;
    const m = re.exec(text);
    if (m !== null) out.push({ rule, at, region: lineRegion(text, at + m[0].length), clip: true });
  };
  for (let i = lower.indexOf('final'); i >= 0; i = lower.indexOf('final', i + 5)) tryAt('final-answer', FINAL_ANSWER_RE, i);
  for (let i = lower.indexOf('answer'); i >= 0; i = lower.indexOf('answer', i + 6)) {
    tryAt('answer-is', choice ? CHOICE_IS_RE : ANSWER_IS_RE, i);
    tryAt('answer-label', ANSWER_LABEL_RE, i);
  }
  if (choice) {
    for (const noun of ['option', 'choice']) for (let i = lower.indexOf(noun); i >= 0; i = lower.indexOf(noun, i + 6)) tryAt('answer-is', CHOICE_IS_RE, i);
  }
  if (text.includes('**')) {
    for (const m of text.matchAll(BOLD_LINE_RE)) {
      const inner = (m.index as number) + m[0].indexOf('**') + 2;
      out.push({ rule: 'bold', at: m.index as number, region: { start: inner, end: inner + (m[1] as string).length }, clip: false });
    }
  }
  out.sort((a, b) => a.at - b.at);
  // "Final answer:" also holds "answer:": one marker per answer, named by the one that starts first
  const seen = new Set<number>();
  return out.filter((m) => (seen.has(m.region.start) ? false : (seen.add(m.region.start), true)));
}

/**
 * Markers that settle the answer when they are the last one holding anything: a JSON `answer` field, `\boxed{}` and
 * "Final answer:" state the reply's answer, so when that holds no answer of the type, the reply has none.
 */
export const DECISIVE: ReadonlySet<MarkerRule> = new Set(['json-answer', 'boxed', 'final-answer']);

/** The region a marker's answer is read from: its sentence for prose markers, the whole region otherwise. */
export function answerRegion(text: string, marker: Marker): Region {
  const start = skipNoise(text, marker.region.start, true);
  if (!marker.clip) return { start, end: marker.region.end };
  return { start, end: sentenceEnd(text, start, marker.region.end) };
}

/**
 * A line where a model that runs on past its answer starts writing a new turn of the conversation: a heading or label
 * `Question:` / `## Question` / `### Instruction` / `Human:` / `User:` / `Q:` / `Problem:`, or a chat-template token
 * (`<|user|>`, `<|im_start|>`, `<|endoftext|>`, `<|eot_id|>`, `</s>`).
 */
const NEW_TURN_LINE_RE =
  /[ \t]*(?:#{1,6}[ \t]*)?(?:\*\*)?(?:question|instruction|human|user|q|problem)(?:[ \t]*\d+)?(?:\*\*)?[ \t]*(?::|(?=[ \t]*(?:\r?\n|$)))/iuy;
const TURN_TOKEN_RE = /<\|(?:user|im_start|endoftext|eot_id|end)\|>|<\/s>/iu;

/**
 * The end of the reply proper: the start of the first line (after the reply's first non-blank line) where the model
 * begins a new turn (`NEW_TURN_LINE_RE`, or a chat-template token anywhere after it), else the text's length. Text after it is the model continuing a conversation it
 * imagines (a small model repeating the prompt with its `"answer": "42"` example), never its answer.
 */
export function replyEnd(text: string): number {
  const first = /\S/u.exec(text);
  if (first === null) return text.length;
  const lineEnd = text.indexOf('\n', first.index);
  if (lineEnd < 0) return text.length;
  let end = text.length;
  if (text.includes('<|', lineEnd) || text.includes('</s>', lineEnd)) {
    const m = TURN_TOKEN_RE.exec(text.slice(lineEnd));
    if (m !== null) end = lineEnd + m.index;
  }
  for (let i = lineEnd; i >= 0 && i < end; i = text.indexOf('\n', i + 1)) {
    NEW_TURN_LINE_RE.lastIndex = i + 1;
    if (NEW_TURN_LINE_RE.test(text)) return i + 1;
  }
  return end;
}

/**
 * Only whitespace, sentence punctuation and emphasis: two answers with nothing but this between them (or between the
 * first and the line of the second, when that line starts with a few words such as "The") are stacked. A quote or a
 * comma between them is structure (the end of a JSON string, then the next field), not a list of answers.
 */
const STACK_GAP_RE = /^[\s.;:!?)\]*_`-]*$/u;

/**
 * The answer the explicit markers of a reply state, by the rule of the extractors: the LAST marker whose answer `read`
 * finds wins (a model that corrects itself is read at its correction; a recap after it states no new answer).
 * Returns the hit and its marker; `'none'` when the reply settles on no answer: the last decisive marker (`DECISIVE`)
 * holds none of the type, or the winning answer is stacked on a different one (a list such as "The answer is (C)\nThe
 * answer is (I)\n..." with nothing between: no single answer); null when no marker holds an answer.
 * @param read reads a marker's answer from its region (null when it holds none of the type)
 * @param same whether two answers are the same answer
 */
export function markerAnswer<H extends { end: number }>(
  text: string,
  markers: readonly Marker[],
  read: (marker: Marker, region: Region) => H | null,
  same: (a: H, b: H) => boolean,
): { hit: H; marker: Marker } | 'none' | null {
  for (let i = markers.length - 1; i >= 0; i--) {
    const marker = markers[i]!;
    const hit = read(marker, answerRegion(text, marker));
    if (hit === null) {
      if (DECISIVE.has(marker.rule)) return 'none';
      continue;
    }
    for (let j = i - 1; j >= 0; j--) {
      const prev = markers[j]!;
      const prevHit = read(prev, answerRegion(text, prev));
      if (prevHit === null || prevHit.end > marker.at) continue;
      const lineStart = Math.max(prevHit.end, text.lastIndexOf('\n', marker.at - 1) + 1);
      const lead = text.slice(lineStart, marker.at);
      const gap = lineStart > prevHit.end && lead.length <= 24 && !/\d/u.test(lead) ? text.slice(prevHit.end, lineStart) : text.slice(prevHit.end, marker.at);
      if (!STACK_GAP_RE.test(gap)) break;
      if (!same(prevHit, hit)) return 'none';
      break;
    }
    return { hit, marker };
  }
  return null;
}
