/**
 * Run `worker` over an async stream with at most `concurrency` items in flight, pulling the next item only when a slot
 * is free (so memory stays flat in the stream's length). Results are not collected: `worker` handles its own output.
 * The first error stops pulling new items, waits for the items in flight, and is rethrown.
 *
 * @param concurrency ≥ 1.
 */
export async function forEachConcurrent<T>(items: AsyncIterable<T>, concurrency: number, worker: (item: T) => Promise<void>): Promise<void> {
  const it = items[Symbol.asyncIterator]();
  let failed: { error: unknown } | undefined;
  let pulling: Promise<IteratorResult<T>> | undefined;
  // The iterator is shared by the lanes; pulls are serialised so a generator never sees concurrent next() calls.
  const next = async (): Promise<IteratorResult<T>> => {
    while (pulling) await pulling.catch(() => undefined);
    pulling = it.next();
    try {
      return await pulling;
    } finally {
      pulling = undefined;
    }
  };
  const lane = async (): Promise<void> => {
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
