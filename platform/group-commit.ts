/**
 * Group commit: items handed in for a key go together in one flush, so a burst costs a key one
 * flush per round trip (or per `lingerMs`) instead of one per item. An item that finds no flush
 * of its key under way is flushed after `lingerMs` (by default at the end of the current turn),
 * with every item that came meanwhile; items that come while a flush is under way go in the next one, as soon as it
 * ends. Each caller's promise settles with the flush that carried its item, so a failed flush
 * rejects every item in it and each caller handles that as it would its own failure. A flush
 * always starts after its callers asked, so a read shared this way is as fresh as their own.
 */
export function groupCommit<T = void, R = void>(
  flush: (key: string, items: T[]) => Promise<R>,
  { lingerMs = 0 }: { lingerMs?: number } = {},
): (key: string, item: T) => Promise<R> {
  interface Waiting {
    items: T[];
    done: Promise<R>;
    resolve: (result: R) => void;
    reject: (err: unknown) => void;
  }
  /** Keys with a flush under way. */
  const flushing = new Set<string>();
  /** Per key, the items of its next flush and their common outcome. */
  const waiting = new Map<string, Waiting>();

  const flushWaiting = (key: string): void => {
    const next = waiting.get(key);
    if (!next) return;
    waiting.delete(key);
    flushing.add(key);
    const done = Promise.resolve().then(() => flush(key, next.items));
    done.then(next.resolve, next.reject).finally(() => {
      flushing.delete(key);
      flushWaiting(key);
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
      waiting.set(key, (next = { items: [item], done, resolve, reject }));
      // Under way, the flush's end takes these; else they go after the linger.
      if (!flushing.has(key)) {
        // Callers in the same turn (the consumers of one event) share it too.
        if (lingerMs > 0) setTimeout(() => flushWaiting(key), lingerMs);
        else queueMicrotask(() => flushWaiting(key));
      }
    } else next.items.push(item);
    return next.done;
  };
}
