import type * as IORedis from 'ioredis';
import {
  CheckpointWriteConditionNotFulfilledError,
  RedisCheckpointStorage,
  RedisLeaseStrategy,
  type WaitForReplicasOption,
} from 'checkpoint-fencing';
import {
  CheckpointKeyLayout,
  defaultRedisLeaseKeyPrefix,
  defaultRedisMembershipKeyPrefix,
  defaultRedisVersionKeyPrefix,
  isCanonicalDecimal,
  parseRedisLeaseValue,
  redisLeaseKeys,
  storedVersion,
} from 'checkpoint-fencing/store-layout';
import type { RedisAddress } from '../connection-url.js';
import type {
  InspectedBatch,
  Inspection,
  InspectionCoverage,
  OperatorBackend,
  ReplicationInspection,
} from '../operator-backend.js';
import type { RecordedMembership } from '../partitioned-subscription-health.js';
import type { ScanProgress } from '../scan-progress.js';
import type { RecordedLease, SubscriptionState } from '../subscription-health.js';
import { connectedServer, connectRedis, type IORedisModule, type RedisConnection } from './redis-connection.js';
import {
  idOfUnclaimedCheckpointKey,
  keysRankedAbove,
  recogniseKeys,
  scanEveryMaster,
  UnclaimedVersionKeys,
  type NamingKey,
  type RedisKeyspaceLayout,
} from './redis-keyspace-scan.js';
import {
  partitionCountKeyPattern,
  readRedisMemberships,
  subscriptionOfPartitionCountKey,
} from './redis-membership-reads.js';
import { getEach, type StringRead } from './redis-string-reads.js';
import { judgeRedisReplication, readMasterReplication, type WaitedReplicas } from './redis-replication.js';

/** The `--redis` settings: the layout of the storage and the strategy the application runs with. */
export interface RedisOperatorOptions {
  readonly cluster: boolean;
  readonly keyPrefix: string | undefined;
  readonly versionKeyPrefix: string | undefined;
  readonly leaseKeyPrefix: string | undefined;
  /** The `keyPrefix` of the application's `RedisMembership`, for its partitioned subscriptions. */
  readonly membershipKeyPrefix: string | undefined;
  readonly timeoutMs: number;
  /** The application's `waitForReplicas`: what `inspect` judges replication by, and what `repair` and `reset` wait with. */
  readonly waitForReplicas: WaitedReplicas;
  /** `--sentinel`: a Sentinel monitoring the server, asked which replicas it knows. */
  readonly sentinel: RedisAddress | undefined;
}

/** Ids read at once: one `MGET` of their keys and a `PTTL` each, sent together. */
const readBatch = 1_000;

/** Keys `#read` reads of each subscription: checkpoint, version, lease, token. */
const keysRead = 4;

/** One subscription as read, and whether its version key exists (holding a version or not). */
interface ReadSubscription {
  readonly state: SubscriptionState;
  readonly versionKeyStored: boolean;
}

/**
 * The operator commands over a Redis server or Cluster. Reads go through the storage's own `read` and `writeVersion`
 * and the strategy's key layout; `repair` and `reset` call the strategy's `raiseFencingTokenAbove` and the storage's
 * `delete`. The storage is Cluster-safe on a Cluster and `forStandalone` elsewhere, as an application would build it.
 */
export class RedisOperatorBackend implements OperatorBackend {
  readonly #connection: RedisConnection;
  readonly #layout: CheckpointKeyLayout;
  readonly #leaseKeyPrefix: string;
  readonly #storage: RedisCheckpointStorage;
  readonly #options: RedisOperatorOptions;
  readonly #sentinel: IORedis.Redis | undefined;

  private constructor(
    connection: RedisConnection,
    options: RedisOperatorOptions,
    readonly target: string,
    sentinel: IORedis.Redis | undefined,
  ) {
    this.#connection = connection;
    this.#options = options;
    this.#sentinel = sentinel;
    const storageOptions = {
      ...(options.keyPrefix === undefined ? {} : { keyPrefix: options.keyPrefix }),
      ...(options.versionKeyPrefix === undefined ? {} : { versionKeyPrefix: options.versionKeyPrefix }),
      waitForReplicas: waitForReplicasOption(options.waitForReplicas),
    };
    this.#storage = connection.isCluster
      ? new RedisCheckpointStorage(connection.client, storageOptions)
      : RedisCheckpointStorage.forStandalone(connection.client, storageOptions);
    this.#layout = checkpointKeyLayout(options);
    this.#leaseKeyPrefix = options.leaseKeyPrefix ?? defaultRedisLeaseKeyPrefix;
  }

