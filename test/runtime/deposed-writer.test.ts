import { describe, it } from 'vitest';
import { InMemoryCheckpointStorage, InMemoryLeaseStrategy, InMemoryLeaseTable } from '../../runtime/index.js';
import { noticeWays, runDeposedWriter } from '../support/leases/deposed-writer.js';

const leaseTimeMs = 1_000;

describe('FencedCheckpointWriter over InMemoryCheckpointStorage and InMemoryLeaseStrategy: a deposed node', () => {
  it.each(noticeWays)('is refused before it notices, and sends nothing after (%s)', async (way) => {
    // The table's clock is the "server time": it moves only when the scenario lets the leases expire.
    let serverNow = 0;
    const table = new InMemoryLeaseTable({ now: () => serverNow });
    const storage = new InMemoryCheckpointStorage();
    await runDeposedWriter(
      {
        leaseTimeMs,
        storage: () => storage,
        strategy: (clock) =>
          new InMemoryLeaseStrategy({ table, leaseTimeMs, ...(clock === undefined ? {} : { clock }) }),
        expireLeases: async () => {
          serverNow += leaseTimeMs + 1;
        },
      },
      way,
      'orders',
    );
  });
});
