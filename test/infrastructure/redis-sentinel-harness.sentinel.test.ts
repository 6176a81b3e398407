import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { replicationInfo, sentinelForThisFile, withAdminConnection } from '../support/redis/index.js';

// The Sentinel test support on its own: a stable topology on loopback only, a replication link that can be cut like a
// partition, and failovers that the support drives and recovers from.

const { topology: started, track } = sentinelForThisFile();

function throughSentinels(): Redis {
  const client = new Redis({ ...started().sentinelOptions, sentinels: [...started().sentinelOptions.sentinels] });
  return track(client);
}

describe('startRedisSentinel', () => {
  it('starts a master, a replica and three Sentinels that agree, every address on 127.0.0.1', async () => {
    const { sentinels, masterName } = started();
    expect(sentinels).toHaveLength(3);
    for (const sentinel of sentinels) {
      expect(sentinel.host).toBe('127.0.0.1');
      await withAdminConnection(sentinel, async (admin) => {
        const master = (await admin.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName)) as string[];
        expect(master).toEqual(['127.0.0.1', String(started().master().port)]);
        const peers = (await admin.call('SENTINEL', 'SENTINELS', masterName)) as string[][];
        const replicas = (await admin.call('SENTINEL', 'REPLICAS', masterName)) as string[][];
        for (const entry of [...peers, ...replicas]) {
          expect(entry[entry.indexOf('ip') + 1]).toBe('127.0.0.1');
        }
        expect(peers).toHaveLength(2);
        expect(replicas.map((entry) => entry[entry.indexOf('port') + 1])).toEqual([String(started().replica().port)]);
      });
    }
    expect(await replicationInfo(started().replica())).toMatch(/role:slave[\s\S]*master_link_status:up/u);
  });

  it('gives clients that find the master through the Sentinels', async () => {
    const client = throughSentinels();
    await client.set('harness:through-sentinels', 'yes');
    expect(await client.info('replication')).toMatch(/^role:master/mu);
  });

  it('cuts the replication link like a partition: the master keeps its replica, which neither gets nor acknowledges writes', async () => {
    const topology = started();
    await withAdminConnection(topology.master(), async (admin) => {
      await started().cutReplicationLink();
      try {
        await admin.set('harness:cut', 'written during the cut');
        expect(await admin.call('WAIT', '1', '200')).toBe(0);
        expect(await admin.info('replication')).toMatch(/^connected_slaves:1\r?$/mu);
        expect(await withAdminConnection(topology.replica(), (onReplica) => onReplica.get('harness:cut'))).toBeNull();
      } finally {
        await started().healReplicationLink();
      }
      expect(await admin.call('WAIT', '1', '5000')).toBe(1);
    });
    expect(await withAdminConnection(topology.replica(), (onReplica) => onReplica.get('harness:cut'))).toBe(
      'written during the cut',
    );
  });

  it('fails over when the master is killed, in a few seconds, and recovers the killed server as the new replica', async () => {
    const client = throughSentinels();
    await client.set('harness:before-failover', 'kept');
    const { killed, promoted, elapsedMs } = await started().killMaster();
    expect(started().master()).toBe(promoted);
    expect(elapsedMs).toBeLessThan(30_000);
    expect(await client.get('harness:before-failover')).toBe('kept');
    await client.set('harness:after-failover', 'on the new master');
    await started().recover();
    expect(started().replica()).toBe(killed);
    expect(await replicationInfo(killed)).toMatch(/role:slave[\s\S]*master_link_status:up/u);
    // And back again: the topology survives repeated failovers.
    const second = await started().killMaster();
    expect(second.promoted).toBe(killed);
    expect(await client.get('harness:after-failover')).toBe('on the new master');
    await started().recover();
  });

  it('fails over a stopped master, continues it as a master with no replica, and recover() waits until it is a replica', async () => {
    const { master, replica } = { master: started().master(), replica: started().replica() };
    const { killed, promoted } = await started().pauseMaster();
    expect([killed, promoted]).toEqual([master, replica]);
    expect(started().master()).toBe(replica);
    // Deposed while it lives: it answers again, still as a master, and counts no replica.
    expect(await replicationInfo(master)).toMatch(/role:master[\s\S]*connected_slaves:0/u);
    await started().recover();
    expect(started().replica()).toBe(master);
    expect(await replicationInfo(master)).toMatch(/role:slave[\s\S]*master_link_status:up/u);
  }, 90_000);

  it('with followSpontaneousFailover, recover() adopts a failover the Sentinels made on their own', async () => {
    const { master, replica } = { master: started().master(), replica: started().replica() };
    const [sentinel] = started().sentinels;
    if (sentinel === undefined) {
      throw new Error('The topology has no Sentinel.');
    }
    // A failover nobody drove through the harness, as a Sentinel starts one when a loaded machine stalls the master.
    await withAdminConnection(sentinel, (client) => client.call('SENTINEL', 'FAILOVER', started().masterName));
    await started().recover({ followSpontaneousFailover: true });
    expect(started().master()).toBe(replica);
    expect(started().replica()).toBe(master);
    expect(await replicationInfo(master)).toMatch(/role:slave[\s\S]*master_link_status:up/u);
  }, 60_000);
});
