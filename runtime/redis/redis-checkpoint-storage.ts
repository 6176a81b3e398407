import type { Checkpoint } from '../checkpoint.js';
import { CheckpointStorageBase } from '../checkpoint-storage-base.js';
import { CheckpointWriteCondition, formatWriteCondition } from '../checkpoint-write-condition.js';
import { quoteText } from '../describe-value.js';
import { CheckpointWriteNotReplicatedError } from '../errors/checkpoint-write-not-replicated-error.js';
import { assertSubscriptionId } from '../subscription-id.js';
import type { TelemetryOptions } from '../telemetry/index.js';
import { advanceWriteVersionScript, ifAbsentScript, notOlderThanScript } from './checkpoint-scripts.js';
import { CheckpointKeyLayout, defaultRedisVersionKeyPrefix, type CheckpointKeys } from './checkpoint-key-layout.js';
import { PromotableReplicas, replicaServerOf, waitOnMasterOf } from './promotable-replicas.js';
import type { RedisCheckpointClient } from './redis-checkpoint-client.js';
import { RedisCommandBatcher } from './redis-command-batcher.js';
import type { RedisLuaScript } from './redis-lua-script.js';
import { RedisScriptRunner } from './redis-script-runner.js';
import { judgeScriptReply, storedVersion } from './script-reply.js';
import { resolveWaitForReplicas, type WaitForReplicas, type WaitForReplicasOption } from './wait-for-replicas.js';

/** Options of {@link RedisCheckpointStorage}. */
export interface RedisCheckpointStorageOptions extends TelemetryOptions {
  /** Prefix of every version key; `checkpoint-fencing:version:` by default. Use `occurrent:checkpoint-version:` to share keys with Occurrent. */
  readonly versionKeyPrefix?: string;
  /** Prefix of every checkpoint key; none by default, so the checkpoint key is the subscription id itself. */
  readonly keyPrefix?: string;
  /**
   * Whether a `notOlderThan`/`ifAbsent` write (and `advanceWriteVersion`) counts as made only once replicas have it:
   * `'auto'` (the default) waits with `WAIT`, at most 500 ms, for every replica that could be promoted (read with
   * `INFO replication` right after the write, and from the Sentinels or the Cluster's node table), and not at all on a
   * server that has had none; `{ replicas, timeoutMs }` waits for a fixed number; `false` never waits. A write the replicas did not acknowledge
   * in time rejects with `CheckpointWriteNotReplicatedError`: it may or may not survive a failover. `any()` and
   * `delete` never wait (ADR 1101).
   */
  readonly waitForReplicas?: WaitForReplicasOption;
}

/** `'auto'`'s `WAIT` timeout: well below the `commandTimeout` doc/redis.md recommends (2 s). */
const defaultWaitTimeoutMs = 500;

/** Why a write over a client without `pipeline()` that had to wait for replicas counts as not replicated. */
const noPipelineToWait =
  'The server has replicas to wait for, and WAIT must follow the write on its own connection, which needs pipeline(): ' +
  'pass an ioredis Redis or Cluster client, or set waitForReplicas to false (unsafe on failover).';

/**
 * A checkpoint storage in Redis over an ioredis `Redis` or `Cluster` client the caller owns. `any()` is one plain
 * `SET`; `notOlderThan(v)` and `ifAbsent()` are each one Lua script over the checkpoint key and its version key,
 * which share a hash slot. The constructor gives the Cluster-safe mode (also right for a standalone server);
 * {@link RedisCheckpointStorage.forStandalone} drops the slot check for a server that is not a Cluster.
 */
export class RedisCheckpointStorage extends CheckpointStorageBase {
  readonly #commands: RedisCommandBatcher;
  readonly #scripts: RedisScriptRunner;
  readonly #layout: CheckpointKeyLayout;
  readonly #client: RedisCheckpointClient;
  readonly #wait: WaitForReplicas | undefined;
  readonly #promotable: PromotableReplicas;
  #clusterSafe = true;

