/**
 * The Paper scenario suite (specs/hibench.md §3.6, §5.1; §7 recs 18, 20): records from paper trees (QASPER papers,
 * converted) with the structure tasks generated — outline extraction and a seeded disordered-section swap — and
 * contextual QA from the papers' filtered questions; or records from the toolkit's released files, as released.
 * Lazy, deterministic streams of {@link PaperRecord}s.
 */
import { HptError, type CompatMode, type Json } from '@hpt-bench/sdk';
import { selectValues } from '../filter.js';
import { answerJson, assembleQuery, type PromptStyle } from '../prompt.js';
import { rngFor } from '../rng.js';
import type { Exemplar, IclMode, MatcherSpec, PaperRecord, Selection, SuiteFilter } from '../types.js';
import {
  outlineReference,
  paperToJson,
  PAPER_REPRESENTATIONS,
  renderPaper,
  swappableSections,
  swapSections,
  type PaperNode,
  type PaperRepresentation,
} from './document.js';
import type { PaperQuestion } from './qasper.js';
import { pairIndices, paperTaskText, PAPER_OUTPUT_TEMPLATE, PAPER_TASKS, swapEvidence, type PaperTask, type ToolkitPaperRecord } from './toolkit.js';

export { PAPER_TASKS, type PaperTask } from './toolkit.js';

/** The Paper scenario's prompt (§2, toolkit strings): its system prompt, no separators, two spaces before "and". */
export const PAPER_PROMPT: PromptStyle = {
  system: 'As an AI agent, you are tasked with performing paper reasoning to assist in understanding and analyzing complex academic papers.',
  separator: '',
  formatGap: '  ',
};

/** Where a record comes from: the toolkit's files as released, or generated from a paper tree. */
export const PAPER_PRESETS = ['released', 'generated'] as const;

const ICL_MODES: readonly IclMode[] = ['zero', 'one', 'few'];

/** A paper ready for the suite: id, tree and filtered questions. */
export interface PaperSource {
  id: string;
  tree: PaperNode;
  questions: PaperQuestion[];
}

/** The Paper matcher of a task: hit rate in compat (outline: newlines → commas), the strict metric of §7 rec. 18. */
export function paperMatcher(task: PaperTask): MatcherSpec {
  switch (task) {
    case 'contextual_qa':
      return { type: 'hit-rate', sep: ',', metric: 'answer-f1' };
    case 'disordered_section':
      return { type: 'hit-rate', sep: ',', metric: 'section-set' };
    case 'outline_extraction':
      return { type: 'hit-rate', sep: '\n', metric: 'outline-f1' };
  }
}

/** The toolkit's fixed ICL examples of the Paper tasks (`config/prompt.yaml` 19975a8, verbatim; §5.1 "toy"). */
export const PAPER_COMPAT_EXAMPLES: Readonly<Record<PaperTask, readonly Exemplar[]>> = {
  contextual_qa: [
    { input: 'His name is Peter, what is his name?', answer: 'Peter' },
    { input: 'His age is 15, what is his age?', answer: '15' },
    { input: 'His birthday is 2000-01-01, what is his birthday?', answer: '2000-01-01' },
  ],
  disordered_section: [
    { input: 'Title, Introduction, Conclusion, Abstract, what is the correct order?', answer: 'Title, Abstract, Introduction, Conclusion' },
    { input: 'Introduction, Conclusion, Abstract, Title, what is the correct order?', answer: 'Title, Abstract, Introduction, Conclusion' },
    { input: 'Conclusion, Abstract, Title, Introduction, what is the correct order?', answer: 'Title, Abstract, Introduction, Conclusion' },
  ],
  outline_extraction: [
    { input: 'Given the paper content as follows: Title: A, Abstract: C, Introduction: E, Conclusion: D, what is the outline?', answer: 'A, C, E, D' },
    { input: 'Given the paper content as follows: Title: A, Abstract: B, Introduction: C, Conclusion: D, what is the outline?', answer: 'A, B, C, D' },
    { input: 'Given the paper content as follows: Title: D, Abstract: C, Introduction: B, Conclusion: A, what is the outline?', answer: 'D, C, B, A' },
  ],
};

