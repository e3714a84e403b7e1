import { expect } from 'chai';
import { sharedFlush } from '../../../platform/shared-flush';

/** A flush that records its items and finishes when the test says. */
function recordingFlush() {
  const flushes: Array<{ key: string; items: number[]; finish: (err?: Error) => void }> = [];
  const flush = (key: string, items: number[]) =>
    new Promise<void>((resolve, reject) => {
      flushes.push({ key, items: [...items], finish: (err) => (err ? reject(err) : resolve()) });
    });
  return { flushes, flush };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('shared flush', () => {
  it('flushes a lone item at once, and the items that come during a flush together right after it', async () => {
    const { flushes, flush } = recordingFlush();
    const add = sharedFlush(flush);
    const first = add('org-a', 1);
    await turn();
    expect(flushes.map((f) => f.items)).to.deep.equal([[1]]);
    const later = [add('org-a', 2), add('org-a', 3), add('org-a', 4)];
    const otherKey = add('org-b', 9);
    await turn();
    // org-b has no flush under way: it goes at once; org-a's wait for the first flush.
    expect(flushes.map((f) => [f.key, f.items])).to.deep.equal([
      ['org-a', [1]],
      ['org-b', [9]],
    ]);
    flushes[0]!.finish();
    await first;
    await turn();
    expect(flushes[2]).to.deep.include({ key: 'org-a', items: [2, 3, 4] });
    flushes[1]!.finish();
    flushes[2]!.finish();
    await Promise.all([...later, otherKey]);
    expect(flushes).to.have.length(3);
  });

  it('rejects every item of a failed flush, and later items still go in a flush of their own', async () => {
    const { flushes, flush } = recordingFlush();
    const add = sharedFlush(flush);
    const first = add('org', 1);
    await turn();
    const failing = [add('org', 2), add('org', 3)];
    flushes[0]!.finish();
    await first;
    await turn();
    flushes[1]!.finish(new Error('Temporal unavailable'));
    const outcomes = await Promise.allSettled(failing);
    expect(outcomes.map((o) => o.status)).to.deep.equal(['rejected', 'rejected']);
    // The callers try again (the relay loop relays the events again): a new flush carries them.
    const retried = add('org', 2);
    await turn();
    expect(flushes[2]!.items).to.deep.equal([2]);
    flushes[2]!.finish();
    await retried;
  });

  it('gives a flush that throws before its promise to its callers as a rejection', async () => {
    const add = sharedFlush<number>(() => {
      throw new Error('bad input');
    });
    const outcomes = await Promise.allSettled([add('k', 1), add('k', 2)]);
    expect(outcomes.map((o) => o.status)).to.deep.equal(['rejected', 'rejected']);
  });

  it('lets callers of the same turn share a flush, and returns its result to each', async () => {
    let reads = 0;
    const read = sharedFlush((key: string) => Promise.resolve(`${key}#${++reads}`));
    expect(await Promise.all([read('sub'), read('sub'), read('sub')])).to.deep.equal(['sub#1', 'sub#1', 'sub#1']);
    // A caller after that read gets a read of its own, made after it asked.
    expect(await read('sub')).to.equal('sub#2');
  });

  it('with a linger, collects the items that come within it into one flush', async () => {
    const { flushes, flush } = recordingFlush();
    const add = sharedFlush(flush, { lingerMs: 30 });
    const pending = [add('org', 1)];
    await turn();
    expect(flushes).to.have.length(0);
    pending.push(add('org', 2), add('org', 3));
    await new Promise((r) => setTimeout(r, 60));
    expect(flushes.map((f) => f.items)).to.deep.equal([[1, 2, 3]]);
    flushes[0]!.finish();
    await Promise.all(pending);
  });

  it('with a maximum, sends a full flush at once, even beside one under way, and the rest in the next', async () => {
    const { flushes, flush } = recordingFlush();
    const add = sharedFlush(flush, { maxItems: 2 });
    const first = [add('org', 1), add('org', 2)];
    const during = [add('org', 3), add('org', 4), add('org', 5)];
    await turn();
    // [3, 4] filled up while the full [1, 2] was under way and went beside it; 5 waits for a flush to end.
    expect(flushes.map((f) => f.items)).to.deep.equal([
      [1, 2],
      [3, 4],
    ]);
    flushes[1]!.finish();
    await Promise.all(during.slice(0, 2));
    await turn();
    expect(flushes.map((f) => f.items)).to.deep.equal([[1, 2], [3, 4], [5]]);
    flushes[0]!.finish();
    flushes[2]!.finish();
    await Promise.all([...first, ...during]);
    expect(flushes).to.have.length(3);
  });

  it('with a maximum wait, sends a batch that waited that long beside the flush under way', async () => {
    const { flushes, flush } = recordingFlush();
    const add = sharedFlush(flush, { maxWaitMs: 30 });
    const first = add('org', 1);
    await turn();
    const waited = [add('org', 2), add('org', 3)];
    await turn();
    expect(flushes.map((f) => f.items)).to.deep.equal([[1]]);
    await new Promise((r) => setTimeout(r, 60));
    expect(flushes.map((f) => f.items)).to.deep.equal([[1], [2, 3]]);
    flushes[0]!.finish();
    flushes[1]!.finish();
    await Promise.all([first, ...waited]);
    expect(flushes).to.have.length(2);
  });
});
