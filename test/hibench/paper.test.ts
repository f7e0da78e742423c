/**
 * HiBench Paper (specs/hibench.md §3.6, §4.3, §5.1, §7 rec. 18): the toolkit files' reader on the three shared records
 * of each dev file (read from ../shared/data, never copied), the QASPER conversion on our own fixture (both input
 * shapes), the seeded structure-task generator, and every compat and strict metric on hand-computed vectors.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isHptError, type Json } from '@hpt-bench/core';
import { outlineReference, outlineTitles, paperFromJson, paperToJson, parsePaper, renderPlain, renderStructured, swappableSections } from '../../plugins/hibench/src/paper/document.js';
import { answerF1, lcsLength, normalizeAnswer, outlineF1, outlineItems, paperScore, sectionNames, sectionSetMatch, tokenF1 } from '../../plugins/hibench/src/lib/answer-metrics.js';
import { paperQuestions, qasperTree, readQasperPapers } from '../../plugins/hibench/src/paper/qasper.js';
import { readPaperInput } from '../../plugins/hibench/src/paper/sources.js';
import { paperContext, randomPaperAnswer } from '../../plugins/hibench/src/lib/answer-random.js';
import { drawSwap, generatePaperRecords, PAPER_COMPAT_EXAMPLES, paperMatcher, resolvePaperFilter, toolkitPaperRecords, type PaperSource, type SwapReport } from '../../plugins/hibench/src/paper/suite.js';
import { paperTaskText, readToolkitRecord, swapEvidence, PAPER_TASKS } from '../../plugins/hibench/src/paper/toolkit.js';
import { matchAnswer } from '../../plugins/hibench/src/match/matchers.js';
import { HierarchyPaperScorer } from '../../plugins/hibench/src/match/scorer.js';
import { formatSentence } from '../../plugins/hibench/src/prompt.js';
import { SYSTEM_PROMPTS } from '../../plugins/hibench/src/scenarios.js';
import { recordToSample } from '../../plugins/hibench/src/dataset.js';
import { PaperDataset, QASPER_HUB } from '../../plugins/hibench/src/paper/index.js';
import { PAPER_PROMPT } from '../../plugins/hibench/src/paper/suite.js';
import { SHARED, ROOT } from '../helpers/cli.js';
import type { SuiteFilter } from '../../plugins/hibench/src/types.js';

const sharedFile = (task: string) => join(SHARED, 'data/hibench-paper', `paper-${task}-dev-first3.json`);
const shared = (task: string) => (JSON.parse(readFileSync(sharedFile(task), 'utf8')) as Json[]).map((r, i) => readToolkitRecord(r, `${task} ${i}`));
const FIXTURE = join(ROOT, 'test/fixtures/hibench-paper/qasper-mini.json');
const ROWS = join(ROOT, 'test/fixtures/hibench-paper/qasper-rows.jsonl');
const fixtureSources = (): PaperSource[] => {
  const input = readPaperInput(FIXTURE);
  if (input.kind !== 'papers') throw new Error('fixture is not QASPER');
  return input.papers;
};
const sel = (f: SuiteFilter = {}) => resolvePaperFilter(f);

describe('toolkit files (the shared first three records of each dev file)', () => {
  const qa = shared('contextual_qa');
  const dis = shared('disordered_section');
  const out = shared('outline_extraction');

  it('reads each record: task from answer.type, the stored instruction verbatim, the paper tree round-tripping byte-exactly', () => {
    for (const [records, task] of [[qa, 'contextual_qa'], [dis, 'disordered_section'], [out, 'outline_extraction']] as const) {
      expect(records).toHaveLength(3);
      for (const r of records) {
        expect(r.task).toBe(task);
        expect(r.tree).not.toBeNull();
        expect(renderStructured(r.tree!)).toBe(r.context);
        expect(paperTaskText(r.task, r.context, r.question)).toBe(r.text);
        expect(r.tree!.title).toBe('Title');
        expect(r.tree!.children[0]!.title).toBe('Abstract');
      }
    }
    expect(qa.map((r) => r.id)).toEqual(['1912.01214', '1912.01214', '1912.01214']);
    expect(qa.map((r) => r.question)).toEqual(['which multilingual approaches do they compare with?', 'what are the pivot-based baselines?', 'which datasets did they experiment with?']);
    expect(qa[0]!.references).toEqual(['BIBREF19,BIBREF20', 'multilingual NMT (MNMT) BIBREF19']);
    expect(dis.map((r) => r.references[0])).toEqual(['Introduction, Conclusion', 'Introduction, Abstract', 'Materials and Methods, Conclusions and Future Work']);
  });

  it('the outline reference is the pre-order list of titles from "Title"', () => {
    for (const r of out) expect(outlineReference(r.tree!)).toBe(r.references[0]);
    expect(outlineTitles(out[2]!.tree!).slice(0, 6)).toEqual(['Title', 'Abstract', 'Introduction', 'Related Work', 'Materials and Methods', 'Data']);
  });

  it('detects that the released disordered-section contexts are not swapped (identical to the outline contexts)', () => {
    for (let i = 0; i < 3; i++) {
      expect(dis[i]!.id).toBe(out[i]!.id);
      expect(dis[i]!.context).toBe(out[i]!.context);
      expect(swapEvidence(dis[i]!.tree, dis[i]!.references[0]!)).toBe('unswapped');
    }
    // a context that does show the swap
    const t = dis[0]!.tree!;
    const names = t.children.map((c) => c.title);
    const i = names.indexOf('Introduction');
    const j = names.indexOf('Conclusion');
    const swapped = { ...t, children: t.children.map((c, k) => (k === i ? t.children[j]! : k === j ? t.children[i]! : c)) };
    expect(swapEvidence(swapped, 'Introduction, Conclusion')).toBe('swapped');
    expect(swapEvidence(t, 'Approach, Experiments')).toBe('unknown');
  });

  it('compat: the stored texts verbatim, zero-shot prompt = text + format sentence without separator, toolkit ICL toys', () => {
    const records = [...toolkitPaperRecords(qa, 0, 'reference', sel())];
    expect(records).toHaveLength(9);
    const zero = records.find((r) => r.icl === 'zero')!;
    expect(zero.question).toBe(qa[0]!.text);
    expect(zero.format).toBe('Please return the answer in JSON format directly like {"answer": "XXX"}  and do not feedback the detailed process.');
    expect(zero.prompt).toBe(qa[0]!.text + zero.format);
    expect(zero.system).toBe(SYSTEM_PROMPTS.paper);
    expect(zero.target).toEqual(qa[0]!.references);
    expect(zero.matcher).toEqual({ type: 'hit-rate', sep: ',', metric: 'answer-f1' });
    const one = records.find((r) => r.icl === 'one')!;
    expect(one.prompt).toBe(`Here is one example.The input is His name is Peter, what is his name?, the answer is Peter.${qa[0]!.text}${one.format}`);
    const few = records.find((r) => r.icl === 'few')!;
    expect(few.prompt.startsWith('Here are a few examples. The input is His name is Peter, what is his name?, the answer is Peter. The input is His age is 15')).toBe(true);
    expect(records.map((r) => r.id).slice(0, 3)).toEqual(['paper/contextual_qa/1912.01214/0/structured/zero', 'paper/contextual_qa/1912.01214/0/structured/one', 'paper/contextual_qa/1912.01214/0/structured/few']);
    const compatDis = [...toolkitPaperRecords(dis, 0, 'reference', sel({ icl: ['zero'] }))];
    expect(compatDis.map((r) => r.question)).toEqual(dis.map((r) => r.text));
  });

  it('strict: the named sections of an unswapped context are swapped here, and counted', () => {
    const report: SwapReport = { total: 0, unswapped: 0, unknown: 0, repaired: 0 };
    const records = [...toolkitPaperRecords(dis, 0, 'strict', sel({ icl: ['zero'] }), report)];
    expect(report).toEqual({ total: 3, unswapped: 3, unknown: 0, repaired: 3 });
    for (const [k, r] of records.entries()) {
      expect(r.question).not.toBe(dis[k]!.text);
      expect(r.args['repaired']).toBe(true);
      const tree = parsePaper(r.question.slice(r.question.indexOf('\n\nContext: ') + 11))!;
      expect(swapEvidence(tree, dis[k]!.references[0]!)).toBe('swapped');
      expect(r.document).toEqual(paperToJson(dis[k]!.tree!));
    }
    const titles = parsePaper(records[0]!.question.slice(records[0]!.question.indexOf('\n\nContext: ') + 11))!.children.map((c) => c.title);
    expect(titles[1]).toBe('Conclusion');
    expect(titles[titles.length - 1]).toBe('Introduction');
  });

  it('plain representation: markers become title lines, closing markers go', () => {
    const records = [...toolkitPaperRecords(out, 0, 'reference', sel({ representations: ['plain'] as never, icl: ['zero'] }))];
    expect(records).toHaveLength(3);
    for (const r of records) {
      expect(r.representation).toBe('plain');
      expect(r.question).not.toMatch(/<<</);
      expect(r.question).toContain('\n\nContext: Title\n');
    }
    expect(records[0]!.question).toContain('\nAbstract\nTransfer learning between different language pairs');
  });
});

describe('QASPER conversion (our fixture, original and hub-row shapes)', () => {
  const papers = readQasperPapers(JSON.parse(readFileSync(FIXTURE, 'utf8')) as Json, 'fixture');

  it('builds the section tree: Title, Abstract, ":::" nesting, empty paragraphs dropped, unnamed sections to the previous one', () => {
    const tree = qasperTree(papers[0]!);
    expect(renderStructured(tree)).toBe(
      '<<<Title>>>\nA Fixture Paper on Parsing\n<<<Abstract>>>\nWe parse things.\n<<</Abstract>>>\n<<<Introduction>>>\nParsing matters.\nIt is hard.\n<<</Introduction>>>\n' +
        '<<<Related Work>>>\nOthers parsed before.\n<<</Related Work>>>\n<<<Method>>>\n<<<Grammar>>>\nWe write a grammar.\n<<<Rules>>>\nRules have heads.\n<<</Rules>>>\n<<</Grammar>>>\n' +
        '<<<Parser>>>\nA chart parser.\nAn orphan paragraph.\n<<</Parser>>>\n<<</Method>>>\n<<<Experiments>>>\nWe parse 100 sentences.\n<<</Experiments>>>\n' +
        '<<<Results, Briefly>>>\nMost parse.\n<<</Results, Briefly>>>\n<<<Conclusion>>>\nParsing works.\n<<</Conclusion>>>\n<<</Title>>>\n',
    );
    expect(parsePaper(renderStructured(tree))).toEqual(tree);
    expect(renderPlain(tree).split('\n').slice(0, 6)).toEqual(['Title', 'A Fixture Paper on Parsing', 'Abstract', 'We parse things.', 'Introduction', 'Parsing matters.']);
    expect(outlineReference(tree)).toBe('Title\nAbstract\nIntroduction\nRelated Work\nMethod\nGrammar\nRules\nParser\nExperiments\nResults, Briefly\nConclusion');
    expect(paperFromJson(paperToJson(tree))).toEqual(tree);
  });

  it('filters figure/table-dependent and unanswerable questions; references per annotation, deduplicated', () => {
    expect(paperQuestions(papers[0]!)).toEqual([
      { id: 'q1', question: 'how many sentences do they parse?', type: 'extractive', references: ['100 sentences', '100'] },
      { id: 'q2', question: 'what parser do they use?', type: 'extractive', references: ['A chart parser,grammar', 'a chart parser with a grammar'] },
      { id: 'q3', question: 'is parsing hard?', type: 'boolean', references: ['Yes'] },
    ]);
  });

  it('reads the hub rows (allenai/qasper, columnar) to the same papers', () => {
    const rows = readPaperInput(ROWS);
    const orig = readPaperInput(FIXTURE);
    expect(rows.kind).toBe('papers');
    expect(rows).toEqual(orig);
  });

  it('rejects what is not QASPER', () => {
    try {
      readQasperPapers({ a: 1 }, 'x.json');
      throw new Error('expected E_DATA');
    } catch (e) {
      expect(isHptError(e) && e.code).toBe('E_DATA');
    }
  });
});

describe('generator (structure tasks from paper trees)', () => {
  const sources = fixtureSources();
  const gen = (seed: number, f: SuiteFilter = {}, compat: 'strict' | 'reference' = 'strict') => [...generatePaperRecords(sources, seed, compat, sel(f))];

  it('is deterministic for a seed: same records byte for byte; the swap is drawn from the seed', () => {
    expect(JSON.stringify(gen(3))).toBe(JSON.stringify(gen(3)));
    const swaps = new Set(Array.from({ length: 12 }, (_, s) => JSON.stringify(drawSwap(s, 'fx.0001', sources[0]!.tree))));
    expect(swaps.size).toBeGreaterThan(1);
  });

  it('counts: QA per filtered question, one outline and one disordered item per paper (x ICL modes), structured by default', () => {
    const all = gen(1);
    const count = (t: string) => all.filter((r) => r.task === t).length;
    expect(count('contextual_qa')).toBe((3 + 1) * 3);
    expect(count('outline_extraction')).toBe(2 * 3);
    expect(count('disordered_section')).toBe(2 * 3);
    expect(new Set(all.map((r) => r.representation))).toEqual(new Set(['structured']));
    expect(gen(1, { representations: ['structured', 'plain'] as never })).toHaveLength(all.length * 2);
    expect(all.every((r) => r.preset === 'generated' && r.document !== undefined)).toBe(true);
    expect(gen(1, { presets: ['released'] })).toHaveLength(0);
  });

  it('disordered section: two top-level sections other than Abstract (comma-free, unique) swapped with their content; target in original order', () => {
    expect(swappableSections(sources[0]!.tree).map((i) => sources[0]!.tree.children[i]!.title)).toEqual(['Introduction', 'Related Work', 'Method', 'Experiments', 'Results, Briefly', 'Conclusion']);
    for (let seed = 0; seed < 20; seed++) {
      const [r] = gen(seed, { tasks: ['disordered_section'], icl: ['zero'] });
      const names = r!.args['swapped'] as string[];
      expect(names).not.toContain('Abstract');
      expect(names).not.toContain('Results, Briefly');
      expect(r!.target).toEqual([names.join(', ')]);
      const shown = parsePaper(r!.question.slice(r!.question.indexOf('\n\nContext: ') + 11))!;
      const orig = paperFromJson(r!.document)!;
      const [i, j] = r!.args['positions'] as [number, number];
      expect(i).toBeLessThan(j);
      expect(shown.children[i]).toEqual(orig.children[j]);
      expect(shown.children[j]).toEqual(orig.children[i]);
      expect(orig.children.map((c) => c.title).slice(i, i + 1)).toEqual([names[0]]);
    }
    const second = gen(0, { tasks: ['disordered_section'], icl: ['zero'] })[1]!;
    expect(second.target).toEqual(['Introduction, Conclusion']);
  });

  it('outline extraction: target = titles from "Title"; contextual QA: target = the references; matchers per task', () => {
    const [o] = gen(0, { tasks: ['outline_extraction'], icl: ['zero'] });
    expect(o!.target).toEqual([outlineReference(sources[0]!.tree)]);
    expect(o!.matcher).toEqual({ type: 'hit-rate', sep: '\n', metric: 'outline-f1' });
    expect(o!.question).toBe(paperTaskText('outline_extraction', renderStructured(sources[0]!.tree)));
    const qa = gen(0, { tasks: ['contextual_qa'], icl: ['zero'] });
    expect(qa.map((r) => r.target)).toEqual([['100 sentences', '100'], ['A chart parser,grammar', 'a chart parser with a grammar'], ['Yes'], ['Two']]);
    expect(qa[0]!.id).toBe('paper/contextual_qa/fx.0001/0/structured/zero');
    for (const t of PAPER_TASKS) expect(PAPER_COMPAT_EXAMPLES[t]).toHaveLength(3);
    expect(paperMatcher('disordered_section')).toEqual({ type: 'hit-rate', sep: ',', metric: 'section-set' });
  });

  it('strict exemplars are small papers in the record representation with JSON answers; compat uses the toolkit toys', () => {
    const [s] = gen(0, { tasks: ['outline_extraction'], icl: ['one'] });
    expect(s!.exemplars[0]!.answer).toMatch(/^\{"answer": "Title\\nAbstract\\nIntroduction\\nMethod\\nData\\nModel\\nResults\\nConclusion"\}$/);
    expect(s!.prompt.startsWith('Here is one example.The input is Please extract the outline')).toBe(true);
    const [c] = gen(0, { tasks: ['outline_extraction'], icl: ['one'] }, 'reference');
    expect(c!.exemplars[0]).toEqual({ input: 'Given the paper content as follows: Title: A, Abstract: C, Introduction: E, Conclusion: D, what is the outline?', answer: 'A, C, E, D' });
  });

  it('rejects unknown filter values with a hint', () => {
    try {
      sel({ representations: ['structure'] as never });
      throw new Error('expected E_CONFIG');
    } catch (e) {
      expect(isHptError(e) && e.code).toBe('E_CONFIG');
      expect((e as Error).message).toContain("did you mean 'structured'");
    }
  });
});

describe('metrics (hand-computed vectors)', () => {
  it('QASPER answer normalisation and token F1', () => {
    expect(normalizeAnswer('The BIBREF19,BIBREF20.')).toBe('bibref19 bibref20');
    expect(normalizeAnswer('An (MNMT) approach')).toBe('mnmt approach');
    // [cat, sat] vs [cat, sat, down]: P = 1, R = 2/3, F1 = 0.8
    expect(tokenF1('the cat sat', 'cat sat down')).toBeCloseTo(0.8, 12);
    expect(tokenF1('dog', 'cat')).toBe(0);
    // vs "BIBREF19,BIBREF20": P = R = 1; vs "multilingual NMT (MNMT) BIBREF19": P = 1/2, R = 1/4 -> 1/3
    expect(answerF1('BIBREF19, BIBREF20', ['BIBREF19,BIBREF20', 'multilingual NMT (MNMT) BIBREF19'])).toBe(1);
    expect(answerF1('BIBREF19 only', ['multilingual NMT (MNMT) BIBREF19'])).toBeCloseTo(1 / 3, 12);
    // duplicates count once per reference occurrence: [a, a] vs [a]: P = 1/2, R = 1 -> 2/3
    expect(tokenF1('x x', 'x')).toBeCloseTo(2 / 3, 12);
  });

  it('outline F1: order-aware (LCS) on normalised titles, "Title" and list markers ignored', () => {
    expect(outlineItems('Title\n1. Abstract\n2 Related Work\n- Method')).toEqual(['abstract', 'related work', 'method']);
    expect(outlineItems('Abstract, Introduction')).toEqual(['abstract', 'introduction']);
    expect(lcsLength(['a', 'b', 'c', 'd'], ['a', 'c', 'b', 'd'])).toBe(3);
    // reference [abstract, intro, method, conclusion]; prediction [abstract, method, intro, conclusion]: L = 3, P = R = 3/4
    expect(outlineF1('Abstract\nMethod\nIntro\nConclusion', 'Title\nAbstract\nIntro\nMethod\nConclusion')).toBeCloseTo(0.75, 12);
    // prediction [abstract, intro]: L = 2, P = 1, R = 1/2 -> 2/3
    expect(outlineF1('Abstract\\nIntro', 'Title\nAbstract\nIntro\nMethod\nConclusion')).toBeCloseTo(2 / 3, 12);
    expect(outlineF1('Title\nAbstract\nIntro', 'Title\nAbstract\nIntro')).toBe(1);
    expect(outlineF1('Nothing', 'Title\nAbstract')).toBe(0);
  });

  it('disordered section: exact set match of the two names, "Swapped sections:" prefix allowed', () => {
    expect(sectionNames('Swapped sections: Conclusion, Introduction')).toEqual(['conclusion', 'introduction']);
    expect(sectionNames('Introduction and Related Work')).toEqual(['introduction', 'related work']);
    expect(sectionSetMatch('Swapped sections: Conclusion, Introduction', 'Introduction, Conclusion')).toBe(1);
    expect(sectionSetMatch('Introduction, Related Work', 'Introduction, Conclusion')).toBe(0);
    expect(sectionSetMatch('Introduction', 'Introduction, Conclusion')).toBe(0);
    expect(sectionSetMatch('Introduction, Conclusion, Abstract', 'Introduction, Conclusion')).toBe(0);
    expect(paperScore('Conclusion, Introduction', ['Introduction, Conclusion'], 'section-set')).toBe(1);
  });

  it('compat hit rate (toolkit): recall of pooled, comma-split, normalised reference items; outline turns newlines into commas', () => {
    const refs = ['BIBREF19,BIBREF20', 'multilingual NMT (MNMT) BIBREF19'];
    const qa = matchAnswer('{"answer": "BIBREF19, BIBREF20"}', refs, paperMatcher('contextual_qa'), 'reference');
    expect(qa.score).toBeCloseTo(2 / 3, 12);
    expect(qa.correct).toBe(false);
    const outline = matchAnswer('{"answer": "Title\\nAbstract\\nIntroduction"}', ['Title\nAbstract\nIntroduction\nConclusion'], paperMatcher('outline_extraction'), 'reference');
    expect(outline.score).toBe(3 / 4);
    const dis = matchAnswer('{"answer": "Swapped sections: Introduction, Conclusion"}', ['Introduction, Conclusion'], paperMatcher('disordered_section'), 'reference');
    expect(dis.score).toBe(1 / 2); // "swappedsectionsintroduction" is not "introduction"
    expect(matchAnswer('{"answer": "Swapped sections: Introduction, Conclusion"}', ['Introduction, Conclusion'], paperMatcher('disordered_section'), 'strict').score).toBe(1);
  });

  it('strict through matchAnswer: the last answer, scored by the metric', () => {
    const r = matchAnswer('{"answer": "x"} then {"answer": "the cat sat"}', ['cat sat down'], paperMatcher('contextual_qa'), 'strict');
    expect(r.extracted).toBe('the cat sat');
    expect(r.score).toBeCloseTo(0.8, 12);
    expect(matchAnswer('no json', ['a'], paperMatcher('contextual_qa'), 'strict')).toEqual({ correct: false, score: 0, extracted: null });
  });
});

describe('hierarchy-paper scorer: threshold, oracle answers, aggregation', () => {
  const scorer = new HierarchyPaperScorer();
  const [rec] = generatePaperRecords(fixtureSources(), 0, 'strict', sel({ tasks: ['contextual_qa'], icl: ['zero'] }));
  const sample = recordToSample(rec!, 0);

  it('strict mode requires --threshold (before any call); compat does not; out-of-range values are refused', () => {
    expect(() => scorer.prepare({ compat: 'strict', options: {} })).toThrow(/--threshold is required for hibench\/paper/);
    expect(() => scorer.prepare({ compat: 'reference', options: {} })).not.toThrow();
    expect(() => scorer.prepare({ compat: 'strict', options: { threshold: 0.5 } })).not.toThrow();
    expect(() => scorer.prepare({ compat: 'strict', options: { threshold: 2 } })).toThrow(/from 0 to 1/);
  });

  it('a sample is solved when its score reaches the threshold', () => {
    // references ["100 sentences", "100"]; "100 sentences parsed": vs ref 1 P = 2/3, R = 1 -> 0.8
    const out = { completion: '{"answer": "100 sentences parsed"}' } as never;
    const v = scorer.score(sample, out, { compat: 'strict', options: { threshold: 0.8 } }) as { solved: boolean; score: number };
    expect(v.score).toBeCloseTo(0.8, 12);
    expect(v.solved).toBe(true);
    expect((scorer.score(sample, out, { compat: 'strict', options: { threshold: 0.81 } }) as { solved: boolean }).solved).toBe(false);
    // compat without threshold: solved iff hit rate 1 ("100sentences" ∉ pieces of "100sentencesparsed")
    expect((scorer.score(sample, out, { compat: 'reference', options: {} }) as { solved: boolean }).solved).toBe(false);
  });

  it('the oracle answer scores 1 in both modes', () => {
    for (const compat of ['strict', 'reference'] as const) {
      const text = scorer.renderTarget(sample, { compat, options: { threshold: 0.5 } });
      const v = scorer.score(sample, { completion: text } as never, { compat, options: { threshold: 0.5 } }) as { solved: boolean; score: number };
      expect(v.score).toBe(1);
      expect(v.solved).toBe(true);
    }
  });

  it('aggregates fractional scores as means (from the recorded predictions)', () => {
    const agg = scorer.createAggregator({ compat: 'strict', options: { threshold: 0.5 } });
    agg.add(sample, 'the 100 sentences', true); // vs "100 sentences": P = R = 1 after articles go -> 1
    agg.add({ ...sample, id: 'b' }, '100 sentences parsed', true); // 0.8
    agg.add({ ...sample, id: 'c' }, null, false); // 0
    const res = agg.result() as { meanScore: number; hibench: { tasks: Record<string, number>; dimensions: Record<string, number> } };
    expect(res.meanScore).toBeCloseTo(1.8 / 3, 12);
    expect(res.hibench.tasks['paper/contextual_qa']).toBeCloseTo(1.8 / 3, 12);
    expect(res.hibench.dimensions['Textual Reasoning']).toBeCloseTo(1.8 / 3, 12);
    expect(formatSentence(PAPER_PROMPT, '{"answer": "XXX"}')).toContain('}  and');
  });
});

describe('PaperDataset.load --split: QASPER through the host hub loader', () => {
  const rows = readFileSync(ROWS, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const base = { onInvalid: 'fail' as const, cacheDir: '/nonexistent', warn: () => {}, seed: 0, compat: 'strict' as const, filters: { icl: ['zero'] } };
  const collect = async (it: AsyncIterable<unknown>) => {
    const out: unknown[] = [];
    for await (const x of it) out.push(x);
    return out;
  };

  it('asks the host for allenai/qasper (config qasper; dev = validation) and converts the rows', async () => {
    const asked: unknown[] = [];
    const hubRows = async function* (source: { dataset: string; config?: string; split: string }) {
      asked.push(source);
      yield* rows;
    };
    const samples = (await collect(new PaperDataset().load({ ...base, split: 'dev', hubRows }))) as { id: string; meta: Record<string, Json> }[];
    expect(asked).toEqual([{ ...QASPER_HUB, split: 'validation' }]);
    expect(samples).toHaveLength(8);
    expect(samples[0]!.id).toBe('paper/contextual_qa/fx.0001/0/structured/zero');
    expect(samples.every((x) => x.meta['scenario'] === 'paper' && x.meta['preset'] === 'generated')).toBe(true);
  });

  it('refuses an unknown split, and a host without a hub loader', async () => {
    await expect(collect(new PaperDataset().load({ ...base, split: 'mini', hubRows: async function* () {} }))).rejects.toThrow(/unknown --split 'mini'/);
    await expect(collect(new PaperDataset().load({ ...base, split: 'test' }))).rejects.toThrow(/cannot load Hugging Face datasets/);
  });
});

describe('random answers of the Paper tasks (random baseline)', () => {
  const paper = '<<<Title>>>\nA Paper\n<<<Abstract>>>\nWe study things.\n<<</Abstract>>>\n<<<Introduction>>>\nIntro text here.\n<<</Introduction>>>\n<<<Method>>>\n<<<Model>>>\nA small network.\n<<</Model>>>\n<<</Method>>>\n<<<Results>>>\nIt works well.\n<<</Results>>>\n<<</Title>>>\n';
  const example = 'Here is one example. The input is ... Context: <<<Title>>>\nOther\n<<<Elsewhere>>>\nnever drawn\n<<</Elsewhere>>>\n<<</Title>>>\nAnswer: x\n';
  const prompt = `${example}Please answer.\n\nContext: ${paper}`;
  const draws = (metric: 'outline-f1' | 'section-set' | 'answer-f1') => Array.from({ length: 300 }, (_, i) => randomPaperAnswer(prompt, metric, lcgRandom(i + 1)));

  it('come from the paper after the last Context: (not the examples, not the reference), and are seeded', () => {
    expect(paperContext(prompt)).toBe(` ${paper}`);
    const titles = ['Title', 'Abstract', 'Introduction', 'Method', 'Model', 'Results'];
    const outlines = draws('outline-f1').map((a) => a.split('\n'));
    for (const o of outlines) {
      expect(o.every((t) => titles.includes(t))).toBe(true);
      expect(new Set(o).size).toBe(o.length);
    }
    // whole outlines about two times in three, the exact order among them rarely
    const whole = outlines.filter((o) => o.length === titles.length).length;
    expect(whole).toBeGreaterThan(150);
    expect(whole).toBeLessThan(260);
    for (const pair of draws('section-set')) {
      const names = pair.split(', ');
      expect(names).toHaveLength(2);
      expect(names[0]).not.toBe(names[1]);
      for (const n of names) expect(['Introduction', 'Method', 'Model', 'Results']).toContain(n);
    }
    const words = 'A Paper We study things. Intro text here. A small network. It works well.';
    for (const span of draws('answer-f1')) {
      expect(words).toContain(span);
      expect(span.split(' ').length).toBeLessThanOrEqual(8);
      expect(span).not.toMatch(/never|Other|Elsewhere/);
    }
    expect(randomPaperAnswer(prompt, 'answer-f1', lcgRandom(9))).toBe(randomPaperAnswer(prompt, 'answer-f1', lcgRandom(9)));
  });

  it('the scorer draws them for Paper samples, and a plain paper uses its short lines as titles', () => {
    const plain = 'Title\nA Paper\nAbstract\nWe study things in depth.\nResults\nIt works well.\n';
    const outlines = Array.from({ length: 50 }, (_, i) => randomPaperAnswer(`Context: ${plain}`, 'outline-f1', lcgRandom(i + 1)).split('\n'));
    for (const o of outlines) for (const t of o) expect(['Title', 'A Paper', 'Abstract', 'Results']).toContain(t);
    const sample = { id: 'p', index: 0, input: { question: prompt }, target: ['Method, Results'], meta: { matcher: paperMatcher('disordered_section') as unknown as Json } };
    const answer = JSON.parse(new HierarchyPaperScorer().randomAnswer(sample, lcgRandom(3), { compat: 'strict', options: {} })) as { answer: string };
    expect(answer.answer.split(', ')).toHaveLength(2);
  });
});

/** Deterministic LCG in [0, 1) (tests only). */
function lcgRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
