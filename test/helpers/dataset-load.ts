/**
 * Calling a dataset's `load` directly in tests: load options that collect the warnings, and the samples of a stream.
 */
import type { DatasetLoadOptions, Sample } from '@hpt-bench/sdk';

/** `DatasetLoadOptions` with defaults (fail on invalid records, a temp cache dir) whose `warn` collects into `warnings`. */
export function loadOptions(over: Partial<DatasetLoadOptions> = {}): DatasetLoadOptions & { warnings: string[] } {
  const warnings: string[] = [];
  return { onInvalid: 'fail', cacheDir: '/tmp', warn: (m) => warnings.push(m), warnings, ...over };
}

/** Every sample of a `load` stream, in order. */
export async function collect(it: AsyncIterable<Sample>): Promise<Sample[]> {
  const out: Sample[] = [];
  for await (const s of it) out.push(s);
  return out;
}
