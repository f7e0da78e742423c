/**
 * Number answers (GSM8K and any dataset whose target is a number; issue #23, replacing hpt.md §9 #15's "last number").
 */
import { blankParentheticals, findMarkers, type Marker, markerAnswer, type Region, replyEnd, replyStart, sentences } from './scan.js';
import type { ExtractOptions, Extraction } from './types.js';

/**
 * One number as models write it: an optional sign (`-`, `−`, attached to the number; not after a letter, digit or `)`,
 * so neither `16-7` nor `10 - 4` holds a negative number), optional currency (`$`, `€`, `£`, `¥`, `\$`), then a comma-grouped (`1,234,567`) or plain integer, optional
 * decimals, and optionally `%` (read as written: `45%` is 45), a time `:MM` (`2:30 pm` is 2.5 hours, `2:00 pm` is 2) or
 * a fraction `/d` (`3/4` is 0.75).
 */
const NUMBER_RE =
  /(?<![\p{L}\p{N}_./)])([-−])?(?:\\?[$€£¥]\s?)?([-−])?((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(?![\p{N}])(?:\s?\\?(%)|:(\d{2})(?![\d:])|\/(\d+)(?![\d./]))?/gu;

/** A number read from text: its value and its `[start, end)` offsets. */
interface NumberToken {
  value: number;
  start: number;
  end: number;
}

/** The number tokens of `text` (offsets shifted by `offset`), in order. */
function numberTokens(text: string, offset: number): NumberToken[] {
  const out: NumberToken[] = [];
  for (const m of text.matchAll(NUMBER_RE)) {
    let value = Number((m[3] as string).replaceAll(',', ''));
    if (m[5] !== undefined) value += Number(m[5]) / 60;
    else if (m[6] !== undefined) {
      const den = Number(m[6]);
      if (den === 0) continue;
      value /= den;
    }
    if (m[1] !== undefined || m[2] !== undefined) value = -value;
    out.push({ value, start: offset + (m.index as number), end: offset + (m.index as number) + m[0].length });
  }
  return out;
}

/** Number words an answer may be written in ("The answer is twelve."): zero to twenty and the tens to ninety. */
const WORDS: Record<string, number> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
  thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19, twenty: 20, thirty: 30,
  forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90,
};
const WORD_RE = new RegExp(`^(${Object.keys(WORDS).join('|')})(?![\\p{L}\\p{N}])`, 'iu');

/**
 * The number a stretch of text states as its answer, or null: parentheticals are set aside ("4 (3 onions and 1
 * potato)" is 4) unless nothing else holds a number; in an equation chain the result after the last `=`
 * ("80*8 + 90*6 = 640 + 540 = 1180" is 1180); otherwise the first number (a recap or unit after it does not count);
 * a region that starts with a number word ("twelve") is that number.
 */
function statedNumber(text: string, r: Region): NumberToken | null {
  const plain = blankParentheticals(text, r);
  let tokens = numberTokens(plain, r.start);
  if (tokens.length === 0) tokens = numberTokens(text.slice(r.start, r.end), r.start);
  if (tokens.length === 0) {
    const w = WORD_RE.exec(plain.trimStart());
    if (w === null) return null;
    const start = r.start + plain.length - plain.trimStart().length;
    return { value: WORDS[(w[1] as string).toLowerCase()] as number, start, end: start + (w[1] as string).length };
  }
  const eq = Math.max(plain.lastIndexOf('='), plain.lastIndexOf('≈'));
  if (eq >= 0) {
    const after = tokens.find((t) => t.start >= r.start + eq);
    if (after !== undefined) return after;
  }
  return tokens[0] as NumberToken;
}

/** A list enumerator at the start of a line ("1.", "2)", "- 3.") is a step number, never an answer. */
const ENUMERATOR_RE = /^[ \t>*_-]*(?:step\s+)?\d+[.):][ \t*]+(?=\S)/iu;

/**
 * The number a final sentence states: in its last clause that holds a number, the result after the last `=`, else
 * the last number (parentheticals aside).
 */
function sentenceNumber(text: string, s: Region): NumberToken | null {
  let from = s.start;
  // an enumerator counts at the start of its line (indentation aside)
  const lineStart = text.lastIndexOf('\n', s.start - 1) + 1;
  if (text.slice(lineStart, s.start).trim() === '') {
    const m = ENUMERATOR_RE.exec(text.slice(s.start, s.end));
    if (m) from = s.start + m[0].length;
  }
  const r = { start: from, end: s.end };
  const plain = blankParentheticals(text, r);
  const tokens = numberTokens(plain, r.start);
  if (tokens.length === 0) return null;
  // the last clause that holds a number ("..., so she makes $18 every day"): its last number is the sentence's last
  // number, and an equation counts only when its `=` is in that clause
  let clause = 0;
  for (const m of plain.matchAll(CLAUSE_RE)) {
    const at = (m.index as number) + m[0].length;
    if (tokens.some((t) => t.start >= r.start + at)) clause = at;
  }
  const eq = Math.max(plain.lastIndexOf('='), plain.lastIndexOf('≈'));
  if (eq >= clause) {
    const after = tokens.find((t) => t.start >= r.start + eq);
    if (after !== undefined) return after;
  }
  return tokens[tokens.length - 1] as NumberToken;
}

