/**
 * The input of the scenarios built from curated programs (specs/hibench.md §3.5 data: the LeetCode solutions of
 * code.jsonl or the toolkit's folder layout): what `--data` holds and how it is read. Shared machinery: the callers
 * give their scenario name (for messages); nothing here names a scenario.
 */
import { HptError, type DatasetLoadOptions, type Logger } from '@hpt-bench/sdk';
import { firstObject } from '../../dataset.js';
import { isDirectory, isSourceEntry, readCodeSource, type CodeItem } from './source.js';

/**
 * The programs of a curated-code dataset at `data`: a code.jsonl-like file or the toolkit's folder layout
 * (`readCodeSource`; `warn` gets its notes prefixed with `hibench/<scenario>: `, `skip` — given under `--on-invalid
 * skip` — the entries left out for missing fields or labels).
 * @param scenario the scenario's name, for the messages.
 * @throws HptError `E_CONFIG` without `--data`; `E_DATA` for unreadable data, or an invalid entry without `skip`.
 */
export function curatedPrograms(scenario: string, data: string | undefined, warn: (m: string) => void, skip?: (m: string) => void): CodeItem[] {
  if (!data) throw new HptError('E_CONFIG', `hibench/${scenario} is built from curated programs: give --data (a code.jsonl file, or a folder with c++Selected/ and pythonSelected/)`);
  return readCodeSource(data, (m) => warn(`hibench/${scenario}: ${m}`), skip);
}

/**
 * What `load` of a curated-code dataset reads: `records` when `--data` is a file written by `hpt-bench generate`
 * (stream it with `loadRecordsFile`), else the `programs` (`curatedPrograms`) with the warning sink of the load (the
 * injected Logger, else the load's `warn`). `checkFilter` (the scenario's filter validation) runs after the split check
 * and before any file is read, so errors come in that order.
 * @param scenario the scenario's name, for the messages.
 * @throws HptError `E_CONFIG` with `--split` (these datasets have none), from `checkFilter`, or without `--data`;
 *   `E_DATA` for unreadable data.
 */
export function codeInput(
  scenario: string,
  options: DatasetLoadOptions,
  log: Logger | undefined,
  checkFilter: () => void,
): { kind: 'records'; data: string } | { kind: 'programs'; items: CodeItem[]; warn: (m: string) => void } {
  if (options.split) throw new HptError('E_CONFIG', `hibench/${scenario} has no splits (got --split ${options.split}); use --task, --language, --icl`);
  checkFilter();
  const data = options.data;
  if (data && !isDirectory(data) && !isSourceEntry(firstObject(data) ?? {})) return { kind: 'records', data };
  const warn = (m: string): void => {
    if (log) log.warn(m);
    else options.warn(m);
  };
  // --on-invalid skip: an entry without its labels is left out and counted as skipped by the run (the load's `warn`)
  return { kind: 'programs', items: curatedPrograms(scenario, data, warn, options.onInvalid === 'skip' ? options.warn : undefined), warn };
}
