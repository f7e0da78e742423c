/**
 * QASPER (Dasigi et al., 2021) papers as Paper-scenario document trees (specs/hibench.md §3.6): the paper's sections
 * (`section_name` paths "A ::: B" nest B under A) wrapped in `Title` with the abstract first, and its questions with the
 * figure/table-dependent ones filtered out.
 *
 * Two input shapes are read: the original release (`qasper-{train,dev,test}-v0.3.json`: an object keyed by paper id,
 * `full_text` a list of `{section_name, paragraphs}`, `qas[].answers[].answer` objects) and the Hugging Face rows of
 * `allenai/qasper` (one paper per row with `id`, columnar `full_text: {section_name: [], paragraphs: [[]]}` and
 * `qas: {question: [], question_id: [], answers: [{answer: [...]}]}`).
 */
import { HptError, type Json } from '@hpt-bench/sdk';
import type { PaperNode } from './document.js';

/** One annotation of a QASPER answer. */
export interface QasperAnswer {
  unanswerable: boolean;
  extractiveSpans: string[];
  yesNo: boolean | null;
  freeFormAnswer: string;
  evidence: string[];
}

/** One QASPER question with its annotations. */
export interface QasperQuestion {
  id: string;
  question: string;
  answers: QasperAnswer[];
}

/** A QASPER paper in one shape, whatever the input's. */
export interface QasperPaper {
  id: string;
  title: string;
  abstract: string;
  sections: { name: string | null; paragraphs: string[] }[];
  qas: QasperQuestion[];
}

/** A filtered, answerable question with its references (the toolkit's `answer.references` and `answer.type`). */
export interface PaperQuestion {
  id: string;
  question: string;
  type: 'extractive' | 'abstractive' | 'boolean';
  references: string[];
}

type Obj = Record<string, Json>;
const isObj = (v: Json | undefined): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: Json | undefined): string => (typeof v === 'string' ? v : '');
const strs = (v: Json | undefined): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function answerOf(a: Obj): QasperAnswer {
  return {
    unanswerable: a['unanswerable'] === true,
    extractiveSpans: strs(a['extractive_spans']),
    yesNo: typeof a['yes_no'] === 'boolean' ? a['yes_no'] : null,
    freeFormAnswer: str(a['free_form_answer']),
    evidence: [...strs(a['evidence']), ...strs(a['highlighted_evidence'])],
  };
}

/** Is this a QASPER paper object (either shape)? */
export function isQasperPaper(v: Json | undefined): boolean {
  return isObj(v) && 'full_text' in v && 'qas' in v && typeof v['title'] === 'string';
}

/**
 * One QASPER paper (either input shape) in the common shape. `id` is the row's `id`, else `fallbackId` (the key of the
 * original release's object).
 * @throws HptError `E_DATA` when the object is not a QASPER paper.
 */
export function readQasperPaper(raw: Json, fallbackId: string): QasperPaper {
  if (!isObj(raw) || !isQasperPaper(raw)) throw new HptError('E_DATA', `QASPER paper ${fallbackId}: expected an object with title, full_text and qas`);
  const id = typeof raw['id'] === 'string' ? raw['id'] : fallbackId;
  const ft = raw['full_text'];
  const sections: QasperPaper['sections'] = [];
  if (Array.isArray(ft)) {
    for (const s of ft) if (isObj(s)) sections.push({ name: typeof s['section_name'] === 'string' ? s['section_name'] : null, paragraphs: strs(s['paragraphs']) });
  } else if (isObj(ft)) {
    const names = Array.isArray(ft['section_name']) ? ft['section_name'] : [];
    const paras = Array.isArray(ft['paragraphs']) ? ft['paragraphs'] : [];
    names.forEach((n, i) => sections.push({ name: typeof n === 'string' ? n : null, paragraphs: strs(paras[i]) }));
  }
  const qas: QasperQuestion[] = [];
  const q = raw['qas'];
  if (Array.isArray(q)) {
    q.forEach((x, i) => {
      if (!isObj(x)) return;
      const answers = (Array.isArray(x['answers']) ? x['answers'] : []).filter(isObj).map((a) => (isObj(a['answer']) ? answerOf(a['answer']) : answerOf(a)));
      qas.push({ id: str(x['question_id']) || `${id}-q${i}`, question: str(x['question']), answers });
    });
  } else if (isObj(q)) {
    const questions = Array.isArray(q['question']) ? q['question'] : [];
    const ids = Array.isArray(q['question_id']) ? q['question_id'] : [];
    const answers = Array.isArray(q['answers']) ? q['answers'] : [];
    questions.forEach((question, i) => {
      const group = answers[i];
      const list = isObj(group) && Array.isArray(group['answer']) ? group['answer'].filter(isObj).map(answerOf) : [];
      qas.push({ id: str(ids[i]) || `${id}-q${i}`, question: str(question), answers: list });
    });
  }
  return { id, title: str(raw['title']), abstract: str(raw['abstract']), sections, qas };
}

