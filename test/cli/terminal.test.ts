/**
 * Human-readable terminal output is inert: control characters from a model id, dataset id or data
 * (ANSI escapes, CR, BEL, C1 controls, bidi overrides) are shown as visible escapes in every table cell
 * (`TerminalTable`) and log/error line (`terminalSafe`). JSON output is not touched by these helpers.
 */
import { describe, expect, it } from 'vitest';
import { TerminalTable, terminalSafe } from '../../packages/cli/src/terminal.js';
import { renderCompare } from '../../packages/cli/src/commands/compare.js';
import { renderJudge } from '../../packages/cli/src/commands/judge.js';
import { type CompareResult, pairedTests } from '@hpt-bench/core';

const HOSTILE = 'gpt\u001b[31m\u001b]0;pwned\u0007\u001b[2J\r\b\u009b1m\u202eevil\u0000';
/** Any character a terminal would act on rather than print, but the newlines that separate a table's lines. */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('terminalSafe', () => {
  it('shows every control character as a visible escape and keeps the rest', () => {
    expect(terminalSafe(HOSTILE)).toBe('gpt\\x1b[31m\\x1b]0;pwned\\x07\\x1b[2J\\x0d\\x08\\x9b1m\\u202eevil\\x00');
    expect(terminalSafe('naïve 模型 — ok')).toBe('naïve 模型 — ok');
  });

  it('keeps tab and newline unless one line is asked for', () => {
    expect(terminalSafe('a\tb\nc')).toBe('a\tb\nc');
    expect(terminalSafe('a\tb\nc', true)).toBe('a\\x09b\\x0ac');
    expect(terminalSafe('\u007f\u0085')).toBe('\\x7f\\x85');
  });
});

describe('TerminalTable', () => {
  it('sanitises headers and cells, prints numbers and empty cells', () => {
    const t = new TerminalTable({ head: ['model', `d\u001b[1m`], style: { head: [], border: [] } });
    expect(t.push([HOSTILE, 1.5], [null, undefined])).toBe(2);
    const text = t.toString();
    expect(text).not.toMatch(CONTROL);
    expect(text).toContain('gpt\\x1b[31m');
    expect(text).toContain('1.5');
    expect(text).toContain('d\\x1b[1m');
  });
});

describe('CLI renderers built on TerminalTable', () => {
  it('compare: run, dataset and model ids with escapes stay inert', () => {
    const unit = (sampleId: string, level: number | null) => ({ sampleId, index: 0, hpi: level ?? 7, scores: 1, solved: level === null ? 0 : 1, level });
    const side = (runId: string) => ({ runId, dataset: `boolq\u001b[5m`, model: HOSTILE, mode: 'manual', samples: 2, hpi: 1, accuracy: 1 });
    const transitions = { rows: ['L1', 'unsolved'], columns: ['L1', 'unsolved'], counts: [[0, 1], [1, 0]], paired: 2, totals: { fixed: 1, broken: 1, improved: 0, worse: 0, sameLevel: 0, bothUnsolved: 0 } };
    const r = {
      a: side('A\u001b[0m'), b: side('B'), paired: 2, onlyA: 0, onlyB: 0, unscored: 0, hpiDiff: 0, hpiDiffCi95: null, accuracyDiff: 0, accuracyDiffCi95: null, bootstrap: { resamples: 10, seed: 0, level: 0.95 },
      transitions, fixed: [{ sampleId: `s\u001b[31m1`, levelA: null, levelB: 1 }], broken: [{ sampleId: 's2\u0007', levelA: 1, levelB: null }],
      tests: pairedTests([
        [unit(`s\u001b[31m1`, null), unit(`s\u001b[31m1`, 1)],
        [unit('s2\u0007', 1), unit('s2\u0007', null)],
      ]),
    } as unknown as CompareResult;
    const text = renderCompare(r);
    expect(text).not.toMatch(CONTROL);
    expect(text).toContain('A\\x1b[0m');
    // the fixed / broken sample ids are data too
    expect(text).toContain('s\\x1b[31m1: A unsolved -> B L1');
    expect(text).toContain('s2\\x07: A L1 -> B unsolved');
  });

  it('judge: a strategy name with escapes stays inert', () => {
    const text = renderJudge([{ level: 1, strategy: `role\u001b[41m`, score1: 1, score2: 1, score3: 1, score4: 1, total: 4, n: 1, invalid: 0 } as never], { dataset: 'd', model: 'm', helperModel: 'm', items: 1, errored: 0 });
    expect(text).not.toMatch(CONTROL);
    expect(text).toContain('role\\x1b[41m');
  });
});
