import { describe, expect, it } from 'vitest';
import { CheckpointWriteCondition, RedisCheckpointStorage } from '../../../runtime/index.js';
import { assertRouted } from '../../../runtime/redis/cluster-redirection.js';
import { RedisLeaseStore } from '../../../runtime/redis/redis-lease-store.js';

const moved = (): Error => new Error('MOVED 3999 127.0.0.1:7001');
const replicaInfo = '# Replication\r\nrole:master\r\nconnected_slaves:0\r\n';

/**
 * A stand-in for an ioredis `Cluster` on a stale slot map: every pipeline's first (keyed) command is redirected,
 * and the commands after it answer from the wrong node, as ioredis leaves a pipeline with a command that is not
 * read-only. Records what it is sent and how often it is asked to reload its slot map.
 */
function staleCluster(wrongNode: { wait: number; info: string }) {
  const sent: string[] = [];
  const client = {
    isCluster: true,
    refreshes: 0,
    refreshSlotsCache(): void {
      client.refreshes += 1;
    },
    eval(script: string, _numkeys: number, ...keysAndArgs: string[]): Promise<unknown> {
      sent.push(`eval ${keysAndArgs[0] ?? ''}`);
      return Promise.resolve(script.includes('INCR') ? ['granted', '7'] : 1);
    },
    evalsha(): Promise<unknown> {
      sent.push('evalsha');
      return Promise.reject(new Error('NOSCRIPT'));
    },
    get: (): Promise<null> => Promise.resolve(null),
    info: (): Promise<string> => Promise.resolve(wrongNode.info),
    set: (): Promise<string> => Promise.resolve('OK'),
    del: (): Promise<number> => Promise.resolve(0),
    pipeline() {
      const replies: [Error | null, unknown][] = [];
      const pipeline = {
        get: () => (replies.push([moved(), null]), pipeline),
        set: () => (replies.push([moved(), null]), pipeline),
        del: () => (replies.push([moved(), null]), pipeline),
        eval: () => (replies.push([moved(), null]), pipeline),
        evalsha: () => (replies.push([moved(), null]), pipeline),
        info: () => (replies.push([null, wrongNode.info]), pipeline),
        wait: () => (replies.push([null, wrongNode.wait]), pipeline),
        exec: () => {
          sent.push(`pipeline of ${replies.length}`);
          return Promise.resolve(replies);
        },
      };
      return pipeline;
    },
  };
  return { client, sent };
}

describe('assertRouted', () => {
  it("passes a pipeline whose routing command answered, and throws a redirected one's error after asking for a new slot map", () => {
    const client = { refreshes: 0, refreshSlotsCache: () => (client.refreshes += 1) };
    expect(() => {
      assertRouted(client, [
        [null, -2],
        [null, 1],
      ]);
    }).not.toThrow();
    expect(() => {
      assertRouted(client, [
        [moved(), null],
        [null, 1],
      ]);
    }).toThrow(/^MOVED 3999/u);
    expect(() => {
      assertRouted(client, [[new Error('ASK 3999 127.0.0.1:7002'), null]]);
    }).toThrow(/^ASK/u);
    expect(client.refreshes).toBe(2);
    expect(() => {
      assertRouted(client, [[new Error('CLUSTERDOWN The cluster is down'), null]]);
    }).toThrow(/CLUSTERDOWN/u);
    expect(() => {
      assertRouted({}, null);
    }).toThrow(/no reply to the command that routes it/u);
    expect(client.refreshes).toBe(2);
  });
});

describe('replies of a pipeline a Cluster redirected are never used', () => {
  it("hands a grant back when its [GET, WAIT] pipeline was redirected, though the wrong node's WAIT answered 1", async () => {
    const { client, sent } = staleCluster({ wait: 1, info: replicaInfo });
    const store = new RedisLeaseStore(client, 'lease:', { replicas: 1, timeoutMs: 10 });
    await expect(store.acquire('orders', 'node-a', 10_000)).rejects.toThrow(
      /Lease "lease:\{orders\}:lease" was not taken: token 7 reached no of the 1 replica .*MOVED 3999/u,
    );
    expect(sent).toEqual(['eval lease:{orders}:lease', 'pipeline of 2', 'eval lease:{orders}:lease']);
    expect(client.refreshes).toBe(1);
  });

  it("counts no replicas from the wrong node's INFO: the grant and the conditional write fail, and nothing is sent after", async () => {
    const { client, sent } = staleCluster({ wait: 0, info: replicaInfo });
    const store = new RedisLeaseStore(client, 'lease:', { replicas: 'auto', timeoutMs: 10 });
    await expect(store.acquire('orders', 'node-a', 10_000)).rejects.toThrow(/^MOVED 3999/u);
    const storage = new RedisCheckpointStorage(client);
    await expect(storage.save('orders', 'cp-1', CheckpointWriteCondition.notOlderThan(7))).rejects.toThrow(
      /^MOVED 3999/u,
    );
    // The grant's script and the write's each go out with INFO replication in one pipeline, redirected as a whole.
    expect(sent).toEqual(['pipeline of 2', 'pipeline of 2']);
    expect(client.refreshes).toBe(2);
  });
});