/**
 * The papers of a parsed QASPER JSON value: the original release's object keyed by paper id, an array of papers, or
 * one paper. @throws HptError `E_DATA` when it holds none.
 */
export function readQasperPapers(value: Json, source: string): QasperPaper[] {
  if (Array.isArray(value)) return value.map((p, i) => readQasperPaper(p, `${source}[${i}]`));
  if (isQasperPaper(value)) return [readQasperPaper(value, source)];
  if (isObj(value)) {
    const entries = Object.entries(value).filter(([, p]) => isQasperPaper(p));
    if (entries.length > 0) return entries.map(([id, p]) => readQasperPaper(p, id));
  }
  throw new HptError('E_DATA', `${source}: not QASPER data (expected papers with title, full_text and qas)`);
}

/** QASPER marks evidence that is a figure or table (caption) with this prefix. */
export const FLOAT_EVIDENCE = 'FLOAT SELECTED';

/**
 * The document tree of a QASPER paper (§3.6): root `Title` whose content is the paper title, then `Abstract` (when
 * present), then the sections; a section name "A ::: B ::: C" is the subsection C of B of A (parents created when
 * missing, reused when the same path reappears); paragraphs are trimmed, empty ones dropped, one line each;
 * paragraphs of a section without a name go to the previous section (to the abstract when first).
 */
export function qasperTree(paper: QasperPaper): PaperNode {
  const line = (t: string) => (t.trim() === '' ? '' : `${t.trim()}\n`);
  const root: PaperNode = { title: 'Title', content: line(paper.title), children: [] };
  const abstract: PaperNode = { title: 'Abstract', content: line(paper.abstract), children: [] };
  root.children.push(abstract);
  let last: PaperNode = abstract;
  const add = (node: PaperNode, paragraphs: string[]) => {
    node.content += paragraphs.map(line).join('');
  };
  for (const s of paper.sections) {
    const path = (s.name ?? '').split(':::').map((p) => p.trim()).filter((p) => p !== '');
    if (path.length === 0) {
      add(last, s.paragraphs);
      continue;
    }
    let parent = root;
    for (let i = 0; i < path.length; i++) {
      const siblings = parent.children;
      const prev = siblings[siblings.length - 1];
      let node = prev && prev.title === path[i] && (i < path.length - 1 || prev.children.length === 0) ? prev : undefined;
      if (!node) {
        node = { title: path[i]!, content: '', children: [] };
        siblings.push(node);
      }
      parent = node;
    }
    add(parent, s.paragraphs);
    last = parent;
  }
  return root;
}

/** Does the question depend on a figure or table (some annotation's evidence is a `FLOAT SELECTED` caption)? */
export function dependsOnFloats(q: QasperQuestion): boolean {
  return q.answers.some((a) => a.evidence.some((e) => e.trim().startsWith(FLOAT_EVIDENCE)));
}

/**
 * The answerable, figure/table-independent questions of a paper with their references (§3.6): one reference per
 * answerable annotation — extractive spans joined by "," (the released data's form, e.g. "BIBREF19,BIBREF20"), "Yes"/"No"
 * for yes/no answers, else the free-form answer — duplicates dropped in order; `type` is the first usable annotation's
 * kind. Questions depending on figures/tables (`dependsOnFloats`) or without a usable annotation are dropped.
 */
export function paperQuestions(paper: QasperPaper): PaperQuestion[] {
  const out: PaperQuestion[] = [];
  for (const q of paper.qas) {
    if (q.question.trim() === '' || dependsOnFloats(q)) continue;
    const refs: string[] = [];
    let type: PaperQuestion['type'] | undefined;
    for (const a of q.answers) {
      if (a.unanswerable) continue;
      let ref: string;
      let kind: PaperQuestion['type'];
      if (a.extractiveSpans.some((s) => s.trim() !== '')) {
        ref = a.extractiveSpans.map((s) => s.trim()).filter((s) => s !== '').join(',');
        kind = 'extractive';
      } else if (a.yesNo !== null) {
        ref = a.yesNo ? 'Yes' : 'No';
        kind = 'boolean';
      } else if (a.freeFormAnswer.trim() !== '') {
        ref = a.freeFormAnswer.trim();
        kind = 'abstractive';
      } else continue;
      type ??= kind;
      if (!refs.includes(ref)) refs.push(ref);
    }
    if (type !== undefined) out.push({ id: q.id, question: q.question.trim(), type, references: refs });
  }
  return out;
}
