import { HptError } from './errors.js';

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Substitute every `{name}` placeholder of `template` in ONE pass (specs/hpt.md §0): inserted values are never
 * re-scanned, so a value containing braces (e.g. HumanEval code) is inserted verbatim, as Python's `str.format` does.
 *
 * @param template text with `{name}` placeholders (names: letters, digits, underscore).
 * @param vars values by placeholder name.
 * @returns the filled text.
 * @throws HptError `E_TEMPLATE` naming the placeholder when `vars` has no value for it.
 */
export function fillTemplate(template: string, vars: Record<string, string>): string {
  const parts = compiled(template);
  let out = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) {
    const value = vars[parts[i]!];
    if (value === undefined) {
      throw new HptError('E_TEMPLATE', `template placeholder {${parts[i]}} has no value (known: ${Object.keys(vars).join(', ') || 'none'})`);
    }
    out += value + parts[i + 1]!;
  }
  return out;
}

/**
 * Templates split at their placeholders, once: `[text, name, text, name, ..., text]` (odd positions are names). A
 * ladder fills the same few templates for every call, and scanning a three-shot template (~4 kB) again each time cost
 * more than the fill. Bounded: cleared when it reaches `MAX_COMPILED` distinct templates.
 */
const compiledTemplates = new Map<string, string[]>();
const MAX_COMPILED = 512;

function compiled(template: string): string[] {
  let parts = compiledTemplates.get(template);
  if (!parts) {
    parts = template.split(PLACEHOLDER); // a capture group: the names land at the odd positions
    if (compiledTemplates.size >= MAX_COMPILED) compiledTemplates.clear();
    compiledTemplates.set(template, parts);
  }
  return parts;
}

/** The placeholder names a template uses, in order of first appearance. */
export function placeholders(template: string): string[] {
  const names: string[] = [];
  for (const m of template.matchAll(PLACEHOLDER)) if (!names.includes(m[1]!)) names.push(m[1]!);
  return names;
}
