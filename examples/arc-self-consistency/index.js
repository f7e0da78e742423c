// hpt-bench-plugin-arc: the ARC (AI2 Reasoning Challenge) multiple-choice dataset and a self-consistency level.
// Imports only @hpt-bench/sdk (its own bundled copy).
import { fileURLToPath } from 'node:url';
import { HptError, readPlacedRecords, Tokens } from '@hpt-bench/sdk';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** The sample file shipped with the plugin (used when neither --data nor a hub split is given). */
const SAMPLE_FILE = fileURLToPath(new URL('./data/sample.jsonl', import.meta.url));
/** Splits read from the Hugging Face hub (allenai/ai2_arc, config ARC-Challenge). */
const HUB = { dataset: 'allenai/ai2_arc', config: 'ARC-Challenge' };
const HUB_SPLITS = ['train', 'validation', 'test'];

/**
 * One ARC record as Hugging Face ships it ({ id, question, choices: { text, label }, answerKey }) → a sample, or an
 * error reason. ARC labels options A-E or 1-5; the target is the letter of the answer's position (the `choice`
 * scorer's letters), whatever the record's labels are.
 */
export function arcSample(record, index) {
  const { id, question, choices, answerKey } = record;
  if (typeof id !== 'string' || id === '') return { error: 'missing field "id"' };
  if (typeof question !== 'string' || question.trim() === '') return { error: 'missing field "question"' };
  const texts = choices?.text;
  const labels = choices?.label;
  if (!Array.isArray(texts) || !Array.isArray(labels) || texts.length !== labels.length || texts.length < 2 || texts.length > LETTERS.length) {
    return { error: 'field "choices" must be { text: [...], label: [...] } with 2 or more options of the same length' };
  }
  const position = labels.map((l) => String(l).trim()).indexOf(String(answerKey ?? '').trim());
  if (position < 0) return { error: `answerKey ${JSON.stringify(answerKey)} is not one of the labels ${JSON.stringify(labels)}` };
  const input = { question: question.trim(), options: texts.map((t, i) => `${LETTERS[i]}. ${String(t)}`).join('\n') };
  texts.forEach((t, i) => {
    input[`text${i + 1}`] = String(t); // the choice scorer counts the options (text1..textN) and matches their texts
  });
  return { sample: { id, index, input, target: LETTERS[position], meta: { answerKey: String(answerKey), labels: labels.map(String) } } };
}

/** ARC as a code dataset: --data FILE (JSON/JSONL in the hub's format), the shipped sample, or a hub split. */
export class ArcDataset {
  constructor() {
    this.id = 'arc';
  }

  async *load(options) {
    if (options.data && options.split) throw new HptError('E_CONFIG', `dataset arc: give --data FILE or --split ${options.split}, not both`);
    let rows;
    let where;
    if (options.data || options.split === undefined || options.split === 'sample') {
      where = options.data ?? SAMPLE_FILE;
      rows = readPlacedRecords(where);
    } else if (HUB_SPLITS.includes(options.split)) {
      if (!options.hubRows) throw new HptError('E_CONFIG', 'dataset arc: this hpt-bench cannot read the Hugging Face hub; pass --data FILE');
      where = `hf:${HUB.dataset}`;
      rows = placed(options.hubRows({ ...HUB, split: options.split }));
    } else {
      throw new HptError('E_CONFIG', `dataset arc has no split '${options.split}' (sample, ${HUB_SPLITS.join(', ')}); or pass --data FILE`);
    }
    let index = 0;
    for await (const { record, place } of rows) {
      const r = arcSample(record, index);
      if (r.error) {
        const message = `${where}: ${place}: ${r.error}`;
        if (options.onInvalid === 'skip') {
          options.warn(`${message} (skipped)`);
          continue;
        }
        throw new HptError('E_DATA', message);
      }
      yield r.sample;
      index++;
    }
  }
}

async function* placed(rows) {
  let n = 0;
  for await (const record of rows) yield { record, place: `row ${++n}` };
}

/**
 * Self-consistency (Wang et al., 2023) as a ladder level: sample k chain-of-thought answers to the same prompt (the
 * run's temperature makes them differ; each draw is its own cache entry), read each the way the run's scorer will
 * (`ctx.extract`), and submit a completion that gives the majority answer as the graded output. Ties go to the answer
 * seen first; when no completion gives a readable answer, the last completion is submitted.
 */
export class SelfConsistencyStrategy {
  static inject = [Tokens.Options];
  constructor(options) {
    this.id = 'self-consistency';
    this.k = Number.isInteger(options.k) ? options.k : 5;
  }

  async run(ctx) {
    const template = ctx.entry?.template ?? ctx.entryOf('zero-shot-cot')?.template ?? '{question}\nThink step by step, then give the answer.';
    const text = ctx.fill(template);
    const votes = new Map(); // answer (JSON) → { count, first completion giving it }
    const answers = [];
    let last;
    for (let i = 0; i < this.k; i++) {
      last = await ctx.call('graded', text, ctx.pack.cue);
      const value = ctx.extract(last.text)?.value;
      answers.push(value === undefined ? null : value);
      if (value === undefined) continue;
      const key = JSON.stringify(value);
      const vote = votes.get(key);
      if (vote) vote.count++;
      else votes.set(key, { count: 1, call: last });
    }
    let best;
    for (const vote of votes.values()) if (!best || vote.count > best.count) best = vote;
    const chosen = best?.call ?? last;
    return {
      graded: { promptText: chosen.promptText, completion: chosen.text, cue: ctx.pack.cue },
      notes: { k: this.k, answers, majority: best ? { answer: JSON.parse([...votes].find(([, v]) => v === best)[0]), votes: best.count } : null },
    };
  }
}
