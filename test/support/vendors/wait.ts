/** Polls until `list` holds `count` items (what a fake has received so far). */
export async function waitForLength<T>(list: T[], count: number, label: string, timeoutMs = 20000): Promise<T[]> {
  const deadline = Date.now() + timeoutMs;
  while (list.length < count) {
    if (Date.now() > deadline) throw new Error(`${label} got ${list.length} of ${count}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return list;
}
