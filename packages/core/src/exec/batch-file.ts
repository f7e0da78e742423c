/**
 * Splitting the request lines of one batch round into files within a provider's per-file limits (`BatchModel.limits`,
 * e.g. 50,000 requests and 200 MB per input file).
 */

/**
 * The lines of one round split into chunks (arrays of indexes into `lines`, in order) of at most `maxRequests` lines and
 * `maxBytes` bytes each — a line counts its UTF-8 bytes plus one for its newline. A line that alone exceeds `maxBytes`
 * cannot be sent: its index goes to `tooLarge` instead.
 * @param lines the encoded JSONL lines (without newlines)
 * @param limits per-file limits, each ≥ 1
 */
export function splitBatchLines(lines: readonly string[], limits: { maxRequests: number; maxBytes: number }): { chunks: number[][]; tooLarge: number[] } {
  const chunks: number[][] = [];
  const tooLarge: number[] = [];
  let current: number[] = [];
  let bytes = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const size = Buffer.byteLength(line, 'utf8') + 1;
    if (size > limits.maxBytes) {
      tooLarge.push(i);
      continue;
    }
    if (current.length && (current.length >= limits.maxRequests || bytes + size > limits.maxBytes)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(i);
    bytes += size;
  }
  if (current.length) chunks.push(current);
  return { chunks, tooLarge };
}