const sec = (title: string, content: string, children: PaperNode[] = []): PaperNode => ({ title, content, children });

/** Three small papers the strict exemplars are built on (§7 rec. 20: same task, small structures, JSON answers). */
const TOY_PAPERS: readonly PaperNode[] = [
  sec('Title', 'Counting Birds with Sound', [
    sec('Abstract', 'We count birds from field recordings.'),
    sec('Introduction', 'Bird surveys are slow.'),
    sec('Method', 'We train a small classifier.', [sec('Data', 'We recorded 40 hours of audio in 2021.'), sec('Model', 'A two-layer network.')]),
    sec('Results', 'The classifier finds 9 of 10 birds.'),
    sec('Conclusion', 'Sound makes surveys faster.'),
  ]),
  sec('Title', 'Faster Sorting of Short Lists', [
    sec('Abstract', 'We sort short lists quickly.'),
    sec('Introduction', 'Short lists are common.'),
    sec('Related Work', 'Insertion sort is a classic.'),
    sec('Approach', 'We unroll the loops.'),
    sec('Experiments', 'Lists of 8 items sort twice as fast.'),
    sec('Conclusion', 'Unrolling helps.'),
  ]),
  sec('Title', 'Reading Street Signs at Night', [
    sec('Abstract', 'We read signs in the dark.'),
    sec('Introduction', 'Night driving is hard.'),
    sec('Dataset', 'We photographed 500 signs.', [sec('Collection', 'Photos were taken by a car camera.'), sec('Labels', 'Two people labelled each sign.')]),
    sec('Evaluation', 'Accuracy is 91 percent.'),
    sec('Discussion', 'Rain lowers accuracy.'),
  ]),
];

const TOY_QUESTIONS: readonly { q: string; a: string }[] = [
  { q: 'how much audio did they record?', a: '40 hours' },
  { q: 'what model do they use?', a: 'A two-layer network' },
  { q: 'how many birds does the classifier find?', a: '9 of 10 birds' },
];

/** The strict exemplars of a task (§7 rec. 20), fixed: the toy papers in the record's representation, JSON answers. */
export function strictPaperExemplars(task: PaperTask, representation: PaperRepresentation): Exemplar[] {
  switch (task) {
    case 'contextual_qa':
      return TOY_QUESTIONS.map(({ q, a }) => ({ input: paperTaskText(task, renderPaper(TOY_PAPERS[0]!, representation), q), answer: answerJson(a) }));
    case 'outline_extraction':
      return TOY_PAPERS.map((p) => ({ input: paperTaskText(task, renderPaper(p, representation)), answer: answerJson(outlineReference(p)) }));
    case 'disordered_section':
      return TOY_PAPERS.map((p) => {
        const [i, j] = [1, p.children.length - 2];
        return { input: paperTaskText(task, renderPaper(swapSections(p, i, j), representation)), answer: answerJson(`${p.children[i]!.title}, ${p.children[j]!.title}`) };
      });
  }
}

/** A validated Paper filter: tasks, presets (sources), representations (default: structured only) and ICL modes. */
export interface PaperSelection extends Selection {
  tasks: PaperTask[];
  representations: PaperRepresentation[];
  icl: IclMode[];
}

/**
 * Validate a Paper filter. `--representation` defaults to `structured` alone (the released data's form; `plain` is the
 * §5.3 variant, asked for explicitly); `--preset` selects the source (`released`, `generated`).
 * @throws HptError `E_CONFIG` for an unknown task, representation, preset or ICL mode (with a "did you mean" hint).
 */
