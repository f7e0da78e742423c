/**
 * The Paper scenario's task texts (specs/hibench.md §3.6, the toolkit's stored instructions, verbatim) and the reader
 * of the toolkit's released files (`dataset/Paper/<task>/{dev,test}.json`: arrays of `{id, question, answer: {type,
 * references}}` whose `question` is the instruction followed by "\n\nContext: " and the paper).
 */
import { HptError, type Json } from '@hpt-bench/sdk';
import { outlineTitles, parsePaper, type PaperNode } from './document.js';

/** The three Paper tasks (§1.1) in canonical order. */
export const PAPER_TASKS = ['contextual_qa', 'disordered_section', 'outline_extraction'] as const;

/** A Paper task id. */
export type PaperTask = (typeof PAPER_TASKS)[number];

/** The separator between the instruction and the paper in every stored question. */
export const CONTEXT_SEPARATOR = '\n\nContext: ';

const QA_INSTRUCTION = 'Please extract a concise answer without any additional explanation for the following question based on the given text.\n\nQuestion: ';
const DISORDERED_INSTRUCTION =
  'In the given paper, there are two sections whose positions are swapped, leading to ill-organise paper structure. \n    Please identify the two sections and output the corresponding section names. \n    The output should be in the format "Swapped sections: section 1, section 2". Please do not output additional content.';
const OUTLINE_INSTRUCTION =
  "Please extract the outline of the given paper. \n    You just need to output the section names (without details in sections' content) in the correct order without any additional explanation, \n    like \"Abstract\nIntroduction\nRelated Work\nMethod\n<Subsection1 of Method>\n<Subsection2 of Method>\nExperiments\nConclusion\".";

/**
 * The stored task text (§3.6, verbatim, the "\n    " indentation included): the instruction, "\n\nContext: ", the
 * rendered paper. `question` is the contextual-QA question (ignored by the other tasks).
 */
export function paperTaskText(task: PaperTask, paper: string, question = ''): string {
  switch (task) {
    case 'contextual_qa':
      return `${QA_INSTRUCTION}${question}${CONTEXT_SEPARATOR}${paper}`;
    case 'disordered_section':
      return `${DISORDERED_INSTRUCTION}${CONTEXT_SEPARATOR}${paper}`;
    case 'outline_extraction':
      return `${OUTLINE_INSTRUCTION}${CONTEXT_SEPARATOR}${paper}`;
  }
}

/** The output-format template of every Paper task (§3.6: `{"answer": "XXX"}`). */
export const PAPER_OUTPUT_TEMPLATE = '{"answer": "XXX"}';

/** One record of a toolkit file, read. */
export interface ToolkitPaperRecord {
  /** the arXiv id */
  id: string;
  task: PaperTask;
  /** the stored `answer.type` ("extractive", "outline", "disordered_section", …) */
  type: string;
  /** the stored `question` (instruction + paper), verbatim */
  text: string;
  /** the paper part of `text` (after "\n\nContext: ") */
  context: string;
  /** the parsed paper, null when the context is not a well-formed tree */
  tree: PaperNode | null;
  /** the contextual-QA question ('' for the other tasks) */
  question: string;
  references: string[];
}

/** The task of a toolkit record from its `answer.type`: outline, disordered_section, else contextual QA. */
function taskOfType(type: string): PaperTask {
  if (type === 'outline') return 'outline_extraction';
  if (type === 'disordered_section') return 'disordered_section';
  return 'contextual_qa';
}

/** Is this value a toolkit Paper record (`{id, question, answer: {references}}`)? */
export function isToolkitPaperRecord(v: Json | undefined): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const a = v['answer'];
  return typeof v['question'] === 'string' && typeof a === 'object' && a !== null && !Array.isArray(a) && Array.isArray(a['references']);
}

/**
 * Reads one toolkit record. @throws HptError `E_DATA` (naming `where`) when it is not one, has no "\n\nContext: ", or
 * its references are not strings.
 */
export function readToolkitRecord(raw: Json, where: string): ToolkitPaperRecord {
  if (!isToolkitPaperRecord(raw)) throw new HptError('E_DATA', `${where}: not a HiBench Paper record ({id, question, answer: {type, references}})`);
  const r = raw as Record<string, Json>;
  const answer = r['answer'] as Record<string, Json>;
  const text = r['question'] as string;
  const at = text.indexOf(CONTEXT_SEPARATOR);
  if (at < 0) throw new HptError('E_DATA', `${where}: the question has no "\\n\\nContext: " part`);
  const refs = answer['references'] as Json[];
  if (!refs.every((x) => typeof x === 'string')) throw new HptError('E_DATA', `${where}: answer.references must be strings`);
  const type = typeof answer['type'] === 'string' ? answer['type'] : 'extractive';
  const task = taskOfType(type);
  const head = text.slice(0, at);
  const context = text.slice(at + CONTEXT_SEPARATOR.length);
  const question = task === 'contextual_qa' && head.startsWith(QA_INSTRUCTION) ? head.slice(QA_INSTRUCTION.length) : '';
  return { id: typeof r['id'] === 'string' ? r['id'] : String(r['id'] ?? ''), task, type, text, context, tree: parsePaper(context), question, references: refs as string[] };
}

function norm(t: string): string {
  return t.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
}

/** The two section names of a disordered-section reference ("Introduction, Conclusion"), or null when not two. */
export function swappedPair(reference: string): [string, string] | null {
  const parts = reference.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (parts.length === 2) return [parts[0]!, parts[1]!];
  return null;
}

/**
 * Whether a released disordered-section context shows the swap its reference names (§3.6; the shared records' README:
 * they do not). Anchors: `Abstract` belongs first among the top-level sections, an `Introduction…` section right after
 * it, a `Conclusion…` section last. `unswapped`: every named section that is an anchor sits in its anchor place (the
 * context is the original order); `swapped`: some named anchor is out of place; `unknown`: neither name is an anchor,
 * or a name is not a top-level section of the context.
 */
export function swapEvidence(tree: PaperNode | null, reference: string): 'swapped' | 'unswapped' | 'unknown' {
  const pair = swappedPair(reference);
  if (!tree || !pair) return 'unknown';
  const tops = tree.children.map((c) => norm(c.title));
  const idx = pair.map((p) => tops.indexOf(norm(p)));
  if (idx.some((i) => i < 0)) return 'unknown';
  let anchors = 0;
  for (const i of idx) {
    const t = tops[i]!;
    const abstractAt = tops.indexOf('abstract');
    let expected: number | undefined;
    if (t === 'abstract') expected = 0;
    else if (t.startsWith('introduction')) expected = abstractAt >= 0 ? abstractAt + 1 : 0;
    else if (t.startsWith('conclusion')) expected = tops.length - 1;
    if (expected === undefined) continue;
    anchors++;
    if (i !== expected) return 'swapped';
  }
  return anchors > 0 ? 'unswapped' : 'unknown';
}

/** The indices (in `tree.children`) of the two top-level sections a reference names, or null. */
export function pairIndices(tree: PaperNode, reference: string): [number, number] | null {
  const pair = swappedPair(reference);
  if (!pair) return null;
  const tops = tree.children.map((c) => norm(c.title));
  const a = tops.indexOf(norm(pair[0]));
  const b = tops.indexOf(norm(pair[1]));
  return a >= 0 && b >= 0 && a !== b ? [a, b] : null;
}

/** The outline titles of a parsed context (for checks against an outline reference). */
export function contextOutline(tree: PaperNode): string[] {
  return outlineTitles(tree);
}