  /** Connects to `address` (and, with `cluster`, to the masters it announces only). @throws OperatorError */
  static async connect(
    ioredis: IORedisModule,
    address: RedisAddress,
    options: RedisOperatorOptions,
  ): Promise<RedisOperatorBackend> {
    const connection = await connectRedis(ioredis, address, options);
    let sentinel: IORedis.Redis | undefined;
    try {
      sentinel =
        options.sentinel === undefined
          ? undefined
          : await connectedServer(ioredis, options.sentinel, options.timeoutMs);
    } catch (error) {
      connection.close();
      throw error;
    }
    return new RedisOperatorBackend(connection, options, address.display, sentinel);
  }

  /** Each master's replicas and `min-replicas-to-write`, judged for the application's `waitForReplicas`. */
  async inspectReplication(): Promise<ReplicationInspection> {
    try {
      const masters = await Promise.all(
        this.#connection
          .masters()
          .map((master) => readMasterReplication(master, this.#connection.isCluster, this.#sentinel)),
      );
      return judgeRedisReplication(masters, this.#options.waitForReplicas, this.#options.sentinel);
    } catch (error) {
      throw this.#connection.failure(error);
    }
  }

  async inspect(ids: readonly string[]): Promise<Inspection> {
    try {
      const subscriptions: SubscriptionState[] = [];
      for (let start = 0; start < ids.length; start += readBatch) {
        const read = await this.#read(ids.slice(start, start + readBatch));
        subscriptions.push(...read.map(({ state }) => state));
      }
      return { subscriptions, coverage: `${ids.length} ids read` };
    } catch (error) {
      throw this.#connection.failure(error);
    }
  }

  /**
   * Scans every master and, for each `SCAN` reply, reads and reports the subscriptions its keys list before asking for
   * the next. A subscription is listed by the first of its keys by rank that it has (`keysRankedAbove`), so it is
   * listed once without the scan remembering it. Version keys that hold only a hash of their id are kept until a
   * subscription claims them; under a `keyPrefix` they are only counted (another prefix's version keys share the
   * version-key prefix, and no key of ours names them).
   */
  async inspectEverySubscription(progress: ScanProgress, report: InspectedBatch): Promise<InspectionCoverage> {
    const layout = { checkpoints: this.#layout, leaseKeyPrefix: this.#leaseKeyPrefix };
    const prefixed = this.#layout.keyPrefix !== '';
    const unclaimed = new UnclaimedVersionKeys(this.#layout);
    /** Under a keyPrefix: unnamed version keys scanned, less those a subscription of the prefix holds. */
    let outsidePrefix = 0;
    try {
      const masters = this.#connection.masters();
      let keysScanned = await scanEveryMaster(masters, progress, async (keys) => {
        const recognised = recogniseKeys(keys, layout);
        const read = await this.#read(await this.#listed(recognised.naming, layout));
        await report(read.map(({ state }) => state));
        for (const { state, versionKeyStored } of read) {
          const versionKey = state.records['version'] ?? '';
          if (versionKeyStored && this.#layout.subscriptionIdOfVersionKey(versionKey) !== state.id) {
            if (prefixed) {
              outsidePrefix -= 1;
            } else {
              unclaimed.claim(versionKey);
            }
          }
        }
        if (prefixed) {
          outsidePrefix += recognised.unnamedVersionKeys.length;
        } else {
          unclaimed.scanned(recognised.unnamedVersionKeys);
        }
      });
      // Under a keyPrefix every checkpoint key named its id already; without one, look for the tagged ones.
      if (!prefixed && !unclaimed.isEmpty) {
        keysScanned += await scanEveryMaster(masters, progress, async (keys) => {
          const ids = keys.flatMap((key) => idOfUnclaimedCheckpointKey(key, this.#layout, unclaimed) ?? []);
          await report((await this.#read(ids)).map(({ state }) => state));
        });
      }
      progress.finish('keys scanned');
      const orphans = prefixed ? [] : unclaimed.remaining();
      for (let start = 0; start < orphans.length; start += readBatch) {
        await report(await this.#orphans(orphans.slice(start, start + readBatch)));
      }
      const scanned = `${keysScanned.toLocaleString('en-US')} keys scanned${this.#connection.isCluster ? ` on ${masters.length} masters` : ''}`;
      const leftOut =
        prefixed && outsidePrefix > 0
          ? `, ${outsidePrefix.toLocaleString('en-US')} ${outsidePrefix === 1 ? 'version key' : 'version keys'} outside --key-prefix left out`
          : '';
      return { coverage: scanned + leftOut };
    } catch (error) {
      throw this.#connection.failure(error);
    }
  }

  /** The memberships of `names`, or, with none, of every partition-count key a `SCAN MATCH` finds on every master. */
  async inspectMemberships(
    names: readonly string[] | undefined,
    progress: ScanProgress,
  ): Promise<RecordedMembership[]> {
    const keyPrefix = this.#options.membershipKeyPrefix ?? defaultRedisMembershipKeyPrefix;
    try {
      let found = names;
      if (found === undefined) {
        const scanned: string[] = [];
        await scanEveryMaster(
          this.#connection.masters(),
          progress,
          async (keys) => {
            scanned.push(...keys.flatMap((key) => subscriptionOfPartitionCountKey(key, keyPrefix) ?? []));
          },
          partitionCountKeyPattern(keyPrefix),
        );
        found = scanned.sort();
      }
      return await readRedisMemberships(this.#connection.client, keyPrefix, found);
    } catch (error) {
      throw this.#connection.failure(error);
    }
  }

  async raiseFencingTokenAbove(id: string, version: bigint): Promise<void> {
    const strategy = new RedisLeaseStrategy(this.#connection.client, {
      keyPrefix: this.#leaseKeyPrefix,
      waitForReplicas: waitForReplicasOption(this.#options.waitForReplicas),
    });
    try {
      await strategy.raiseFencingTokenAbove(id, version);
    } catch (error) {
      throw this.#connection.failure(error);
    } finally {
      await strategy.shutdown();
    }
  }

  async advanceWriteVersion(id: string, version: bigint): Promise<void> {
    try {
      await this.#storage.advanceWriteVersion(id, version);
    } catch (error) {
      throw error instanceof CheckpointWriteConditionNotFulfilledError ? error : this.#connection.failure(error);
    }
  }

  async deleteCheckpointKeepingVersion(id: string): Promise<void> {
    try {
      await this.#storage.deleteCheckpointKeepingVersion(id);
    } catch (error) {
      throw this.#connection.failure(error);
    }
  }

  async deleteCheckpoint(id: string): Promise<void> {
    try {
      await this.#storage.delete(id);
    } catch (error) {
      throw this.#connection.failure(error);
    }
  }

  describeRecords(id: string): string {
    const { checkpointKey, versionKey } = this.#layout.keysFor(id);
    return `keys ${JSON.stringify(checkpointKey)} and ${JSON.stringify(versionKey)}`;
  }

  async close(): Promise<void> {
    this.#connection.close();
    this.#sentinel?.disconnect();
  }

  /**
   * The ids that `naming` lists: those with none of their keys ranked above the one scanned. A key of another type
   * ranked above exists all the same: the subscription is listed by that key, with the problem.
   */
  async #listed(naming: readonly NamingKey[], layout: RedisKeyspaceLayout): Promise<string[]> {
    const above: string[] = [];
    const ends: number[] = [];
    for (const key of naming) {
      above.push(...keysRankedAbove(key, layout));
      ends.push(above.length);
    }
    const values = await getEach(this.#connection.client, this.#connection.isCluster, above);
    const ids: string[] = [];
    let start = 0;
    for (const [index, key] of naming.entries()) {
      const end = ends[index] ?? start;
      let exists = false;
      for (let position = start; position < end && !exists; position += 1) {
        exists = values[position] !== null;
      }
      if (!exists) {
        ids.push(key.id);
      }
      start = end;
    }
    return ids;
  }

  /**
   * Reads `ids`: the checkpoint, version, lease and token keys of all of them in one go (`getEach`), and the `PTTL` of
   * each lease key, sent with it. The version is read as the storage's `writeVersion` reads it.
   */
  async #read(ids: readonly string[]): Promise<ReadSubscription[]> {
    const client = this.#connection.client;
    const keys: string[] = [];
    const leaseTtls: Promise<number>[] = [];
    for (const id of ids) {
      const { checkpointKey, versionKey } = this.#layout.keysFor(id);
      const leaseKeys = redisLeaseKeys(this.#leaseKeyPrefix, id);
      keys.push(checkpointKey, versionKey, leaseKeys.lease, leaseKeys.token);
      leaseTtls.push(client.pttl(leaseKeys.lease));
    }
    const [values, ttls] = await Promise.all([
      getEach(client, this.#connection.isCluster, keys),
      Promise.all(leaseTtls),
    ]);
    return ids.map((id, index) => {
      const at = index * keysRead;
      return this.#subscription(id, keys.slice(at, at + keysRead), values.slice(at, at + keysRead), ttls[index] ?? -2);
    });
  }

  /** One subscription from its keys, in the order of `#read`, what they hold and its lease's time to live. */
  #subscription(
    id: string,
    [checkpointKey = '', versionKey = '', leaseKey = '', tokenKey = '']: readonly string[],
    [checkpointRead, versionRead, leaseRead, counterRead]: readonly StringRead[],
    leaseTtl: number,
  ): ReadSubscription {
    const problems: string[] = [];
    // A value no storage or strategy writes is reported on its row, not as a failure of the whole inspection.
    const text = (read: StringRead | undefined): string | undefined => {
      if (read instanceof Error) {
        problems.push(`a key of ${id} is not a string: ${read.message}`);
        return undefined;
      }
      return read ?? undefined;
    };
    const checkpoint = text(checkpointRead);
    const versionText = text(versionRead);
    let version: bigint | undefined;
    try {
      version = versionText === undefined ? undefined : storedVersion(versionText, versionKey);
    } catch (error) {
      problems.push((error as Error).message);
    }
    const leaseText = text(leaseRead);
    const counterText = text(counterRead);
    const state = {
      id,
      checkpoint,
      storedVersion: version,
      lease: recordedLease(leaseText, leaseTtl, leaseKey, problems),
      tokenCounter: tokenCounter(counterText, tokenKey, problems),
      clusterUnaligned: this.#connection.isCluster && !CheckpointKeyLayout.clusterAligned(checkpointKey),
      records: { checkpoint: checkpointKey, version: versionKey, lease: leaseKey, token: tokenKey },
      problems,
    };
    // A version key read as anything, a version or not, exists.
    return { state, versionKeyStored: versionRead !== null && versionRead !== undefined };
  }

  /** Version keys whose id nothing in the keyspace tells, as rows of their own. */
  async #orphans(versionKeys: readonly string[]): Promise<SubscriptionState[]> {
    const values = await getEach(this.#connection.client, this.#connection.isCluster, versionKeys);
    return versionKeys.map((versionKey, index) => {
      const problems: string[] = [];
      const stored = values[index] ?? null;
      let version: bigint | undefined;
      try {
        if (stored instanceof Error) {
          problems.push(`version key ${JSON.stringify(versionKey)} is not a string: ${stored.message}`);
        } else {
          version = stored === null ? undefined : storedVersion(stored, versionKey);
        }
      } catch (error) {
        problems.push((error as Error).message);
      }
      return {
        id: undefined,
        checkpoint: undefined,
        storedVersion: version,
        lease: undefined,
        tokenCounter: undefined,
        clusterUnaligned: false,
        records: { version: versionKey },
        problems,
      };
    });
  }
}

/** `--wait-for-replicas` as the storage and the strategy take it; a count waits `'auto'`'s 500 ms for a write. */
function waitForReplicasOption(wait: WaitedReplicas): WaitForReplicasOption {
  return typeof wait === 'number' ? { replicas: wait, timeoutMs: 500 } : wait;
}

function checkpointKeyLayout(options: RedisOperatorOptions): CheckpointKeyLayout {
  return new CheckpointKeyLayout(options.keyPrefix ?? '', options.versionKeyPrefix ?? defaultRedisVersionKeyPrefix);
}

/** The lease in `value` (`undefined`: none), with its time to live from `PTTL`; a value or expiry no strategy writes is a problem. */
function recordedLease(
  value: string | undefined,
  ttlMs: number,
  leaseKey: string,
  problems: string[],
): RecordedLease | undefined {
  if (value === undefined || ttlMs === -2) {
    // -2: the key expired between GET and PTTL.
    return undefined;
  }
  const lease = parseRedisLeaseValue(value);
  if (lease === undefined) {
    problems.push(
      `lease key ${JSON.stringify(leaseKey)} holds ${JSON.stringify(value)}, not "<token> <owner>" as the strategy writes it; ` +
        'delete it (safe: the holder finds out at its next refresh)',
    );
    return undefined;
  }
  if (ttlMs === -1) {
    problems.push(
      `lease key ${JSON.stringify(leaseKey)} has no expiry, so it never frees itself if its holder stops; the strategy always ` +
        'sets one. Delete it (safe: the holder finds out at its next refresh)',
    );
  }
  return { holder: lease.owner, token: lease.token, expiresInMs: ttlMs === -1 ? undefined : ttlMs };
}

/** The token counter in `value`; one that is not a canonical decimal is a problem (the strategy refuses to mint from it). */
function tokenCounter(value: string | undefined, tokenKey: string, problems: string[]): bigint | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (!isCanonicalDecimal(value)) {
    problems.push(
      `token counter ${JSON.stringify(tokenKey)} holds ${JSON.stringify(value)}, not a canonical decimal; only the strategy writes it. ` +
        'delete it, then run repair --raise-token so that tokens go on above the stored version',
    );
    return undefined;
  }
  return BigInt(value);
}
