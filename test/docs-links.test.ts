/**
 * The documentation a user reads points at no file outside the repository (issue 27: the guide cited
 * `../shared/specs/...`, which a GitHub user does not have): README.md, docs/*.md and the README of every package,
 * plugin and example name the method specifications and data folders instead of linking them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';

/** The user-facing Markdown files of the repository. */
function docs(): string[] {
  const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  for (const dir of ['packages', 'plugins', 'examples']) {
    for (const name of readdirSync(join(ROOT, dir))) if (existsSync(join(ROOT, dir, name, 'README.md'))) files.push(`${dir}/${name}/README.md`);
  }
  return files;
}

describe('documentation links', () => {
  it('no doc points at a file outside the repository (../shared or any path climbing out of it)', () => {
    const files = docs();
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/plugins.md', 'docs/architecture.md', 'plugins/hibench/README.md']));
    const outside: string[] = [];
    for (const f of files) {
      const lines = readFileSync(join(ROOT, f), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (/\.\.\/shared\b/.test(line)) outside.push(`${f}:${i + 1}: ${line.trim()}`);
        // a relative Markdown link that climbs above the repository root
        for (const m of line.matchAll(/\]\(((?:\.\.\/)+)[^)]*\)/g)) {
          const depth = f.split('/').length - 1;
          if (m[1]!.length / 3 > depth) outside.push(`${f}:${i + 1}: ${m[0]}`);
        }
      });
    }
    expect(outside).toEqual([]);
  });
});
