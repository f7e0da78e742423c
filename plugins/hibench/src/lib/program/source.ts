/**
 * The Code scenario's source data (specs/hibench.md §3.5): LeetCode solutions with hand-annotated space and time
 * complexity labels, read from either
 * - a JSONL file like the shared `code.jsonl` (`{id, language, question_no, code, space, time, source?, commit?}`;
 *   `time complexity` accepted for `time`), or
 * - the toolkit's folder layout: `<dir>/c++Selected/<k>.cpp` and `<dir>/pythonSelected/<k>.py`, each folder with an
 *   `answer.json` array of `{question_no, space, time | "time complexity"}`.
 * Reading is synchronous (so `generate` stays a plain iterable); problems are HptError `E_DATA` naming the file and line.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { HptError, type Json } from '@hpt-bench/sdk';
import type { CodeLanguage } from './syntax.js';

/** One program with its labels. `id` is `<language>/<question_no>` (as in code.jsonl). */
export interface CodeItem {
  id: string;
  language: CodeLanguage;
  questionNo: number;
  code: string;
  space: string;
  time: string;
  /** where the program came from (the toolkit path, or the file read) */
  source?: string;
  commit?: string;
}

/** The toolkit's folder per language and the file extension of its programs. */
export const FOLDERS: Readonly<Record<CodeLanguage, { dir: string; ext: string }>> = {
  cpp: { dir: 'c++Selected', ext: '.cpp' },
  python: { dir: 'pythonSelected', ext: '.py' },
};

function str(v: Json | undefined): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

function languageOf(v: Json | undefined): CodeLanguage | undefined {
  if (typeof v !== 'string') return undefined;
  const l = v.toLowerCase();
  if (l === 'python' || l === 'py') return 'python';
  if (l === 'cpp' || l === 'c++') return 'cpp';
  return undefined;
}

/** One code.jsonl line → item. @throws HptError E_DATA naming `where` and the missing field. */
export function itemFromRecord(r: Record<string, Json>, where: string): CodeItem {
  const language = languageOf(r['language']);
  if (language === undefined) throw new HptError('E_DATA', `${where}: \`language\` must be "python" or "cpp", got ${JSON.stringify(r['language'])}`);
  const q = r['question_no'];
  if (typeof q !== 'number' || !Number.isInteger(q)) throw new HptError('E_DATA', `${where}: \`question_no\` must be an integer`);
  if (typeof r['code'] !== 'string' || r['code'] === '') throw new HptError('E_DATA', `${where}: \`code\` must be a non-empty string`);
  const space = str(r['space']);
  const time = str(r['time']) ?? str(r['time complexity']);
  if (space === undefined) throw new HptError('E_DATA', `${where}: no \`space\` label`);
  if (time === undefined) throw new HptError('E_DATA', `${where}: no \`time\` (or \`time complexity\`) label`);
  const item: CodeItem = { id: str(r['id']) ?? `${language}/${q}`, language, questionNo: q, code: r['code'], space, time };
  const source = str(r['source']);
  const commit = str(r['commit']);
  if (source !== undefined) item.source = source;
  if (commit !== undefined) item.commit = commit;
  return item;
}

/** Does this JSONL object look like a Code source entry (not a generated record)? */
export function isSourceEntry(r: Record<string, Json>): boolean {
  return typeof r['code'] === 'string' && r['prompt'] === undefined && (r['space'] !== undefined || r['time'] !== undefined || r['time complexity'] !== undefined);
}

/**
 * Reads a code.jsonl-like file; lines are named by number, counted from 1.
 * @param skip `--on-invalid skip`: a line whose entry lacks a field or a label, or repeats an id, is left out and
 *   `skip` told (`skipped <file> line 3: no \`space\` label`); default: it fails the read.
 * @throws HptError E_DATA on a line that is not a JSON object, or on a bad entry or a duplicate id (without `skip`).
 */
