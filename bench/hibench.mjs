// HiBench suites benchmark: generate the six default suites (binary tree, multiple tree, JSON, formula, code from
// ../shared/data/hibench-code/code.jsonl, paper from the embedded demo papers) and this plugin's two more (the
// code-structure questions on the same programs, the generated code-gen programs), serialise every record as
// `hpt-bench generate` does, and print records, bytes, time and peak memory; then load and parse the 189 code files
// with tree-sitter. Target: under 10 s for all six on a 2-core machine. Run after `npm run build`:
// node bench/hibench.mjs [seed]
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BinaryTreeDataset, CodeDataset, CodeGenDataset, CodeStructureDataset, FormulaDataset, JsonDataset, MultipleTreeDataset, PaperDataset, preloadCodeStructure, readCodeSource } from '@hpt-bench/hibench';

const seed = Number(process.argv[2] ?? 0);
const CODE_DATA = fileURLToPath(new URL('../../shared/data/hibench-code/code.jsonl', import.meta.url));
const hasCode = existsSync(CODE_DATA);
const six = [new BinaryTreeDataset(), new MultipleTreeDataset(), new JsonDataset(), new FormulaDataset(), ...(hasCode ? [new CodeDataset()] : []), new PaperDataset()];
const suites = [...six, ...(hasCode ? [new CodeStructureDataset()] : []), new CodeGenDataset()];
if (!hasCode) console.log(`code: ${CODE_DATA} not found (../shared beside the repository); the Code suite is left out`);
let peak = process.memoryUsage().rss;
const sample = () => {
  peak = Math.max(peak, process.memoryUsage().rss);
};
const timer = setInterval(sample, 20);
const t0 = performance.now();
let sixMs = 0;
let total = 0;
for (const ds of suites) {
  const t = performance.now();
  const hash = createHash('sha256');
  let n = 0;
  let bytes = 0;
  if (ds.id === 'code-structure') await preloadCodeStructure(); // tree-sitter parsers (WebAssembly), loaded once
  for (const r of ds.generate({ seed, compat: 'strict', filters: {}, ...(ds.id === 'code' || ds.id === 'code-structure' ? { data: CODE_DATA } : {}) })) {
    const line = `${JSON.stringify(r)}\n`;
    hash.update(line);
    bytes += line.length;
    n++;
  }
  total += n;
  if (six.includes(ds)) sixMs += performance.now() - t;
  sample();
  console.log(`${ds.id.padEnd(14)} ${String(n).padStart(6)} records  ${(bytes / 1e6).toFixed(1).padStart(6)} MB  ${(performance.now() - t).toFixed(0).padStart(5)} ms  sha256 ${hash.digest('hex').slice(0, 12)}`);
}
const elapsed = performance.now() - t0;
clearInterval(timer);
sample();
const maxRss = process.resourceUsage().maxRSS / 1024;
console.log(`total          ${String(total).padStart(6)} records  ${elapsed.toFixed(0)} ms (the six suites: ${sixMs.toFixed(0)} ms, target < 10000 ms)  peak RSS ${Math.max(peak / 1048576, maxRss).toFixed(0)} MB`);
if (hasCode) {
  const t = performance.now();
  const items = readCodeSource(CODE_DATA, (m) => console.log(m));
  const { bad } = await new CodeDataset().checkSyntax(items, (m) => console.log(m));
  console.log(`code files     ${String(items.length).padStart(6)} read and parsed with tree-sitter in ${(performance.now() - t).toFixed(0)} ms, ${bad.length} with ERROR/MISSING nodes`);
}
