import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The source files (`.ts`, `.mts`, `.js`, `.mjs`; not tests, not declarations) under `dir`, recursively, as paths. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(ts|mts|js|mjs)$/.test(name) && !/\.(test|spec)\.[mc]?[jt]s$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/**
 * The data files under `dir`, recursively, as paths: JSON, JSON Lines, YAML, text, Markdown, CSV and TSV files
 * (what a package could ship as data: prompt packs, templates, word lists, docs), outside `node_modules` and `dist`.
 */
export function dataFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'node_modules' && name !== 'dist') out.push(...dataFiles(p));
    } else if (/\.(json|jsonl|ya?ml|txt|md|csv|tsv)$/i.test(name)) out.push(p);
  }
  return out;
}
