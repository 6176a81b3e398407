import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteNotReplicatedError,
  RedisCheckpointStorage,
  RedisLeaseStrategy,
} from '../../../runtime/index.js';
import {
  replicationInfo,
  startReplicatedRedis,
  waitUntilReplicating,
  withAdminConnection,
  type ReplicatedRedisProcess,
} from '../../support/redis/index.js';

// A failover that happens while the old master lives (Sentinels that lost sight of a slow master, a partition): its
// replica is promoted and drops the link, and the old master, still a master, counts no replica until the Sentinels
// reach it and make it a replica of the new one, which throws away whatever it acknowledged meanwhile. Under 'auto'
// a master that counts no replica is not waited for, so those grants and writes were acknowledged and then lost: the
// same token minted again on the new master (ADR 1102). Here without Sentinels, the failover done by hand, so each
// step happens when the test says. A private pair: the suite turns its replica into a master.

const { notOlderThan } = CheckpointWriteCondition;
let servers: ReplicatedRedisProcess | undefined;
const clients: Redis[] = [];

// A pair per case: the replication IDs seen with a replica are remembered process-wide, so a case on a master an
// earlier case already read would not show what a node learns by itself.
beforeEach(async () => {
  servers = await startReplicatedRedis();
});

afterEach(async () => {
  for (const client of clients.splice(0)) {
    client.disconnect();
  }
  await servers?.stop();
  servers = undefined;
});

function started(): ReplicatedRedisProcess {
  if (servers === undefined) {
    throw new Error('The master and replica of this case did not start; see the beforeEach error.');
  }
  return servers;
}

function connect(server: 'master' | 'replica'): Redis {
  const address = started()[server];
  const client = new Redis({ host: address.host, port: address.port });
  clients.push(client);
  return client;
}

/** Promotes the replica as a failover would, leaving the old master running, and waits until it counts no replica. */
async function promoteReplicaBehindTheMastersBack(): Promise<void> {
  const { master, replica } = started();
  await withAdminConnection(replica, (admin) => admin.call('REPLICAOF', 'NO', 'ONE'));
  for (let attempt = 0; !/^connected_slaves:0\r?$/mu.test(await replicationInfo(master)); attempt += 1) {
    if (attempt === 200) {
      throw new Error(
        `Master ${master.port} still counts its promoted replica after 4 s:\n${await replicationInfo(master)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("'auto' on a master whose replica was promoted while it lived", () => {
  it('refuses its grants and rejects its conditional writes until it is a replica again; the new master grants once it has one', async () => {
    const onOldMaster = connect('master');
    const strategy = new RedisLeaseStrategy(onOldMaster, { keyPrefix: 'deposed:', leaseTimeMs: 5_000 });
    const storage = new RedisCheckpointStorage(onOldMaster, {
      keyPrefix: 'deposed-cp:',
      versionKeyPrefix: 'deposed-v:',
    });
    expect(await strategy.register('orders', 'node-a')).toBe(true);
    expect(strategy.fencingToken('orders')).toBe(0n);
    await storage.save('orders', 'position-1', notOlderThan(0n));

    await promoteReplicaBehindTheMastersBack();
    // Twice each: every grant and write reads INFO replication right behind it, lists no replica, and waits for the one
    // the master had under its replication ID (without ADR 1102 the write was accepted).
    for (let attempt = 0; attempt < 2; attempt += 1) {
      expect(await strategy.register(`payments-${attempt}`, 'node-a')).toBe(false);
      await expect(storage.save('orders', `position-${attempt + 2}`, notOlderThan(0n))).rejects.toBeInstanceOf(
        CheckpointWriteNotReplicatedError,
      );
    }

    // The promoted replica has a replication history of its own and no replica yet, but an active replication backlog
    // (it was a replica): with no Sentinel or Cluster to ask, this client cannot tell it from a master cut off from a
    // replica that was promoted, so it grants nothing until a replica attaches (ADR 1106). It has what the old master
    // acknowledged before the promotion (the checkpoint) and nothing it refused after.
    const onNewMaster = connect('replica');
    const successor = new RedisLeaseStrategy(onNewMaster, {
      keyPrefix: 'deposed:',
      leaseTimeMs: 5_000,
      onError: () => undefined,
    });
    expect(await successor.register('payments-0', 'node-b')).toBe(false);
    expect(
      await new RedisCheckpointStorage(onNewMaster, { keyPrefix: 'deposed-cp:', versionKeyPrefix: 'deposed-v:' }).read(
        'orders',
      ),
    ).toBe('position-1');

    // The old master, made a replica of the new one, has the new one's data, and the new one waits for it from now on.
    const { master, replica } = started();
    await withAdminConnection(master, (admin) => admin.call('REPLICAOF', replica.host, String(replica.port)));
    await waitUntilReplicating(replica, master);
    const waitsBefore = await waitCalls(onNewMaster);
    expect(await successor.register('invoices', 'node-b')).toBe(true);
    expect(successor.fencingToken('invoices')).toBe(0n);
    expect(await waitCalls(onNewMaster)).toBe(waitsBefore + 1);
    await Promise.all([strategy.shutdown(), successor.shutdown()]);
  });

  it('refuses the grants of a node that only ever found the lease taken before the failover', async () => {
    // The lease is held through a strategy that never reads the replica count, so only the standby's polling reads it.
    const holder = new RedisLeaseStrategy(connect('master'), {
      keyPrefix: 'standby:',
      leaseTimeMs: 30_000,
      waitForReplicas: false,
    });
    expect(await holder.register('orders', 'node-a')).toBe(true);
    const standby = new RedisLeaseStrategy(connect('master'), { keyPrefix: 'standby:', leaseTimeMs: 5_000 });
    expect(await standby.register('orders', 'node-b')).toBe(false);

    await promoteReplicaBehindTheMastersBack();
    expect(await standby.register('payments', 'node-b')).toBe(false);
    expect(await standby.register('invoices', 'node-b')).toBe(false);
    await Promise.all([holder.shutdown(), standby.shutdown()]);
  });
});

async function waitCalls(client: Redis): Promise<number> {
  return Number(/^cmdstat_wait:calls=(\d+)/mu.exec(await client.info('commandstats'))?.[1] ?? 0);
}
