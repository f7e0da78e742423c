/**
 * Reading the Paper scenario's inputs (specs/hibench.md §3.6): the toolkit's released files, QASPER (the original
 * release's JSON, or the `allenai/qasper` rows as JSONL — the hub loader's cache format), `hpt-bench generate` output,
 * and the embedded demo papers used when no source is given.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { HptError, type Json } from '@hpt-bench/sdk';
import { paperQuestions, qasperTree, readQasperPaper, readQasperPapers, isQasperPaper } from './qasper.js';
import type { PaperSource } from './suite.js';
import { isToolkitPaperRecord, readToolkitRecord, type ToolkitPaperRecord } from './toolkit.js';

/** The embedded demo papers (QASPER-shaped, written for hpt-bench; `generate hibench/paper` without a source). */
export const DEMO_PAPERS_FILE = fileURLToPath(new URL('../../data/paper/demo-qasper.json', import.meta.url));

/** A Paper input, by kind: toolkit records, QASPER papers (converted), or generated HiBench records (raw lines). */
export type PaperInput =
  | { kind: 'toolkit'; records: ToolkitPaperRecord[] }
  | { kind: 'papers'; papers: PaperSource[] }
  | { kind: 'hibench'; lines: Json[] /* not read: empty for .jsonl */ };

function parseJson(text: string, where: string): Json {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, '')) as Json;
  } catch (e) {
    throw new HptError('E_DATA', `${where} is not valid JSON: ${(e as Error).message}`);
  }
}

/** QASPER papers as suite sources: the converted tree and the filtered questions. */
export function paperSources(value: Json, where: string): PaperSource[] {
  return readQasperPapers(value, where).map((p) => ({ id: p.id, tree: qasperTree(p), questions: paperQuestions(p) }));
}

/**
 * Reads a Paper input file (synchronously; the released dev files are ≤ 4 M characters). `.json`: an array of toolkit
 * records, or QASPER (object keyed by paper id, array of papers, one paper). `.jsonl`: `hpt-bench generate` records
 * (objects with `scenario`), QASPER rows (the hub's `allenai/qasper` rows), or toolkit records. Records are named by
 * their place, counted from 1: `line N` of a JSONL file, `item N` of a JSON array.
 * @param skip `--on-invalid skip`: a toolkit record or QASPER paper of an array or JSONL file that cannot be read is left
 *   out and `skip` told (`skipped <file> line 3: ...`); absent: it fails the read. (Generated records are read, and
 *   skipped, by the dataset itself.)
 * @throws HptError `E_DATA` for a missing/unreadable file, invalid JSON or an unknown shape, or an unreadable record
 *   (without `skip`).
 */
export function readPaperInput(path: string, skip?: (message: string) => void): PaperInput {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new HptError('E_DATA', `data file not found or unreadable: ${path}`, { cause: e });
  }
  const lower = path.toLowerCase();
  let values: Json[];
  /** each value's place, for messages (`<file> line 3`, `<file> item 3`) */
  let places: string[];
  /** each value's fallback QASPER id (the paper id of a row without one; kept as it was: `<file>:<n>`) */
  let fallbackIds: string[];
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) {
    const nonEmpty = text.split('\n').map((l, i) => ({ l, i })).filter(({ l }) => l.trim() !== '');
    const head = nonEmpty[0] === undefined ? undefined : parseJson(nonEmpty[0].l, `${path}:${nonEmpty[0].i + 1}`);
    // generate output: the dataset reads and validates it line by line itself
    if (typeof head === 'object' && head !== null && !Array.isArray(head) && 'scenario' in head) return { kind: 'hibench', lines: [] };
    values = nonEmpty.map(({ l, i }) => parseJson(l, `${path}:${i + 1}`));
    places = nonEmpty.map(({ i }) => `${path} line ${i + 1}`);
    fallbackIds = nonEmpty.map(({ i }) => `${path}:${i + 1}`);
  } else if (lower.endsWith('.json')) {
    const v = parseJson(text, path);
    if (!Array.isArray(v)) return { kind: 'papers', papers: paperSources(v, path) };
    values = v;
    places = v.map((_, i) => `${path} item ${i + 1}`);
    fallbackIds = v.map((_, i) => `${path}:${i + 1}`);
  } else throw new HptError('E_DATA', `unsupported data file type: ${path} (use .json or .jsonl)`);
  const first = values[0];
  if (first === undefined) throw new HptError('E_DATA', `${path}: no records`);
  if (typeof first === 'object' && first !== null && !Array.isArray(first) && 'scenario' in first) return { kind: 'hibench', lines: values };
  if (isToolkitPaperRecord(first)) return { kind: 'toolkit', records: readEach(values, (v, i) => readToolkitRecord(v, places[i]!), skip) };
  if (isQasperPaper(first)) {
    return { kind: 'papers', papers: readEach(values, (v, i) => readQasperPaper(v, fallbackIds[i]!), skip).map((p) => ({ id: p.id, tree: qasperTree(p), questions: paperQuestions(p) })) };
  }
  throw new HptError('E_DATA', `${path}: not Paper data (expected toolkit records {id, question, answer}, QASPER papers, or hpt-bench generate records)`);
}

/** `read` of each value; with `skip`, a value whose read fails with `E_DATA` is left out and `skip` told. */
function readEach<T>(values: readonly Json[], read: (v: Json, i: number) => T, skip: ((message: string) => void) | undefined): T[] {
  const out: T[] = [];
  values.forEach((v, i) => {
    try {
      out.push(read(v, i));
    } catch (e) {
      if (!skip || !(e instanceof HptError) || e.code !== 'E_DATA') throw e;
      skip(`skipped ${e.message}`);
    }
  });
  return out;
}
