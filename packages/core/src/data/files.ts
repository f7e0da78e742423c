import { createReadStream, existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { HptError } from '../errors.js';

/**
 * Stream the records of a local data file.
 * - `.jsonl` / `.ndjson`: one JSON object per non-blank line, read line by line (flat memory).
 * - `.json`: a JSON array of objects, or a Hugging Face datasets-server page `{ "rows": [{ "row": {...} }] }`.
 *
 * @param path file path.
 * @yields plain objects in file order.
 * @throws HptError `E_DATA` naming the file (and line, for JSONL) when it is missing, unreadable, not JSON, or holds
 *   something other than objects.
 */
export async function* readRecords(path: string): AsyncGenerator<Record<string, unknown>> {
  if (!existsSync(path)) throw new HptError('E_DATA', `data file not found: ${path}`);
  if (!statSync(path).isFile()) throw new HptError('E_DATA', `data path is not a file: ${path}`);
  const lower = path.toLowerCase();
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) {
    const rl = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
    let line = 0;
    for await (const text of rl) {
      line++;
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
      yield v;
    }
    return;
  }
  if (!lower.endsWith('.json')) throw new HptError('E_DATA', `unsupported data file type: ${path} (use .json or .jsonl)`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (e) {
    throw new HptError('E_DATA', `${path} is not valid JSON: ${(e as Error).message}`);
  }
  let list: unknown[];
  if (Array.isArray(parsed)) list = parsed;
  else if (isObject(parsed) && Array.isArray(parsed.rows)) list = parsed.rows.map((r) => (isObject(r) && isObject(r.row) ? r.row : r));
  else throw new HptError('E_DATA', `${path} must hold a JSON array of records (or a datasets-server page with "rows")`);
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (!isObject(v)) throw new HptError('E_DATA', `${path}: record ${i} is not a JSON object`);
    yield v;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
