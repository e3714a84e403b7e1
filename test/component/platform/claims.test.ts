/** The claims every exclusive change takes (platform/claims.ts), on the run's store. */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { ClaimBusyError, exclusively, extendClaim, releaseClaim, takeClaim } from '../../../platform/claims';
import { AppError } from '../../../platform/errors';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('claims', () => {
  it('of 20 takers at the same moment exactly one holds the claim, and the others are told who', async () => {
    const key = randomUUID();
    const taken = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => takeClaim('test', key, { leaseMs: 60_000, detail: `taker ${i}` })),
    );
    const won = taken.filter((t) => t.status === 'fulfilled');
    expect(won).to.have.length(1);
    const refused = taken.filter((t): t is PromiseRejectedResult => t.status === 'rejected').map((t) => t.reason as ClaimBusyError);
    expect(refused.every((e) => e instanceof ClaimBusyError)).to.equal(true);
    expect(new Set(refused.map((e) => e.held?.detail)).size, 'every refusal names the one holder').to.equal(1);
    await releaseClaim(won[0]!.value);
    await releaseClaim(await takeClaim('test', key, { leaseMs: 60_000 }));
  });

  it("a dead holder's claim blocks until its lease ends; then the next taker gets it, and the old holder can no longer touch it", async () => {
    const key = randomUUID();
    const dead = await takeClaim('test', key, { leaseMs: 500 });
    const busy = await takeClaim('test', key, { leaseMs: 60_000 }).catch((err: unknown) => err);
    expect(busy).to.be.instanceOf(ClaimBusyError);
    await pause(600);
    const next = await takeClaim('test', key, { leaseMs: 60_000, detail: 'next' });
    // The late holder wakes: its release and extension leave the new claim alone.
    expect(await extendClaim(dead, 60_000)).to.equal(false);
    await releaseClaim(dead);
    const still = await takeClaim('test', key, { leaseMs: 60_000 }).catch((err: unknown) => err);
    expect((still as ClaimBusyError).held?.detail).to.equal('next');
    await releaseClaim(next);
  });

  it('an exclusive change waits for the one before it, releases on failure, and answers 409 when the claim stays held', async () => {
    const key = randomUUID();
    const order: string[] = [];
    await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        exclusively('test', key, async () => {
          order.push(`${name} in`);
          await pause(20);
          order.push(`${name} out`);
        }),
      ),
    );
    for (let i = 0; i < order.length; i += 2) expect(order[i + 1]).to.equal(order[i]!.replace(' in', ' out'));
    await exclusively('test', key, () => Promise.reject(new Error('failed'))).catch(() => undefined);
    const held = await takeClaim('test', key, { leaseMs: 60_000 });
    const refused = await exclusively('test', key, () => Promise.resolve(), { waitMs: 0 }).catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(AppError);
    expect([(refused as AppError).status, (refused as AppError).code]).to.deep.equal([409, 'change_in_progress']);
    await releaseClaim(held);
  });
});
