/**
 * Shared flushes: calls made for a key while a flush of that key is under way share the next
 * one, so a burst costs a key one flush per round trip (or per `lingerMs`) instead of one per
 * call. Mostly a shared read (every caller gets the same answer); the flush may also write what
 * its callers handed in, together. A call that finds no flush of its key under way is flushed
 * after `lingerMs` (by default at the end of the current turn), with every call that came
 * meanwhile; calls that come while a flush is under way go in the next one, as soon as it ends.
 * A flush holds at most `maxItems` items: one that fills up goes at once, even beside a flush
 * under way, as does one that waited `maxWaitMs` for a flush under way. Each caller's promise
 * settles with the flush that carried its item, so a failed flush rejects every item in it and
 * each caller handles that as it would its own failure. A flush always starts after its
 * callers asked, so a read shared this way is as fresh as their own.
 */
export function sharedFlush<T = void, R = void>(
  flush: (key: string, items: T[]) => Promise<R>,
  { lingerMs = 0, maxItems = Infinity, maxWaitMs }: { lingerMs?: number; maxItems?: number; maxWaitMs?: number } = {},
): (key: string, item: T) => Promise<R> {
  interface Waiting {
    items: T[];
    done: Promise<R>;
    resolve: (result: R) => void;
    reject: (err: unknown) => void;
  }
  /** Per key, how many flushes are under way (more than one only after a full one went early). */
  const flushing = new Map<string, number>();
  /** Per key, the items of its next flush and their common outcome. */
  const waiting = new Map<string, Waiting>();

  const flushWaiting = (key: string, next: Waiting | undefined): void => {
    // Gone already when it filled up, or when a flush's end took it before its linger ran out.
    if (!next || waiting.get(key) !== next) return;
    waiting.delete(key);
    flushing.set(key, (flushing.get(key) ?? 0) + 1);
    const done = Promise.resolve().then(() => flush(key, next.items));
    done.then(next.resolve, next.reject).finally(() => {
      const left = flushing.get(key)! - 1;
      if (left) flushing.set(key, left);
      else flushing.delete(key);
      flushWaiting(key, waiting.get(key));
    });
  };

  return (key, item) => {
    let next = waiting.get(key);
    if (!next) {
      let resolve!: (result: R) => void;
      let reject!: (err: unknown) => void;
      const done = new Promise<R>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      const created = (next = { items: [item], done, resolve, reject });
      waiting.set(key, created);
      // Under way, the flush's end takes these; else they go after the linger.
      if (!flushing.has(key)) {
        // Callers in the same turn (the consumers of one event) share it too.
        if (lingerMs > 0) setTimeout(() => flushWaiting(key, created), lingerMs);
        else queueMicrotask(() => flushWaiting(key, created));
      } else if (maxWaitMs !== undefined) setTimeout(() => flushWaiting(key, created), maxWaitMs);
    } else next.items.push(item);
    if (next.items.length >= maxItems) flushWaiting(key, next);
    return next.done;
  };
}
