/**
 * The shapes of answer extraction (DESIGN.md round 3 "Answer extraction is an SDK service"; issue #23): what an
 * extractor returns and how an attempt records which rule read its answer.
 */

/**
 * One extracted answer.
 * - `value`: the answer in the answer type's form (a number, an upper-case option letter, a boolean, a string of text
 *   or code);
 * - `rule`: the name of the cascade rule that read it (see `EXTRACTION_RULES`), e.g. `answer-is`, `final-sentence`;
 * - `span`: `[start, end)` offsets, in UTF-16 code units, of the text the value was read from, within the completion
 *   passed to the extractor (for a JSON string with escapes: the whole string literal).
 */
export interface Extraction<T> {
  value: T;
  rule: string;
  span: [number, number];
}

/**
 * How an attempt's answer was read, as stored with the attempt (`AttemptRecord.extraction`), shown in the report's
 * trace and in `score --per-sample --json`: the rule that fired and the span of the completion it read (null when no
 * rule fired: `rule` is then `none`). `by` names the extractor model when `--extractor` read it.
 */
export interface ExtractionTrace {
  rule: string;
  span: [number, number] | null;
  by?: string;
}

/**
 * Options shared by the extractors.
 * - `cue`: the answer cue the prompt ended with (`Answer:`); a reply that starts by repeating it is read after it.
 */
export interface ExtractOptions {
  cue?: string;
}

/**
 * Every rule name an extractor of this module reports, in cascade order (the documentation of each is on the
 * extractor that uses it; README "Scoring real answers"):
 * - `hash` — a `####` marker (GSM8K's answer format), `boxed` — `\boxed{...}`, `json-answer` — a JSON `"answer"` field,
 *   `final-answer` — "Final answer: ...", `answer-is` — "the answer is ...", "the correct option is ...",
 *   `answer-label` — "Answer: ..." (also `**Answer:**`), `bold` — a line that is wholly bold;
 *   among these markers the one LAST in the text that holds a well-formed answer wins (a model that corrects itself);
 * - `answer-first` — the answer at the start of the reply (what the HPT system prompt asks for);
 * - `final-sentence` — the answer stated in the last sentence that states one (numbers: the last sentence with a
 *   number; choices and yes/no: the last sentence only);
 * - `option-text` is appended to a rule's name (`answer-is+option-text`) when an option's text, not its letter, named
 *   the answer;
 * - `first-line` (free text), `code-fence` and `code-body` (code);
 * - `none` — no rule fired (the attempt is not solved).
 */
export const EXTRACTION_RULES = [
  'hash',
  'boxed',
  'json-answer',
  'final-answer',
  'answer-is',
  'answer-label',
  'bold',
  'answer-first',
  'final-sentence',
  'first-line',
  'code-fence',
  'code-body',
  'none',
] as const;
