/**
 * The sandbox's own programs are files of this package, not strings in its code: the harness and the probe in
 * `python/`, the escape suite's programs in `python/check/`, the namespace setup in `sh/` (all listed in the package's
 * `files`). They are read relative to this module (`../python/...` from `src/` under test and from `dist/` when
 * built), once each.
 */
import { readFileSync } from 'node:fs';

const texts = new Map<string, string>();

/**
 * The text of a file of this package (`path` relative to the package root, e.g. `python/harness.py`), read once.
 * @throws Error (ENOENT ...) when the file is missing: the package is incomplete.
 */
export function packageText(path: string): string {
  let text = texts.get(path);
  if (text === undefined) {
    text = readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
    texts.set(path, text);
  }
  return text;
}

/**
 * The Python program in `path` (relative to the package root) as the text to run, with `PARAMS` (a dict decoded from
 * the JSON of `params`) defined on a first line before it. The program reads its inputs (paths, ports, markers) from
 * `PARAMS` instead of having them spliced into its text.
 * @throws Error when the file is missing.
 */
export function pythonProgram(path: string, params: Record<string, unknown> = {}): string {
  // JSON.stringify of a string is also a valid Python string literal (only \" \\ \n \r \t \b \f \uXXXX escapes)
  return `PARAMS = __import__("json").loads(${JSON.stringify(JSON.stringify(params))})\n${packageText(path)}`;
}
