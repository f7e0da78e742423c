// HiBench generator benchmark (issue #4 "Done when"): generate the four full default suites (binary tree, multiple
// tree, JSON, formula), serialise every record as `hpt-bench generate` does, and print records, bytes, time and peak
// memory. Target: under 5 s in total on a 2-core machine. Run after `npm run build`: node bench/hibench.mjs [seed]
import { createHash } from 'node:crypto';
import { BinaryTreeDataset, FormulaDataset, JsonDataset, MultipleTreeDataset } from '@hpt-bench/hibench';

const seed = Number(process.argv[2] ?? 0);
const suites = [new BinaryTreeDataset(), new MultipleTreeDataset(), new JsonDataset(), new FormulaDataset()];
let peak = process.memoryUsage().rss;
const sample = () => {
  peak = Math.max(peak, process.memoryUsage().rss);
};
const timer = setInterval(sample, 20);
const t0 = performance.now();
let total = 0;
for (const ds of suites) {
  const t = performance.now();
  const hash = createHash('sha256');
  let n = 0;
  let bytes = 0;
  for (const r of ds.generate({ seed, compat: 'strict', filters: {} })) {
    const line = `${JSON.stringify(r)}\n`;
    hash.update(line);
    bytes += line.length;
    n++;
  }
  total += n;
  sample();
  console.log(`${ds.id.padEnd(14)} ${String(n).padStart(6)} records  ${(bytes / 1e6).toFixed(1).padStart(6)} MB  ${(performance.now() - t).toFixed(0).padStart(5)} ms  sha256 ${hash.digest('hex').slice(0, 12)}`);
}
const elapsed = performance.now() - t0;
clearInterval(timer);
sample();
const maxRss = process.resourceUsage().maxRSS / 1024;
console.log(`total          ${String(total).padStart(6)} records  ${elapsed.toFixed(0)} ms (target < 5000 ms)  peak RSS ${Math.max(peak / 1048576, maxRss).toFixed(0)} MB`);