export function resolvePaperFilter(filter: SuiteFilter): PaperSelection {
  const reps = filter.representations as string[] | undefined;
  return {
    tasks: selectValues('paper', '--task', PAPER_TASKS, filter.tasks),
    presets: selectValues('paper', '--preset', PAPER_PRESETS, filter.presets),
    representations: reps && reps.length ? selectValues('paper', '--representation', PAPER_REPRESENTATIONS, reps) : ['structured'],
    icl: selectValues('paper', '--icl', ICL_MODES, filter.icl),
  };
}

interface RecordParts {
  id: string;
  task: PaperTask;
  preset: (typeof PAPER_PRESETS)[number];
  representation: PaperRepresentation;
  icl: IclMode;
  compat: CompatMode;
  seed: number;
  question: string;
  target: Json;
  params: Record<string, Json>;
  args: Record<string, Json>;
  document: Json | undefined;
}

function record(p: RecordParts): PaperRecord {
  const exemplars = p.compat === 'reference' ? PAPER_COMPAT_EXAMPLES[p.task].map((e) => ({ ...e })) : strictPaperExemplars(p.task, p.representation);
  const { prompt, format, formatCot } = assembleQuery(PAPER_PROMPT, p.question, PAPER_OUTPUT_TEMPLATE, p.icl, exemplars);
  return {
    id: p.id,
    scenario: 'paper',
    task: p.task,
    preset: p.preset,
    representation: p.representation,
    icl: p.icl,
    compat: p.compat,
    system: PAPER_PROMPT.system,
    prompt,
    question: p.question,
    format,
    formatCot,
    exemplars,
    target: p.target,
    matcher: paperMatcher(p.task),
    seed: p.seed,
    params: p.params,
    args: p.args,
    ...(p.document !== undefined ? { document: p.document } : {}),
  };
}

/**
 * The swap of a paper's disordered-section item: two distinct top-level sections other than Abstract (unique,
 * comma-free titles; `swappableSections`) drawn from `rngFor(seed, 'paper', paperId, 'swap')`, in document order;
 * null when the paper has fewer than two.
 */
export function drawSwap(seed: number, paperId: string, tree: PaperNode): [number, number] | null {
  const candidates = swappableSections(tree).filter((i) => !tree.children[i]!.title.includes(','));
  if (candidates.length < 2) return null;
  const [a, b] = rngFor(seed, 'paper', paperId, 'swap').sample(candidates, 2) as [number, number];
  return a < b ? [a, b] : [b, a];
}

/**
 * Records generated from paper trees (`preset: generated`), stream order task → paper → item → representation → ICL:
 * contextual QA = one item per filtered question (target: its references); outline extraction = one item per paper
 * (target: [titles joined by "\n", from "Title"]); disordered section = one item per paper with the swap of `drawSwap`
 * performed on the rendered paper (target: ["A, B"], the two titles in original document order; papers with fewer
 * than two swappable sections are skipped). `document` = the original (unswapped) tree. Id:
 * `paper/<task>/<paper id>[/<question index>]/<representation>/<icl>`.
 */
