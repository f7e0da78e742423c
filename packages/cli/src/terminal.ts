/**
 * Human-readable terminal output made inert (no control character or escape sequence of stored text reaches the
 * terminal): every table the CLI prints goes through `TerminalTable`, every log and error line through
 * `terminalSafe`. `--json` output is data and stays raw.
 */
import Table from 'cli-table3';
import { formatCell, type ReportTable } from '@hpt-bench/core';

/** cli-table3 style: coloured header on a colour TTY, plain text otherwise (pipes, files, NO_COLOR). */
export function tableStyle(): { head: string[]; border: string[] } {
  const colour = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
  return colour ? { head: ['cyan'], border: ['grey'] } : { head: [], border: [] };
}

/**
 * C0 controls other than tab and newline, DEL, C1 controls (U+0080-U+009F, e.g. the one-character CSI U+009B) and the
 * bidirectional embedding/override/isolate characters (U+202A-U+202E, U+2066-U+2069, which reorder what a terminal shows).
 */
const UNSAFE_FOR_TERMINAL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/** The same, plus tab and newline (a table cell is one line: a tab or line break would break the alignment). */
const UNSAFE_IN_LINE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `\x1b` for a character below U+0100, `\u202e` above. */
function visibleEscape(ch: string): string {
  const code = ch.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Text made inert for a terminal: every control character that could move the cursor, recolour, retitle, ring or
 * clear the terminal — ESC starting an ANSI sequence, CR, BEL, backspace, C1 controls, bidi overrides — is shown as a
 * visible escape (`\x1b`, `\x0d`, `\u202e`), so a model id, dataset id or data value is printed as what it is and the
 * rest of an escape sequence (`[31m`) stays plain text. Printable text, including non-ASCII letters, is unchanged.
 * @param text any string.
 * @param oneLine escape tab and newline too (table cells, one-line error messages); otherwise they are kept.
 */
export function terminalSafe(text: string, oneLine = false): string {
  return text.replace(oneLine ? UNSAFE_IN_LINE : UNSAFE_FOR_TERMINAL, visibleEscape);
}

/** A table cell: strings and numbers are printed as they are (after `terminalSafe`); null/undefined print as empty. */
export type TerminalCell = string | number | boolean | null | undefined;

/**
 * The one way the CLI draws a text table (`runs`, `report --format table`, `compare`, `list`, `cache stats`,
 * `generate`, `judge`, `calibrate` and `run` summaries): a cli-table3 table (`tableStyle()` unless `style` is given)
 * whose headers and cells all pass through `terminalSafe(…, true)`, so nothing stored or contributed — model ids,
 * dataset ids, data values, plugin descriptions — can emit escape sequences. A drop-in for
 * `new Table({ head, style })`: `push(...rows)`, then `toString()`.
 */
export class TerminalTable {
  private readonly table: Table.Table;

  /** @param options `head`: the column headers; `style`: a cli-table3 style (default `tableStyle()`). */
  constructor(options: { head: string[]; style?: { head: string[]; border: string[] } }) {
    this.table = new Table({ head: options.head.map((h) => terminalSafe(h, true)), style: options.style ?? tableStyle() });
  }

  /** Append rows, each an array with one cell per column. @returns the number of rows now in the table. */
  push(...rows: TerminalCell[][]): number {
    for (const row of rows) this.table.push(row.map((c) => (c === null || c === undefined ? '' : terminalSafe(String(c), true))));
    return this.table.length;
  }

  /** The table as text: box-drawing borders, colour only with `tableStyle()` on a colour TTY. */
  toString(): string {
    return this.table.toString();
  }
}

/**
 * Report tables (`ReportTable`: the report's and the plugins' report views') as aligned text: each table under its
 * title (and source), its notes after it, cells formatted as the report formats them (`formatCell`: digits, `[lo, hi]`
 * intervals), all through `TerminalTable`/`terminalSafe`. Used by `report --format table` and the `run` summary.
 */
export function renderTables(tables: readonly ReportTable[]): string {
  return tables
    .map((t) => {
      const table = new TerminalTable({ head: t.columns.map((c) => c.label) });
      for (const r of t.rows) table.push(t.columns.map((c, j) => formatCell(r[j] ?? { value: null }, c)));
      return [terminalSafe(`${t.title}${t.source ? ` (${t.source})` : ''}`, true), table.toString(), ...t.notes.map((n) => terminalSafe(n, true))].join('\n');
    })
    .join('\n\n');
}
