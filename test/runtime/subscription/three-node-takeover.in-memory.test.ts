import { describe, expect, it } from 'vitest';
import { InMemoryCheckpointStorage, InMemoryLeaseStrategy, InMemoryLeaseTable } from '../../../runtime/index.js';
import { runThreeNodeTakeover, type TakeoverWorld } from '../../support/leases/three-node-takeover.js';

function inMemoryWorld(): TakeoverWorld {
  const table = new InMemoryLeaseTable();
  const storage = new InMemoryCheckpointStorage();
  return {
    leaseTimeMs: 500,
    writesRecordedInOrder: true,
    strategy: (clock) => new InMemoryLeaseStrategy({ table, clock, leaseTimeMs: 500 }),
    storage: () => storage,
    deleteLease: async (subscriptionId) => {
      table.deleteLease(subscriptionId);
    },
  };
}

describe('three nodes, one subscription, in-memory leases', () => {
  it("a paused holder's late write is refused after another node takes over; nothing lost, nothing backward", async () => {
    const report = await runThreeNodeTakeover(inMemoryWorld(), { deleteLeasesMidRun: false });
    expect(report.grantedTokens[0]).toBe(0n);
  });

  it('with the lease deleted by hand twice mid-run, tokens keep climbing', async () => {
    const report = await runThreeNodeTakeover(inMemoryWorld(), { deleteLeasesMidRun: true });
    expect(report.deletedLeases).toBe(2);
    expect(report.grantedTokens.length).toBeGreaterThanOrEqual(4);
  });
});
