import { CheckpointWriteConditionNotFulfilledError } from '../../errors/index.js';
import {
  CheckpointKeyLayout,
  defaultRedisLeaseKeyPrefix,
  defaultRedisVersionKeyPrefix,
  isCanonicalDecimal,
  parseRedisLeaseValue,
  RedisCheckpointStorage,
  redisLeaseKeys,
  RedisLeaseStrategy,
  storedVersion,
} from '../../redis/index.js';
import type { RedisAddress } from '../connection-url.js';
import type { InspectedBatch, Inspection, InspectionCoverage, OperatorBackend } from '../operator-backend.js';
import type { ScanProgress } from '../scan-progress.js';
import type { RecordedLease, SubscriptionState } from '../subscription-health.js';
import { connectRedis, type IORedisModule, type RedisConnection } from './redis-connection.js';
import {
  idOfUnclaimedCheckpointKey,
  keysRankedAbove,
  recogniseKeys,
  scanEveryMaster,
  UnclaimedVersionKeys,
  type NamingKey,
  type RedisKeyspaceLayout,
} from './redis-keyspace-scan.js';

/** The `--redis` settings: the layout of the storage and the strategy the application runs with. */
export interface RedisOperatorOptions {
  readonly cluster: boolean;
  readonly keyPrefix: string | undefined;
  readonly versionKeyPrefix: string | undefined;
  readonly leaseKeyPrefix: string | undefined;
  readonly timeoutMs: number;
}

/** Subscriptions read at once: each is five commands, sent together. */
const readBatch = 100;

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

  private constructor(
    connection: RedisConnection,
    options: RedisOperatorOptions,
    readonly target: string,
  ) {
    this.#connection = connection;
    const storageOptions = {
      ...(options.keyPrefix === undefined ? {} : { keyPrefix: options.keyPrefix }),
      ...(options.versionKeyPrefix === undefined ? {} : { versionKeyPrefix: options.versionKeyPrefix }),
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
    return new RedisOperatorBackend(connection, options, address.display);
  }

  async inspect(ids: readonly string[]): Promise<Inspection> {
    try {
      const subscriptions: SubscriptionState[] = [];
      for (let start = 0; start < ids.length; start += readBatch) {
        const read = await Promise.all(ids.slice(start, start + readBatch).map((id) => this.#readOne(id)));
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
        const read = await this.#readListed(recognised.naming, layout);
        report(read.map(({ state }) => state));
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
          report((await Promise.all(ids.map((id) => this.#readOne(id)))).map(({ state }) => state));
        });
      }
      progress.finish('keys scanned');
      const orphans = prefixed ? [] : unclaimed.remaining();
      for (let start = 0; start < orphans.length; start += readBatch) {
        report(await Promise.all(orphans.slice(start, start + readBatch).map((key) => this.#orphan(key))));
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

  async raiseFencingTokenAbove(id: string, version: bigint): Promise<void> {
    const strategy = new RedisLeaseStrategy(this.#connection.client, { keyPrefix: this.#leaseKeyPrefix });
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
  }

  /** Reads the subscriptions that `naming` lists: those with none of their keys ranked above the one scanned. */
  async #readListed(naming: readonly NamingKey[], layout: RedisKeyspaceLayout): Promise<ReadSubscription[]> {
    const client = this.#connection.client;
    const listed = await Promise.all(
      naming.map(async (key) => {
        const above = await Promise.all(
          keysRankedAbove(key, layout).map((rankedAbove) =>
            client.get(rankedAbove).catch((error: unknown) => {
              // A key of another type exists all the same: the subscription is listed by that key, with the problem.
              if (error instanceof Error && error.message.startsWith('WRONGTYPE')) {
                return 'exists';
              }
              throw error;
            }),
          ),
        );
        return above.every((value) => value === null) ? [key.id] : [];
      }),
    );
    return Promise.all(listed.flat().map((id) => this.#readOne(id)));
  }

  async #readOne(id: string): Promise<ReadSubscription> {
    const client = this.#connection.client;
    const { checkpointKey, versionKey, clusterAligned } = this.#layout.keysFor(id);
    const leaseKeys = redisLeaseKeys(this.#leaseKeyPrefix, id);
    const problems: string[] = [];
    // A value no storage or strategy writes is reported on its row, not as a failure of the whole inspection.
    const noted = (error: unknown): undefined => {
      if (!(error instanceof Error) || !/^WRONGTYPE|not a canonical non-negative decimal/u.test(error.message)) {
        throw error;
      }
      problems.push(
        error.message.startsWith('WRONGTYPE') ? `a key of ${id} is not a string: ${error.message}` : error.message,
      );
      return undefined;
    };
    let versionKeyStored = false;
    const [checkpoint, storedVersion, leaseValue, leaseTtl, counter] = await Promise.all([
      this.#storage.read(id).catch(noted),
      this.#storage.writeVersion(id).then(
        (version) => {
          versionKeyStored = version !== undefined;
          return version;
        },
        (error: unknown) => {
          // Read, but not as a version: the key exists all the same.
          versionKeyStored = true;
          noted(error);
          return undefined;
        },
      ),
      client.get(leaseKeys.lease).catch(noted),
      client.pttl(leaseKeys.lease),
      client.get(leaseKeys.token).catch(noted),
    ]);
    const state = {
      id,
      checkpoint,
      storedVersion,
      lease: recordedLease(leaseValue ?? undefined, leaseTtl, leaseKeys.lease, problems),
      tokenCounter: tokenCounter(counter ?? undefined, leaseKeys.token, problems),
      clusterUnaligned: this.#connection.isCluster && !clusterAligned,
      records: { checkpoint: checkpointKey, version: versionKey, lease: leaseKeys.lease, token: leaseKeys.token },
      problems,
    };
    return { state, versionKeyStored };
  }

  /** A version key whose id nothing in the keyspace tells. */
  async #orphan(versionKey: string): Promise<SubscriptionState> {
    const problems: string[] = [];
    const stored = await this.#connection.client.get(versionKey);
    let version: bigint | undefined;
    try {
      version = stored === null ? undefined : storedVersion(stored, versionKey);
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
  }
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
