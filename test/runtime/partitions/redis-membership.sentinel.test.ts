import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisMembership } from '../../../runtime/index.js';
import { describeMembershipConformance } from '../../../runtime/testing/index.js';
import { sentinelForThisFile } from '../../support/redis/index.js';

// RedisMembership over ioredis clients that find the master through Sentinel. A topology of its own: the last case
// fails the master over.

const { topology: started, track } = sentinelForThisFile();

function sentinelClient(): Redis {
  const { sentinelOptions } = started();
  return track(
    new Redis({ sentinels: [...sentinelOptions.sentinels], name: sentinelOptions.name, commandTimeout: 2_000 }),
  );
}

describeMembershipConformance('RedisMembership over a Sentinel client', async () => {
  const client = sentinelClient();
  await client.ping();
  return { node: () => new RedisMembership(client, { memberTimeMs: 500 }) };
});

describe('RedisMembership across a Sentinel failover', () => {
  it('keeps its members and the recorded partition count on the promoted master', async () => {
    const client = sentinelClient();
    const membership = new RedisMembership(client, { memberTimeMs: 30_000 });
    const member = await membership.join('orders', 'node-a', 16);
    await member.heartbeat([1, 2]);
    // WAIT counts this connection's writes: the join and the heartbeat are on the replica before the master dies.
    expect(await client.wait(1, 2_000)).toBe(1);
    await started().killMaster();
    const view = await member.heartbeat([1, 2, 3]);
    expect(view).toEqual({
      renewed: true,
      members: [{ nodeId: 'node-a', memberForMs: expect.any(Number) as number, owned: [1, 2, 3] }],
    });
    await expect(membership.join('orders', 'node-b', 32)).rejects.toThrow(/recorded with 16/u);
  });
});
