/**
 * The Markdown report shows hostile text as text: raw HTML and link syntax from a model id, a
 * dataset id or data (`<script>`, `<img onerror>`, `[x](javascript:...)`) is escaped by `mdText` in every cell, label,
 * title and note; the store path is a code span that a backtick cannot close.
 */
import { describe, expect, it } from 'vitest';
import { mdText, reportToMarkdown, tableToMarkdown, type ReportTable } from '@hpt-bench/core';

const SCRIPT = '<script>alert(1)</script>';
const IMG = '<img src=x onerror=alert(1)>';

describe('Markdown escaping', () => {
  it('mdText: HTML becomes entities, pipes and backslashes are escaped, links cannot form, lines are joined', () => {
    expect(mdText(SCRIPT)).toBe('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(mdText('a & b | c \\ d')).toBe('a &amp; b \\| c \\\\ d');
    expect(mdText('[click](javascript:alert(1)) ![x](http://t/p.png)')).toBe('[click]\\(javascript:alert(1)) ![x]\\(http://t/p.png)');
    expect(mdText('a\r\nb\nc\rd')).toBe('a b c d');
    expect(mdText('plain-model_v1 0.50 [0.30, 0.70]')).toBe('plain-model_v1 0.50 [0.30, 0.70]');
  });

  it('a table with HTML in a title, a label, a cell and a note has no raw tag left', () => {
    const t: ReportTable = {
      id: 'runs',
      title: `Runs ${IMG}`,
      notes: [`note ${SCRIPT}`],
      columns: [{ label: `Model ${SCRIPT}` }, { label: 'HPI', digits: 2 }],
      rows: [[{ value: `openai:${IMG}` }, { value: 1.234 }]],
    };
    const md = tableToMarkdown(t);
    expect(md).not.toMatch(/<(script|img|\/script)/i);
    expect(md).toContain('openai:&lt;img src=x onerror=alert(1)&gt;');
    expect(md).toContain('| 1.23 |');
  });

  it('the store path is a code span a backtick cannot close', () => {
    const md = reportToMarkdown({ runs: [], bootstrap: { resamples: 10, seed: 0 } as never, store: 'x`<b>y`.db' }, []);
    expect(md).toContain('from ``x`<b>y`.db``.');
  });
});
