import type * as IORedis from 'ioredis';
import {
  promotableReplicasIn,
  replicasListedIn,
  sentinelViewIn,
  type SentinelView,
} from 'checkpoint-fencing/store-layout';
import type { RedisAddress } from '../connection-url.js';
import type { ReplicationInspection } from '../operator-backend.js';

/** What `inspect` learns of one master: from itself, from the Cluster's node table, from a Sentinel. */
export interface MasterReplication {
  /** `host:port` as the connection reaches it. */
  readonly master: string;
  /** Its `INFO replication` reply. */
  readonly info: string;
  /** `CONFIG GET min-replicas-*`, or why it was refused (managed Redis often refuses `CONFIG`). */
  readonly minReplicas: { readonly toWrite: number; readonly maxLagSeconds: number } | Error;
  /** On a Cluster, the replicas its node table lists (`CLUSTER REPLICAS`), less those flagged `fail`; or why not. */
  readonly nodeTable: number | Error | undefined;
  /** With `--sentinel`, what that Sentinel says of the master it monitors under this server's run ID. */
  readonly sentinel: { readonly name: string; readonly view: SentinelView } | Error | undefined;
}

const guide = 'doc/redis.md, "Replicas, Sentinel and failover"';

/**
 * Reads what {@link judgeRedisReplication} judges, for `master`: `INFO replication`, `CONFIG GET min-replicas-*`, on a
 * Cluster `CLUSTER REPLICAS` of its own ID, and with a Sentinel connection, that Sentinel's entry for the master whose
 * run ID this server has (`SENTINEL MASTERS`) and its `SENTINEL REPLICAS`.
 */
export async function readMasterReplication(
  master: IORedis.Redis,
  isCluster: boolean,
  sentinel: IORedis.Redis | undefined,
): Promise<MasterReplication> {
  const [info, server, config] = await Promise.all([
    master.info('replication'),
    master.info('server'),
    master.config('GET', 'min-replicas-*').then(minReplicasIn, (error: unknown) => asError(error)),
  ]);
  const nodeTable = isCluster ? await failoverReplicasOf(master).catch((error: unknown) => asError(error)) : undefined;
  const runId = /^run_id:(\w+)\r?$/mu.exec(server)?.[1];
  return {
    master: `${master.options.host ?? '?'}:${master.options.port ?? '?'}`,
    info,
    minReplicas: config,
    nodeTable,
    sentinel:
      sentinel === undefined || runId === undefined
        ? undefined
        : await sentinelEntryOf(sentinel, runId).catch((error: unknown) => asError(error)),
  };
}

/** The application's `waitForReplicas` as `--wait-for-replicas` gives it: `'auto'`, `false`, or a count. */
export type WaitedReplicas = 'auto' | false | number;

/**
 * What `inspect` says about the replication of every master read, judged for an application whose stores run with
 * `waitForReplicas: wait` (ADRs 1104–1106): each master's replicas (listed, in the node table, known to the Sentinel),
 * its `min-replicas-to-write`, and, flagged with `!`, a set-up in which a partition can leave a token or an accepted
 * write on the wrong side (`partition-can-lose-grants`), or that refuses every grant and conditional write.
 */
export function judgeRedisReplication(
  masters: readonly MasterReplication[],
  wait: WaitedReplicas,
  sentinel: RedisAddress | undefined,
): ReplicationInspection {
  const lines: string[] = [];
  let promotableInAll = 0;
  for (const read of masters) {
    const listed = replicasListedIn(read.info);
    const known =
      read.sentinel === undefined || read.sentinel instanceof Error ? 0 : promotableReplicasIn([read.sentinel.view]);
    const promotable = Math.max(listed, typeof read.nodeTable === 'number' ? read.nodeTable : 0, known);
    promotableInAll += promotable;
    const toWrite = read.minReplicas instanceof Error ? undefined : read.minReplicas.toWrite;
    if (promotable === 0 && (toWrite ?? 0) === 0 && read.sentinel === undefined && !backlogActiveIn(read.info)) {
      // A server that has had no replica (a development machine, a cache): nothing to say.
      continue;
    }
    lines.push(`replication: master ${read.master}: ${describeMaster(read, listed, known, sentinel)}`);
    const waitsFor = wait === 'auto' ? promotable : wait === false ? 0 : wait;
    if (waitsFor < promotable && (toWrite === undefined || toWrite < promotable)) {
      lines.push(
        `! replication: partition-can-lose-grants: master ${read.master} has ${promotable} ${promotable === 1 ? 'replica' : 'replicas'} that could be promoted, ` +
          `the application waits for ${waitsFor} (--wait-for-replicas ${String(wait)}), and ` +
          `${toWrite === undefined ? 'whether min-replicas-to-write stops it is unknown (CONFIG GET refused)' : `min-replicas-to-write ${toWrite} lets it write with fewer`}: ` +
          'a partition that cuts it off from any of them can grant a token the other side grants again, and accept writes the other side never sees. ' +
          `Leave waitForReplicas at 'auto' (the default) in the application, or set min-replicas-to-write ${promotable} on the server (${guide})`,
      );
    }
    if (typeof wait === 'number' && wait > listed) {
      lines.push(
        `! replication: master ${read.master} lists ${listed} ${listed === 1 ? 'replica' : 'replicas'} and the application waits for ${wait}: ` +
          'every grant and conditional write times out and fails',
      );
    }
    if (toWrite !== undefined && toWrite > listed) {
      lines.push(
        `! replication: master ${read.master} has min-replicas-to-write ${toWrite} and lists ${listed} ${listed === 1 ? 'replica' : 'replicas'}: it refuses every write`,
      );
    }
  }
  return {
    lines,
    needsAttention: lines.some((line) => line.startsWith('!')),
    // Redis replicates asynchronously; WAIT is what the application waits with.
    replicas: { synchronous: 0, asynchronous: promotableInAll },
  };
}