/** A clause boundary inside a sentence: `, ` or `; ` or a conclusion word ("so", "thus", "which means"). */
const CLAUSE_RE = /[,;]\s|\s(?:so|thus|therefore|hence|which means|meaning)\s/giu;

/**
 * A sentence that comments on the answer rather than stating it: a note, a check, an explanation or a recap heading
 * ("Note: the tickets cost $15 each.", "Check: 9 * 2 = 18.", "The key steps are: ..."). The final-sentence rule
 * passes over them.
 */
const AFTERWORD_RE = /^[\s*_#>(-]*(?:notes?|n\.b\.|p\.s\.|check(?:ing)?|verif(?:y|ication)|explanation|recap|summary of (?:the )?steps|the key steps|key steps|steps? used)\b/iu;

/** The first line reads as a bare answer: one number at its start and at most four words after it, nothing else. */
function answerFirst(text: string, start: number): NumberToken | null {
  let end = text.indexOf('\n', start);
  if (end < 0) end = text.length;
  const line = text.slice(start, end);
  const tokens = numberTokens(line, start);
  if (tokens.length !== 1 || (tokens[0] as NumberToken).start !== start) return null;
  const rest = text.slice((tokens[0] as NumberToken).end, end).replace(/[*_`.!]/gu, ' ').trim();
  if (rest !== '' && (!/^[\p{L}\s'’-]+$/u.test(rest) || rest.split(/\s+/u).length > 4)) return null;
  return tokens[0] as NumberToken;
}

/** A later line that continues a numbered list ("2." or "2)" at its start): the reply's first number was item 1. */
const LIST_ITEM_2_RE = /\n[ \t>*_-]*2[.)][ \t]/u;

/**
 * The answer at the start of the reply, as the HPT system prompt asks ("Provide the answer at the start of first
 * sentence"): a first line that is a bare answer (`answerFirst`), or a reply that opens with a number ending its own
 * sentence ("18. Janet's ducks lay ...", "**18**: she sells ...") — unless the reply is a numbered list.
 */
function replyFirst(text: string, start: number): NumberToken | null {
  const bare = answerFirst(text, start);
  if (bare !== null) return bare;
  let end = text.indexOf('\n', start);
  if (end < 0) end = text.length;
  const first = numberTokens(text.slice(start, end), start)[0];
  if (first === undefined || first.start !== start) return null;
  if (!/^[*_`]*[.:][ \t]+\S/u.test(text.slice(first.end, end)) || LIST_ITEM_2_RE.test(text)) return null;
  return first;
}

/**
 * Extracts a number answer from a model's reply, by an ordered cascade (the first rule that reads a number wins):
 * 1. explicit final-answer markers (`hash` `#### 18`, `boxed` `\boxed{70,000}`, `json-answer` `"answer": "18"`,
 *    `final-answer` "Final answer: 18", `answer-is` "the answer is 18", `answer-label` "**Answer:** 18", `bold` a
 *    wholly bold line starting with a number): the marker LAST in the reply whose answer holds a number, so a model
 *    that corrects itself is read at its correction and a recap after the answer does not override it; the number is
 *    read by `statedNumber` (parentheticals aside, the result of an equation chain, else the first number);
 * 2. `answer-first`: a first line that is only a number and a few words ("$18 per day"), or a number that opens the
 *    reply as its own sentence ("18. Janet's ducks lay ...") when the reply is not a numbered list;
 * 3. `final-sentence`: the last sentence holding a number (list enumerators aside, notes and checks after the answer
 *    passed over): in its last clause with a number, the result after `=`, else the last number.
 * Numbers keep their sign, drop thousands separators, currency and units, read `45%` as 45 and `2:00 pm` as 2.
 * A reply is read up to where the model starts a new turn (`replyEnd`). The last `json-answer`, `boxed` or
 * `final-answer` marker is decisive: when it holds no number ("answer": "We cannot determine ..."), the reply has no
 * number answer and later rules are not tried.
 * Returns null when no rule reads a number (the reply states none).
 */
export function extractNumber(completion: string, options: ExtractOptions = {}): Extraction<number> | null {
  const text = completion.slice(0, replyEnd(completion));
  const read = (marker: Marker, region: Region): NumberToken | null => {
    if (marker.rule !== 'bold') return statedNumber(text, region);
    if (/^\d+[.)]\s/u.test(text.slice(region.start, region.end))) return null;
    return answerFirst(text, region.start);
  };
  const stated = markerAnswer(text, findMarkers(text), read, (a, b) => a.value === b.value);
  if (stated === 'none') return null;
  if (stated !== null) return { value: stated.hit.value, rule: stated.marker.rule, span: [stated.hit.start, stated.hit.end] };
  const first = replyFirst(text, replyStart(text, options.cue, true));
  if (first !== null) return { value: first.value, rule: 'answer-first', span: [first.start, first.end] };
  const all = sentences(text);
  for (let i = all.length - 1; i >= 0; i--) {
    if (AFTERWORD_RE.test(text.slice(all[i]!.start, all[i]!.end))) continue;
    const t = sentenceNumber(text, all[i]!);
    if (t !== null) return { value: t.value, rule: 'final-sentence', span: [t.start, t.end] };
  }
  return null;
}
