/**
 * Run `worker` over an async stream with at most `concurrency` items in flight, pulling the next item only when a slot
 * is free (so memory stays flat in the stream's length). Results are not collected: `worker` handles its own output.
 * The first error stops pulling new items, waits for the items in flight, and is rethrown.
 *
 * @param concurrency ≥ 1.
 * @param lanes told when a lane starts (before its first pull) and when it ends (the stream is done, or an error):
 *   a lane between the two is reading or working on an item (`run --batch` counts them to know when every sample waits).
 */
export async function forEachConcurrent<T>(items: AsyncIterable<T>, concurrency: number, worker: (item: T) => Promise<void>, lanes?: { started(): void; ended(): void }): Promise<void> {
  const it = items[Symbol.asyncIterator]();
  let failed: { error: unknown } | undefined;
  // The iterator is shared by the lanes; pulls are serialised (chained: each waits for the one before, O(1) per pull
  // however many lanes wait) so a generator never sees concurrent next() calls.
  let tail: Promise<unknown> = Promise.resolve();
  const next = (): Promise<IteratorResult<T>> => {
    const pull = tail.then(() => it.next());
    tail = pull.catch(() => undefined);
    return pull;
  };
  const lane = async (): Promise<void> => {
    lanes?.started();
    try {
      await work();
    } finally {
      lanes?.ended();
    }
  };
  const work = async (): Promise<void> => {
    while (!failed) {
      let r: IteratorResult<T>;
      try {
        r = await next();
      } catch (error) {
        failed ??= { error };
        return;
      }
      if (r.done) return;
      try {
        await worker(r.value);
      } catch (error) {
        failed ??= { error };
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.floor(concurrency)) }, lane));
  if (failed) {
    await it.return?.(undefined).catch(() => undefined);
    throw failed.error;
  }
}