function describeMaster(
  read: MasterReplication,
  listed: number,
  known: number,
  sentinel: RedisAddress | undefined,
): string {
  const lines = [...read.info.matchAll(/^slave\d+:(.*)$/gmu)].map(([, fields = '']) => describeReplica(fields));
  const parts = [
    listed === 0
      ? `lists no replica${backlogActiveIn(read.info) ? ' (its replication backlog is active: it had one within repl-backlog-ttl, or was one)' : ''}`
      : `lists ${listed} ${listed === 1 ? 'replica' : 'replicas'} (${lines.join(', ')})`,
  ];
  if (read.nodeTable instanceof Error) {
    parts.push(`the Cluster's node table unknown (${read.nodeTable.message})`);
  } else if (read.nodeTable !== undefined) {
    parts.push(`the Cluster's node table ${read.nodeTable}`);
  }
  if (read.sentinel instanceof Error) {
    parts.push(`Sentinel ${sentinel?.display ?? ''}: ${read.sentinel.message}`);
  } else if (read.sentinel !== undefined) {
    const down = read.sentinel.view.replicas.filter((replica) => replica.down).length;
    parts.push(
      `Sentinel ${sentinel?.display ?? ''} knows ${known} (${read.sentinel.name}${down === 0 ? '' : `, ${down} of them down`})`,
    );
  }
  parts.push(
    read.minReplicas instanceof Error
      ? `min-replicas-to-write unknown (${read.minReplicas.message})`
      : read.minReplicas.toWrite === 0
        ? 'min-replicas-to-write 0 (it writes with no replica)'
        : `min-replicas-to-write ${read.minReplicas.toWrite} (max lag ${read.minReplicas.maxLagSeconds} s)`,
  );
  return parts.join('; ');
}

/** `ip:port state, lag N s` of a `slaveN:` line's fields; a backup taken with `redis-cli --rdb` (port 0) says so. */
function describeReplica(fields: string): string {
  const field = (name: string): string => new RegExp(`(?:^|,)${name}=([^,]*)`, 'u').exec(fields)?.[1] ?? '?';
  if (field('port') === '0') {
    return `a backup (redis-cli --rdb), ${field('state')}`;
  }
  return `${field('ip')}:${field('port')} ${field('state')}, lag ${field('lag')} s`;
}

/** `min-replicas-to-write` and `min-replicas-max-lag` of a `CONFIG GET min-replicas-*` reply. */
function minReplicasIn(reply: unknown): { toWrite: number; maxLagSeconds: number } {
  const flat = Array.isArray(reply) ? reply.map(String) : [];
  const value = (name: string): number => Number(flat[flat.indexOf(name) + 1] ?? 0);
  return { toWrite: value('min-replicas-to-write'), maxLagSeconds: value('min-replicas-max-lag') };
}

/** The replicas `master`'s node table lists for it, less those it flags `fail` (never promoted while so). */
async function failoverReplicasOf(master: IORedis.Redis): Promise<number> {
  const id = String(await master.call('CLUSTER', 'MYID'));
  const replicas = (await master.call('CLUSTER', 'REPLICAS', id)) as string[];
  return replicas.filter((line) => !(line.split(' ')[2] ?? '').split(',').includes('fail')).length;
}

/** `sentinel`'s view of the master it monitors under `runId`, with that master's name. */
async function sentinelEntryOf(
  sentinel: IORedis.Redis,
  runId: string,
): Promise<{ readonly name: string; readonly view: SentinelView }> {
  const masters = (await sentinel.call('SENTINEL', 'MASTERS')) as unknown[][];
  const entry = masters.find((fields) => fields[fields.indexOf('runid') + 1] === runId);
  const name = entry?.[entry.indexOf('name') + 1];
  if (entry === undefined || typeof name !== 'string') {
    throw new Error(`it monitors no master with this server's run ID ${runId}`);
  }
  return { name, view: sentinelViewIn(entry, await sentinel.call('SENTINEL', 'REPLICAS', name)) };
}

function backlogActiveIn(info: string): boolean {
  return /^repl_backlog_active:1\r?$/mu.test(info);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
