import { basename } from 'node:path';
import { type Dataset, type DatasetDecl, type DatasetLoadOptions, HptError, type Json, type PlacedRecord, readPlacedRecords, type Sample } from '@hpt-bench/sdk';
import { resolvePluginPath } from '../plugins/manifest.js';
import { loadHubRows } from './hub.js';

/**
 * Read a dot path (`choices.text.0`) from a record.
 * @returns the value, or undefined when any step is missing.
 */
export function getPath(record: unknown, path: string): unknown {
  let cur: unknown = record;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = Array.isArray(cur) ? cur[Number(key)] : (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** Letters used for option indices 0..25. */
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * Convert a raw target to the declared type (manifest `target.type`), or return an error reason.
 * - boolean: true/false, "True"/"False" (any case), 1/0;
 * - letter: "A".."Z" (trimmed, any case) or an integer option index 0..25 (HF MMLU stores 0..3);
 * - number: a number, or a numeric string; with `after`, the text after the last occurrence of the marker first
 *   (GSM8K: `#### 1,234` → 1234); thousands separators are removed (hpt.md §3);
 * - string: a string.
 */
export function convertTarget(raw: unknown, type: NonNullable<DatasetDecl['target']>['type'], after?: string): { value: Json } | { error: string } {
  switch (type) {
    case 'boolean':
      if (typeof raw === 'boolean') return { value: raw };
      if (raw === 1 || raw === 0) return { value: raw === 1 };
      if (typeof raw === 'string' && /^(true|false)$/i.test(raw.trim())) return { value: raw.trim().toLowerCase() === 'true' };
      return { error: `expected a boolean, got ${JSON.stringify(raw)}` };
    case 'letter':
      if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 && raw < 26) return { value: LETTERS[raw]! };
      if (typeof raw === 'string' && /^[a-z]$/i.test(raw.trim())) return { value: raw.trim().toUpperCase() };
      return { error: `expected an option letter or index, got ${JSON.stringify(raw)}` };
    case 'number': {
      if (typeof raw === 'number' && Number.isFinite(raw)) return { value: raw };
      if (typeof raw !== 'string') return { error: `expected a number, got ${JSON.stringify(raw)}` };
      let text = raw;
      if (after) {
        const at = text.lastIndexOf(after);
        if (at < 0) return { error: `no '${after}' marker in ${JSON.stringify(raw.slice(-60))}` };
        text = text.slice(at + after.length);
      }
      text = text.trim().replace(/,/g, '');
      const n = Number(text);
      if (!text || !Number.isFinite(n)) return { error: `not a number: ${JSON.stringify(text.slice(0, 60))}` };
      return { value: n };
    }
    case 'string':
      if (typeof raw === 'string') return { value: raw };
      return { error: `expected a string, got ${JSON.stringify(raw)}` };
  }
}

/**
 * A dataset declared in a manifest without code: a source (file, shipped split or Hugging Face hub), a field mapping
 * from record paths to template placeholders, and a typed target (DESIGN.md "Contributions may be purely declarative").
 */
export class DeclarativeDataset implements Dataset {
  readonly id: string;

  /**
   * @param decl the manifest's dataset declaration (with `fields` and `target`).
   * @param root the plugin root that relative paths in `decl` are resolved against (they must stay inside it).
   * @param pluginName the plugin's package name, for messages (default: the root's directory name).
   */
  constructor(
    private readonly decl: DatasetDecl,
    private readonly root: string,
    private readonly pluginName?: string,
  ) {
    this.id = decl.id;
  }

  /** A shipped file of the plugin, checked to stay inside its root (`resolvePluginPath`; E_MANIFEST otherwise). */
  private pluginPath(rel: string, what: string): string {
    return resolvePluginPath({ name: this.pluginName ?? basename(this.root), root: this.root }, rel, `dataset '${this.id}' ${what}`);
  }

  private source(options: Pick<DatasetLoadOptions, 'data' | 'split'>):
    | { kind: 'file'; path: string }
    | { kind: 'hub'; hub: { dataset: string; config?: string; split: string } } {
    if (options.data) {
      // two sources at once: the split would be silently ignored
      if (options.split) throw new HptError('E_CONFIG', `dataset ${this.id}: give --data FILE or --split ${options.split}, not both (--data replaces the split)`);
      return { kind: 'file', path: options.data };
    }
    const split = options.split ?? this.decl.defaultSplit;
    if (split && this.decl.splits?.[split]) return { kind: 'file', path: this.pluginPath(this.decl.splits[split], `split ${split}`) };
    if (this.decl.hub) {
      const hubSplit = split ?? this.decl.hub.split;
      if (!hubSplit) throw new HptError('E_CONFIG', `dataset ${this.id}: no split given (use --split)`);
      return { kind: 'hub', hub: { dataset: this.decl.hub.dataset, config: this.decl.hub.config, split: hubSplit } };
    }
    if (this.decl.file && !split) return { kind: 'file', path: this.pluginPath(this.decl.file, 'file') };
    const known = Object.keys(this.decl.splits ?? {});
    throw new HptError('E_CONFIG', `dataset ${this.id} has no split '${split}'${known.length ? ` (shipped splits: ${known.join(', ')})` : ''}; pass --data FILE`);
  }

  /**
   * Stream the samples (see `Dataset.load`). A record that cannot be read is named by its place, counted from 1: `line
   * N` of a JSONL file, `item N` of a JSON array, `row N` of a hub split.
   * @throws HptError `E_DATA` naming the file, the record's place and the field (unless `onInvalid` is `skip`: then
   *   `warn` is told and the record left out).
   */
  async *load(options: DatasetLoadOptions): AsyncGenerator<Sample> {
    const src = this.source(options);
    const records = src.kind === 'file' ? readPlacedRecords(src.path) : hubPlaced(loadHubRows(src.hub, { cacheDir: options.cacheDir }));
    const where = src.kind === 'file' ? src.path : `hf:${src.hub.dataset}`;
    let index = 0;
    for await (const { record, place } of records) {
      const result = this.toSample(record, index);
      if ('error' in result) {
        const message = `${where}: ${place}: ${result.error}`;
        if (options.onInvalid === 'skip') options.warn(`skipped ${message}`);
        else throw new HptError('E_DATA', `${message} (use --on-invalid skip to skip such records)`);
      } else {
        yield result.sample;
      }
      index++;
    }
  }

  /** Map one record to a sample, or say which field is wrong. */
  toSample(record: Record<string, unknown>, index: number): { sample: Sample } | { error: string } {
    const input: Record<string, string> = {};
    for (const [name, path] of Object.entries(this.decl.fields ?? {})) {
      const v = getPath(record, path);
      if (typeof v === 'string') input[name] = v;
      else if (typeof v === 'number' || typeof v === 'boolean') input[name] = String(v);
      else return { error: v === undefined || v === null ? `missing field '${path}'` : `field '${path}' is not text` };
    }
    for (const [name, path] of Object.entries(this.decl.optionalFields ?? {})) {
      const v = getPath(record, path);
      input[name] = v === undefined || v === null ? '' : String(v);
    }
    const t = this.decl.target!;
    const raw = getPath(record, t.field);
    if (raw === undefined || raw === null) return { error: `missing field '${t.field}'` };
    const target = convertTarget(raw, t.type, t.after);
    if ('error' in target) return { error: `field '${t.field}': ${target.error}` };
    let id = String(index);
    for (const f of this.decl.idField ?? ['id', 'task_id']) {
      const v = getPath(record, f);
      if (typeof v === 'string' || typeof v === 'number') {
        id = String(v);
        break;
      }
    }
    const meta: Record<string, Json> = {};
    for (const [name, path] of Object.entries(this.decl.meta ?? {})) {
      const v = getPath(record, path);
      if (v !== undefined) meta[name] = v as Json;
    }
    return { sample: { id, index, input, target: target.value, meta } };
  }
}

/** Hub rows with their places (`row N`, counted from 1, in the split's order). */
async function* hubPlaced(rows: AsyncIterable<Record<string, unknown>>): AsyncGenerator<PlacedRecord> {
  let n = 0;
  for await (const record of rows) yield { record, place: `row ${++n}` };
}