export function readCodeJsonl(path: string, skip?: (message: string) => void): CodeItem[] {
  const text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  const items: CodeItem[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `${path} line ${i + 1}`;
    let r: unknown;
    try {
      r = JSON.parse(line);
    } catch (e) {
      throw new HptError('E_DATA', `${where}: not JSON (${(e as Error).message})`);
    }
    if (typeof r !== 'object' || r === null || Array.isArray(r)) throw new HptError('E_DATA', `${where}: not a JSON object`);
    try {
      const item = itemFromRecord(r as Record<string, Json>, where);
      if (seen.has(item.id)) throw new HptError('E_DATA', `${where}: duplicate id ${JSON.stringify(item.id)}`);
      seen.add(item.id);
      items.push(item);
    } catch (e) {
      if (!skip || !(e instanceof HptError)) throw e;
      skip(`skipped ${e.message}`);
    }
  });
  return items;
}

/**
 * Reads the toolkit's folder layout. Programs are ordered by language (Python, then C++, as in code.jsonl) and
 * question number. A program without a label, or a label without a program, is reported through
 * `warn` (unprefixed: the dataset that reads the folder names itself, ./curated.ts) and left out (the toolkit's
 * released folders have both cases).
 * @throws HptError E_DATA when neither folder exists or an answer.json cannot be read.
 */
export function readCodeFolder(dir: string, warn: (message: string) => void = () => {}, skip?: (message: string) => void): CodeItem[] {
  const items: CodeItem[] = [];
  let found = 0;
  for (const language of ['python', 'cpp'] as const) {
    const { dir: sub, ext } = FOLDERS[language];
    const folder = join(dir, sub);
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    found++;
    const answerPath = join(folder, 'answer.json');
    let answers: unknown;
    try {
      answers = JSON.parse(readFileSync(answerPath, 'utf8').replace(/^\uFEFF/, ''));
    } catch (e) {
      throw new HptError('E_DATA', `${answerPath}: cannot read the labels (${(e as Error).message})`);
    }
    if (!Array.isArray(answers)) throw new HptError('E_DATA', `${answerPath}: expected an array of {question_no, space, time}`);
    const labels = new Map<number, Record<string, Json>>();
    answers.forEach((a, i) => {
      const q = (a as Record<string, Json> | null)?.['question_no'];
      if (typeof q !== 'number') throw new HptError('E_DATA', `${answerPath} entry ${i + 1}: no integer question_no`);
      labels.set(q, a as Record<string, Json>);
    });
    const programs = names
      .filter((n) => n.endsWith(ext) && /^\d+$/.test(n.slice(0, -ext.length)))
      .map((n) => Number(n.slice(0, -ext.length)))
      .sort((a, b) => a - b);
    for (const q of programs) {
      const file = join(folder, `${q}${ext}`);
      const label = labels.get(q);
      if (label === undefined) {
        warn(`${file} has no entry in ${answerPath}; left out`);
        continue;
      }
      const code = readFileSync(file, 'utf8');
      labels.delete(q);
      try {
        items.push(itemFromRecord({ ...label, language, question_no: q, code, source: `${sub}/${q}${ext}` }, `${answerPath} question_no ${q}`));
      } catch (e) {
        if (!skip || !(e instanceof HptError)) throw e;
        skip(`skipped ${e.message}`);
      }
    }
    for (const q of labels.keys()) warn(`${answerPath} labels question ${q} but ${sub}/${q}${ext} does not exist; left out`);
  }
  if (found === 0) throw new HptError('E_DATA', `${dir}: neither ${FOLDERS.cpp.dir}/ nor ${FOLDERS.python.dir}/ found (the toolkit's Code layout)`);
  return items;
}

/** Is `path` a directory? */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Reads the Code source at `path`: a folder in the toolkit's layout, or a code.jsonl-like file.
 * @param warn where the folder layout's unmatched programs and labels are reported.
 * @param skip `--on-invalid skip`: an entry without its fields or labels is left out and reported here; absent
 *   (`--on-invalid fail`): it fails the read.
 */
export function readCodeSource(path: string, warn?: (message: string) => void, skip?: (message: string) => void): CodeItem[] {
  return isDirectory(path) ? readCodeFolder(path, warn, skip) : readCodeJsonl(path, skip);
}
