/**
 * The Paper scenario's document tree (specs/hibench.md §3.6): a paper as nested sections, serialised with XML-like
 * markers — `<<<Section Title>>>\n…content…\n<<</Section Title>>>\n`, subsections nested, the whole paper wrapped in
 * `<<<Title>>>…<<</Title>>>` with the paper title as the root's content — or as plain text (§7 rec. 18: each opening
 * marker replaced by a line holding the title, closing markers deleted).
 */
import type { Json } from '@hpt-bench/sdk';

/**
 * One section of a paper. `title` is the section name (the root's is `Title`), `content` the text directly inside the
 * section before its first subsection, each line ending in "\n" ('' = no line; "\n" = one empty line, which the
 * released files have for some sections without text of their own; the root's content is the paper title line),
 * `children` the subsections in document order.
 * Example: `{title: 'Title', content: 'A Paper\n', children: [{title: 'Abstract', content: 'We…\n', children: []}]}`.
 */
export interface PaperNode {
  title: string;
  content: string;
  children: PaperNode[];
}

/** The two renderings of a paper (§3.6, §5.3): `structured` with `<<<…>>>` markers, `plain` with title lines. */
export type PaperRepresentation = 'structured' | 'plain';

/** The representations in canonical order. */
export const PAPER_REPRESENTATIONS: readonly PaperRepresentation[] = ['structured', 'plain'];

const OPEN = /^<<<(?!\/)(.*)>>>$/;
const CLOSE = /^<<<\/(.*)>>>$/;

/**
 * Parses a structured paper (the `Context:` part of a toolkit record). Lines that are exactly `<<<X>>>` open a section,
 * `<<</X>>>` close the innermost one (its title must match); other lines are content of the innermost open section.
 * Text after a subsection (rare) is appended to the parent's content. The inverse of `renderStructured` on the toolkit's
 * files (byte-exact round trip, tested on the shared records).
 * Returns null when the text is not one well-formed `<<<Title>>>` tree (no root, unbalanced or mismatched markers).
 */
export function parsePaper(text: string): PaperNode | null {
  const lines = text.replace(/\n$/, '').split('\n');
  const stack: { node: PaperNode; lines: string[] }[] = [];
  let root: PaperNode | null = null;
  for (const line of lines) {
    const open = OPEN.exec(line);
    if (open) {
      if (root !== null && stack.length === 0) return null;
      const node: PaperNode = { title: open[1]!, content: '', children: [] };
      const top = stack[stack.length - 1];
      if (top) {
        if (top.node.children.length === 0) top.node.content = top.lines.map((l) => `${l}\n`).join('');
        top.node.children.push(node);
      } else root = node;
      stack.push({ node, lines: [] });
      continue;
    }
    const close = CLOSE.exec(line);
    if (close) {
      const top = stack.pop();
      if (!top || top.node.title !== close[1]) return null;
      if (top.node.children.length === 0) top.node.content = top.lines.map((l) => `${l}\n`).join('');
      continue;
    }
    const top = stack[stack.length - 1];
    if (!top) {
      if (line === '') continue;
      return null;
    }
    if (top.node.children.length > 0) {
      // text after a subsection: keep it with the parent's own text
      top.node.content += `${line}\n`;
    } else top.lines.push(line);
  }
  return root !== null && stack.length === 0 ? root : null;
}

/** The structured rendering (§3.6): `<<<T>>>\n` + content line(s) + subsections + `<<</T>>>\n`. */
export function renderStructured(node: PaperNode): string {
  const parts: string[] = [`<<<${node.title}>>>\n`];
  parts.push(node.content);
  for (const c of node.children) parts.push(renderStructured(c));
  parts.push(`<<</${node.title}>>>\n`);
  return parts.join('');
}

/** The plain rendering (§7 rec. 18): every opening marker replaced by a line with the title, closing markers deleted. */
export function renderPlain(node: PaperNode): string {
  const parts: string[] = [`${node.title}\n`];
  parts.push(node.content);
  for (const c of node.children) parts.push(renderPlain(c));
  return parts.join('');
}

/** A paper in the given representation. */
export function renderPaper(node: PaperNode, representation: PaperRepresentation): string {
  return representation === 'plain' ? renderPlain(node) : renderStructured(node);
}

/** Every section title in document order (pre-order), starting with the root's `Title` (§3.6 outline reference). */
export function outlineTitles(node: PaperNode): string[] {
  return [node.title, ...node.children.flatMap(outlineTitles)];
}

/** The outline reference string of the toolkit: the titles joined by "\n". */
export function outlineReference(node: PaperNode): string {
  return outlineTitles(node).join('\n');
}

function normTitle(t: string): string {
  return t.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
}

/**
 * The top-level sections that may be swapped (§7 rec. 18): children of the root other than `Abstract`, whose
 * normalised titles are non-empty and unique among the top-level sections (so the answer names them unambiguously).
 * Returns their indices in `root.children`.
 */
export function swappableSections(root: PaperNode): number[] {
  const counts = new Map<string, number>();
  for (const c of root.children) counts.set(normTitle(c.title), (counts.get(normTitle(c.title)) ?? 0) + 1);
  const out: number[] = [];
  root.children.forEach((c, i) => {
    const n = normTitle(c.title);
    if (n !== '' && n !== 'abstract' && n !== 'title' && counts.get(n) === 1) out.push(i);
  });
  return out;
}

/** A copy of `root` with top-level sections `i` and `j` (indices in `root.children`) swapped, content included. */
export function swapSections(root: PaperNode, i: number, j: number): PaperNode {
  const children = root.children.slice();
  [children[i], children[j]] = [children[j]!, children[i]!];
  return { ...root, children };
}

/** A paper tree as JSON (the record's `document` field). */
export function paperToJson(node: PaperNode): Json {
  return { title: node.title, content: node.content, children: node.children.map(paperToJson) };
}

/** Reads a `document` field back (see `paperToJson`); null when it is not a paper tree. */
export function paperFromJson(v: Json | undefined): PaperNode | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const { title, content, children } = v as Record<string, Json>;
  if (typeof title !== 'string' || typeof content !== 'string' || !Array.isArray(children)) return null;
  const kids: PaperNode[] = [];
  for (const c of children) {
    const k = paperFromJson(c);
    if (k === null) return null;
    kids.push(k);
  }
  return { title, content, children: kids };
}
