import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  replicationInfo,
  startRedisSentinel,
  withAdminConnection,
  type PartitionSide,
  type RedisSentinelTopology,
} from '../support/redis/index.js';

// The Sentinel test support's partitions: a master, two replicas and three Sentinels, each behind a door it announces,
// so that a partition can cut the master, a replica and a Sentinel off from the rest while every process runs.

let topology: RedisSentinelTopology | undefined;
const clients: Redis[] = [];

beforeAll(async () => {
  topology = await startRedisSentinel({ replicas: 2, partitionable: true });
});

afterAll(async () => {
  for (const client of clients.splice(0)) {
    client.disconnect();
  }
  await topology?.stop();
});

function started(): RedisSentinelTopology {
  if (topology === undefined) {
    throw new Error('The Sentinel topology of this file did not start; see the beforeAll error.');
  }
  return topology;
}

/** A client on `side` that finds the master through the Sentinels it reaches from there. */
function clientOn(side: PartitionSide): Redis {
  const { sentinels, name } = started().sentinelOptionsOn(side);
  const client = new Redis({ sentinels: [...sentinels], name, sentinelCommandTimeout: 500, connectTimeout: 500 });
  client.on('error', () => undefined);
  clients.push(client);
  return client;
}

describe('startRedisSentinel({ replicas: 2, partitionable: true })', () => {
  it('starts a master with two replicas, every server and Sentinel known by the port of its door', async () => {
    const { sentinels, masterName } = started();
    const replicaPorts = started()
      .replicas()
      .map(({ announcedPort }) => String(announcedPort));
    expect(replicaPorts).toHaveLength(2);
    for (const sentinel of sentinels) {
      await withAdminConnection(sentinel, async (admin) => {
        const master = (await admin.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName)) as string[];
        expect(master).toEqual(['127.0.0.1', String(started().master().announcedPort)]);
        const replicas = (await admin.call('SENTINEL', 'REPLICAS', masterName)) as string[][];
        expect(replicas.map((entry) => entry[entry.indexOf('port') + 1]).sort()).toEqual([...replicaPorts].sort());
      });
    }
    expect(await replicationInfo(started().master())).toMatch(/connected_slaves:2/u);
  });

  it('cuts the master, a replica and a Sentinel off: the majority promotes the other replica while the old master lives', async () => {
    const old = started().master();
    const [withMaster, other] = started().replicas();
    if (withMaster === undefined || other === undefined) {
      throw new Error('The topology has not two replicas.');
    }
    await clientOn('minority').set('harness:before', 'both sides have it');
    const { killed, promoted, elapsedMs } = await started().partitionMaster({
      withMaster: [withMaster],
      sentinelsWithMaster: 1,
      onCut: async ([majorityReplica]) => {
        expect(majorityReplica).toBe(other);
        await withAdminConnection(old, async (admin) => {
          await admin.set('harness:minority', 'written during the cut');
          // The replica on the master's side acknowledges; the other neither gets the write nor acknowledges it.
          expect(await admin.call('WAIT', '1', '1000')).toBe(1);
          expect(await admin.call('WAIT', '2', '200')).toBe(1);
        });
      },
    });
    expect([killed, promoted]).toEqual([old, other]);
    expect(elapsedMs).toBeLessThan(30_000);
    // The old master answers its side as a master and lists both replicas, the cut one as online until it times out.
    expect(await replicationInfo(old)).toMatch(/role:master[\s\S]*connected_slaves:2/u);
    expect(await clientOn('minority').get('harness:minority')).toBe('written during the cut');
    expect(await clientOn('majority').get('harness:minority')).toBeNull();
    expect(await clientOn('majority').get('harness:before')).toBe('both sides have it');
    started().dropCutReplicas();
    await expect
      .poll(async () => /connected_slaves:(\d+)/u.exec(await replicationInfo(old))?.[1], { timeout: 5_000 })
      .toBe('1');

    await started().recover();
    expect(started().master()).toBe(other);
    for (const server of [old, withMaster]) {
      expect(await replicationInfo(server)).toMatch(/role:slave[\s\S]*master_link_status:up/u);
    }
    // What the minority's master acknowledged is gone: it synced from the new master.
    expect(await withAdminConnection(old, (admin) => admin.get('harness:minority'))).toBeNull();
  }, 90_000);
});
