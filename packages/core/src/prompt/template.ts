import { HptError } from '../errors.js';

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
  return template.replace(PLACEHOLDER, (_m, name: string) => {
    const value = vars[name];
    if (value === undefined) {
      throw new HptError('E_TEMPLATE', `template placeholder {${name}} has no value (known: ${Object.keys(vars).join(', ') || 'none'})`);
    }
    return value;
  });
}

/** The placeholder names a template uses, in order of first appearance. */
export function placeholders(template: string): string[] {
  const names: string[] = [];
  for (const m of template.matchAll(PLACEHOLDER)) if (!names.includes(m[1]!)) names.push(m[1]!);
  return names;
}
