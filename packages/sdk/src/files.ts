import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { HptError } from './errors.js';

/** U+FEFF, the byte order mark some editors (Notepad, Excel's "CSV UTF-8") put at the start of a UTF-8 file. */
const BOM = '\uFEFF';

/**
 * `text` without a leading UTF-8 byte order mark (U+FEFF), which JSON does not allow (RFC 8259 §8.1: parsers "MAY
 * ignore" it) but editors write. Only the first character is looked at; a U+FEFF elsewhere is data and stays.
 */
export function stripBom(text: string): string {
  return text.startsWith(BOM) ? text.slice(1) : text;
}

/**
 * Read a UTF-8 text file (JSON, JSONL, CSV, plain text) as a string without its leading byte order mark, if any — the
 * one way every JSON input of hpt-bench is read (data files, prompt packs, plugin manifests, ladder, prices and
 * annotation files), so a BOM written by an editor never makes a file "not valid JSON".
 * @param path file path.
 * @returns the file's text, BOM stripped (invalid UTF-8 sequences become U+FFFD, as with `readFileSync(path, 'utf8')`).
 * @throws the `fs` error (ENOENT, EISDIR, EACCES, ...) unchanged; callers wrap it in an `HptError` naming the file.
 */
export function readJsonText(path: string): string {
  return stripBom(readFileSync(path, 'utf8'));
}

/**
 * The reason of a `JSON.parse` error without the excerpt of the input V8 quotes in some messages
 * (`Unexpected token 'r', "root:x:0:0:"... is not valid JSON` -> `Unexpected token (not valid JSON)`); messages that
 * only give a position (`... in JSON at position 12`, `Unexpected end of JSON input`) are kept. Used where the file
 * comes from a plugin or another untrusted place, so an error never echoes the file's contents.
 */
export function jsonErrorReason(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  if (/ is not valid JSON$/.test(message) || /^Unexpected token\b/.test(message)) return 'Unexpected token (not valid JSON)';
  return message.split('\n')[0]!.slice(0, 200);
}

/**
 * A record of a local data file and where it is, for messages: `place` is `line N` for a JSONL file (the physical
 * line, counted from 1, blank lines included) and `item N` for a JSON array or a datasets-server page (counted from 1).
 */
export interface PlacedRecord {
  record: Record<string, unknown>;
  place: string;
}

/**
 * Stream the records of a local data file with their places (`PlacedRecord`), for datasets whose errors name a record
 * (`<file>: line 3: missing field 'passage'`). Positions count from 1 everywhere.
 * - `.jsonl` / `.ndjson`: one JSON object per non-blank line, read line by line (flat memory).
 * - `.json`: a JSON array of objects, or a Hugging Face datasets-server page `{ "rows": [{ "row": {...} }] }`.
 * A leading UTF-8 byte order mark is ignored (`stripBom`).
 *
 * @param path file path.
 * @yields the records in file order, each with its place.
 * @throws HptError `E_DATA` naming the file (and the line or item) when it is missing, unreadable, not JSON, or holds
 *   something other than objects.
 */
export async function* readPlacedRecords(path: string): AsyncGenerator<PlacedRecord> {
  if (!existsSync(path)) throw new HptError('E_DATA', `data file not found: ${path}`);
  if (!statSync(path).isFile()) throw new HptError('E_DATA', `data path is not a file: ${path}`);
  const lower = path.toLowerCase();
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) {
    const rl = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
    let line = 0;
    for await (const raw of rl) {
      line++;
      const text = line === 1 ? stripBom(raw) : raw;
      if (!text.trim()) continue;
      let v: unknown;
      try {
        v = JSON.parse(text);
      } catch (e) {
        rl.close();
        throw new HptError('E_DATA', `${path}:${line} is not valid JSON: ${(e as Error).message}`);
      }
      if (!isObject(v)) {
        rl.close();
        throw new HptError('E_DATA', `${path}:${line} is not a JSON object`);
      }
      yield { record: v, place: `line ${line}` };
    }
    return;
  }
  if (!lower.endsWith('.json')) throw new HptError('E_DATA', `unsupported data file type: ${path} (use .json or .jsonl)`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripBom(await readFile(path, 'utf8')));
  } catch (e) {
    throw new HptError('E_DATA', `${path} is not valid JSON: ${(e as Error).message}`);
  }
  let list: unknown[];
  if (Array.isArray(parsed)) list = parsed;
  else if (isObject(parsed) && Array.isArray(parsed.rows)) list = parsed.rows.map((r) => (isObject(r) && isObject(r.row) ? r.row : r));
  else throw new HptError('E_DATA', `${path} must hold a JSON array of records (or a datasets-server page with "rows")`);
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (!isObject(v)) throw new HptError('E_DATA', `${path}: item ${i + 1} is not a JSON object`);
    yield { record: v, place: `item ${i + 1}` };
  }
}

/**
 * Stream the records of a local data file (`readPlacedRecords` without the places).
 * - `.jsonl` / `.ndjson`: one JSON object per non-blank line, read line by line (flat memory).
 * - `.json`: a JSON array of objects, or a Hugging Face datasets-server page `{ "rows": [{ "row": {...} }] }`.
 * A leading UTF-8 byte order mark is ignored (`stripBom`).
 *
 * @param path file path.
 * @yields plain objects in file order.
 * @throws HptError `E_DATA` naming the file (and line or item, counted from 1) when it is missing, unreadable, not
 *   JSON, or holds something other than objects.
 */
export async function* readRecords(path: string): AsyncGenerator<Record<string, unknown>> {
  for await (const { record } of readPlacedRecords(path)) yield record;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