  /**
   * Cluster-safe mode: refuses `notOlderThan` and `ifAbsent` for an id whose keys Redis Cluster cannot put in one slot.
   * @throws TypeError for a `versionKeyPrefix` that is empty or holds a brace, or a `keyPrefix` inside it;
   * RangeError for a malformed `waitForReplicas`.
   */
  constructor(client: RedisCheckpointClient, options: RedisCheckpointStorageOptions = {}) {
    super('redis', options);
    this.#client = client;
    this.#commands = new RedisCommandBatcher(client);
    this.#scripts = new RedisScriptRunner(client, this.#commands);
    this.#layout = new CheckpointKeyLayout(
      options.keyPrefix ?? '',
      options.versionKeyPrefix ?? defaultRedisVersionKeyPrefix,
    );
    this.#wait = resolveWaitForReplicas(options.waitForReplicas, defaultWaitTimeoutMs, 'RedisCheckpointStorage');
    this.#promotable = PromotableReplicas.of(client);
  }

  /** For a standalone or replicated server only: evaluates conditions for every id outside the reserved prefix, with no slot check. */
  static forStandalone(
    client: RedisCheckpointClient,
    options: RedisCheckpointStorageOptions = {},
  ): RedisCheckpointStorage {
    const storage = new RedisCheckpointStorage(client, options);
    storage.#clusterSafe = false;
    return storage;
  }

  async read(subscriptionId: string): Promise<Checkpoint | undefined> {
    assertSubscriptionId(subscriptionId);
    return (await this.#commands.get(this.#layout.keysFor(subscriptionId).checkpointKey)) ?? undefined;
  }

  /**
   * `any()` as one `SET`, a condition as its script. A connection error is passed through as is: the script may or may
   * not have run. So is `CheckpointWriteNotReplicatedError`, for a conditional write the replicas `waitForReplicas`
   * asks for did not acknowledge in time: not a refusal either.
   */
  protected async write(
    subscriptionId: string,
    checkpoint: Checkpoint,
    condition: CheckpointWriteCondition,
  ): Promise<Checkpoint> {
    const keys = this.#layout.keysFor(subscriptionId);
    if (condition.kind === 'any') {
      await this.#commands.set(keys.checkpointKey, checkpoint);
      return checkpoint;
    }
    const operation = formatWriteCondition(condition);
    this.#assertClusterAligned(subscriptionId, keys, operation);
    await (condition.kind === 'notOlderThan'
      ? this.#runConditional(subscriptionId, condition, operation, keys, notOlderThanScript, [
          checkpoint,
          String(condition.version),
        ])
      : this.#runConditional(subscriptionId, condition, operation, keys, ifAbsentScript, [checkpoint]));
    return checkpoint;
  }

  /**
   * Raises the version key to `version` with one Lua script that never touches the checkpoint key. In Cluster-safe
   * mode an id whose keys cannot share a slot is refused with a `TypeError` before anything is sent, as `save` does.
   */
  protected async raiseWriteVersion(subscriptionId: string, version: bigint): Promise<void> {
    const keys = this.#layout.keysFor(subscriptionId);
    const operation = `advanceWriteVersion(${version})`;
    this.#assertClusterAligned(subscriptionId, keys, operation);
    await this.#runConditional(
      subscriptionId,
      CheckpointWriteCondition.notOlderThan(version),
      operation,
      keys,
      advanceWriteVersionScript,
      [String(version)],
    );
  }

  async writeVersion(subscriptionId: string): Promise<bigint | undefined> {
    assertSubscriptionId(subscriptionId);
    const { versionKey } = this.#layout.keysFor(subscriptionId);
    const stored = await this.#commands.get(versionKey);
    return stored === null ? undefined : storedVersion(stored, versionKey);
  }

  /** Removes both keys with one `DEL` when they share a slot; otherwise, or on `CROSSSLOT`, the checkpoint key first, then the version key. */
  async delete(subscriptionId: string): Promise<void> {
    assertSubscriptionId(subscriptionId);
    const { checkpointKey, versionKey, clusterAligned } = this.#layout.keysFor(subscriptionId);
    if (!this.#clusterSafe || clusterAligned) {
      try {
        await this.#commands.del(checkpointKey, versionKey);
        return;
      } catch (error) {
        if (!isCrossSlotError(error)) {
          throw error;
        }
      }
    }
    // Checkpoint first: a crash in between leaves an orphan version, which ifAbsent ignores and notOlderThan still honours.
    await this.#commands.del(checkpointKey);
    await this.#commands.del(versionKey);
  }

  /**
   * Deletes the checkpoint key and keeps the version key as the fence: `read` then answers `undefined`, `ifAbsent()`
   * is accepted (it tests the checkpoint key only) and keeps the version, and `notOlderThan` is still judged against
   * it. One `DEL` of one key, so no slot check. What the operator's `reset` leaves (ADR 1004).
   */
  async deleteCheckpointKeepingVersion(subscriptionId: string): Promise<void> {
    assertSubscriptionId(subscriptionId);
    await this.#commands.del(this.#layout.keysFor(subscriptionId).checkpointKey);
  }

  /** False, in Cluster-safe mode, exactly for ids whose keys Cluster cannot put in one slot (no hash tag, and empty or holding `}`). */
  evaluatesWriteConditionsFor(subscriptionId: string): boolean {
    assertSubscriptionId(subscriptionId);
    const { clusterAligned } = this.#layout.keysFor(subscriptionId);
    return !this.#clusterSafe || clusterAligned;
  }

  /**
   * Runs a version-judging script over both keys and judges its reply: a refusal or a bad stored version throws as
   * such whatever the replicas did (nothing was written). An accepted write that must wait for replicas is sent with a
   * `WAIT` behind it on its connection, and counts only when enough replicas acknowledged it. Under `'auto'`,
   * `INFO replication` goes right after it too, and the write waits for every replica that could be promoted as the
   * server lists them then, and as the topology knows them (ADR 1104–1106): the `WAIT` sent with it is the count the
   * last write judged, and a further `WAIT` follows when this one finds more.
   */
  async #runConditional(
    subscriptionId: string,
    condition: CheckpointWriteCondition,
    operation: string,
    keys: CheckpointKeys,
    script: RedisLuaScript,
    args: readonly string[],
  ): Promise<void> {
    const wait = this.#wait;
    const scriptKeys = [keys.checkpointKey, keys.versionKey];
    const judge = (reply: unknown): void => {
      judgeScriptReply(reply, subscriptionId, condition, keys.versionKey);
    };
    if (wait === undefined) {
      judge(await this.#scripts.run(script, scriptKeys, args));
      return;
    }
    const { timeoutMs } = wait;
    const notReplicated = (replicas: number, acknowledged: number | undefined, cause: unknown): Error =>
      new CheckpointWriteNotReplicatedError({
        subscriptionId,
        operation,
        replicas,
        acknowledged,
        timeoutMs,
        ...(cause === undefined ? {} : { cause }),
      });
    if (wait.replicas !== 'auto') {
      const { reply, acknowledged, waitError } = await this.#scripts.runWaited(script, scriptKeys, args, {
        replicas: wait.replicas,
        timeoutMs,
      });
      judge(reply);
      if (acknowledged === undefined || acknowledged < wait.replicas) {
        throw notReplicated(wait.replicas, acknowledged, waitError);
      }
      return;
    }
    const server = replicaServerOf(keys.versionKey, this.#client.isCluster === true);
    const epoch = this.#promotable.epoch;
    const expected = this.#promotable.expected(server, timeoutMs);
    const { reply, acknowledged, waitError, replication } = await this.#scripts.runWaited(script, scriptKeys, args, {
      replicas: expected,
      timeoutMs,
      readsReplication: true,
    });
    judge(reply);
    if (replication === undefined) {
      throw notReplicated(Math.max(expected, 1), undefined, waitError);
    }
    const { replicas, reason } = await this.#promotable.judge(server, keys.versionKey, replication, epoch, timeoutMs);
    let confirmed: { readonly acknowledged: number | undefined; readonly error?: unknown } = {
      acknowledged,
      error: waitError,
    };
    if (acknowledged !== undefined && acknowledged < replicas && expected < replicas) {
      confirmed = await this.#waitAgain(keys.versionKey, replicas, timeoutMs, epoch);
    }
    if (confirmed.acknowledged === undefined || confirmed.acknowledged < replicas) {
      throw notReplicated(
        replicas,
        confirmed.acknowledged,
        confirmed.error ?? (reason === undefined ? undefined : new Error(`Waited for ${replicas} because ${reason}.`)),
      );
    }
  }

  /**
   * A further `WAIT` for a write whose own pipeline found more replicas than it waited for, on the connection that
   * wrote it (routed by its key). None after a reconnection (a new `epoch`): a `WAIT` there counts none of the old
   * connection's writes and would answer at once.
   */
  async #waitAgain(
    key: string,
    replicas: number,
    timeoutMs: number,
    epoch: number,
  ): Promise<{ readonly acknowledged: number | undefined; readonly error?: unknown }> {
    const newPipeline = this.#client.pipeline?.bind(this.#client);
    if (newPipeline === undefined) {
      return { acknowledged: undefined, error: new Error(noPipelineToWait) };
    }
    if (epoch !== this.#promotable.epoch) {
      return { acknowledged: undefined, error: new Error('the client reconnected after the write') };
    }
    return waitOnMasterOf(this.#client, newPipeline, key, replicas, timeoutMs);
  }

  #assertClusterAligned(subscriptionId: string, keys: CheckpointKeys, operation: string): void {
    if (this.#clusterSafe && !keys.clusterAligned) {
      throw new TypeError(
        `RedisCheckpointStorage cannot evaluate ${operation} for subscription ${quoteText(subscriptionId)} in Cluster-safe mode: ` +
          `its checkpoint key ${quoteText(keys.checkpointKey)} has no hash tag and is empty or contains "}", so no version key can share its ` +
          'Cluster hash slot and the script would fail with CROSSSLOT. Give the id a hash tag (e.g. "{tenant}-orders"), or, for a standalone or ' +
          'replicated server that is not a Cluster, use RedisCheckpointStorage.forStandalone(client). Nothing was sent to Redis.',
      );
    }
  }
}

/** True for the server's refusal of a multi-key command whose keys hash to different Cluster slots. */
function isCrossSlotError(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('CROSSSLOT');
}