export function* generatePaperRecords(papers: Iterable<PaperSource>, seed: number, compat: CompatMode, sel: PaperSelection): Generator<PaperRecord> {
  if (!sel.presets.includes('generated')) return;
  const list = [...papers];
  for (const task of sel.tasks) {
    for (const paper of list) {
      const document = paperToJson(paper.tree);
      const items: { key: string; tree: PaperNode; question: string; target: Json; args: Record<string, Json> }[] = [];
      if (task === 'contextual_qa') {
        paper.questions.forEach((q, qi) => items.push({ key: `${paper.id}/${qi}`, tree: paper.tree, question: q.question, target: [...q.references], args: { questionId: q.id, answerType: q.type } }));
      } else if (task === 'outline_extraction') {
        items.push({ key: paper.id, tree: paper.tree, question: '', target: [outlineReference(paper.tree)], args: {} });
      } else {
        const swap = drawSwap(seed, paper.id, paper.tree);
        if (swap === null) continue;
        const names = swap.map((i) => paper.tree.children[i]!.title);
        items.push({ key: paper.id, tree: swapSections(paper.tree, swap[0], swap[1]), question: '', target: [names.join(', ')], args: { swapped: names, positions: swap } });
      }
      for (const it of items) {
        for (const representation of sel.representations) {
          const text = paperTaskText(task, renderPaper(it.tree, representation), it.question);
          for (const icl of sel.icl) {
            yield record({
              id: `paper/${task}/${it.key}/${representation}/${icl}`,
              task,
              preset: 'generated',
              representation,
              icl,
              compat,
              seed,
              question: text,
              target: it.target,
              params: { paperId: paper.id, source: 'tree' },
              args: it.args,
              document,
            });
          }
        }
      }
    }
  }
}

/** What loading the toolkit's files found about the disordered-section contexts (reported in strict mode). */
export interface SwapReport {
  total: number;
  unswapped: number;
  unknown: number;
  /** strict mode: records whose named sections were swapped here (the reference made true) */
  repaired: number;
}

/**
 * Records from the toolkit's released records (`preset: released`), each asked in every selected ICL mode (the
 * toolkit asks each item three times). Compat: the stored question verbatim (structured) or the paper re-rendered
 * plain. Strict: the same texts, except a disordered-section context that does not show its swap (`swapEvidence` not
 * `swapped`) gets the two named top-level sections swapped here so the reference holds; `report` counts them. Records
 * whose context is not a well-formed tree keep their stored text in `structured` and are skipped for `plain`. Id:
 * `paper/<task>/<arXiv id>/<index in the file>/<representation>/<icl>`.
 */
export function* toolkitPaperRecords(records: Iterable<ToolkitPaperRecord>, seed: number, compat: CompatMode, sel: PaperSelection, report?: SwapReport): Generator<PaperRecord> {
  if (!sel.presets.includes('released')) return;
  let index = -1;
  for (const r of records) {
    index++;
    if (!sel.tasks.includes(r.task)) continue;
    let tree = r.tree;
    const args: Record<string, Json> = { type: r.type };
    if (r.task === 'contextual_qa') args.question = r.question;
    if (r.task === 'disordered_section') {
      const evidence = swapEvidence(r.tree, r.references[0] ?? '');
      args.swapEvidence = evidence;
      if (report) {
        report.total++;
        if (evidence === 'unswapped') report.unswapped++;
        if (evidence === 'unknown') report.unknown++;
      }
      if (compat !== 'reference' && evidence !== 'swapped' && r.tree) {
        const pair = pairIndices(r.tree, r.references[0] ?? '');
        if (pair) {
          tree = swapSections(r.tree, pair[0], pair[1]);
          args.repaired = true;
          if (report) report.repaired++;
        }
      }
    }
    for (const representation of sel.representations) {
      let text: string;
      if (representation === 'structured' && tree === r.tree) text = r.text;
      else if (tree) text = paperTaskText(r.task, renderPaper(tree, representation), r.question);
      else continue;
      for (const icl of sel.icl) {
        yield record({
          id: `paper/${r.task}/${r.id}/${index}/${representation}/${icl}`,
          task: r.task,
          preset: 'released',
          representation,
          icl,
          compat,
          seed,
          question: text,
          target: [...r.references],
          params: { paperId: r.id, source: 'toolkit', index },
          args,
          document: r.tree ? paperToJson(r.tree) : undefined,
        });
      }
    }
  }
}

/** The error of an input file that holds no Paper records. */
export function noRecordsError(source: string): HptError {
  return new HptError('E_DATA', `${source}: no Paper records (expected the toolkit's dataset/Paper/<task>/{dev,test}.json, QASPER JSON, or hpt-bench generate output)`);
}
