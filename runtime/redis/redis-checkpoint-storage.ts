import type { Checkpoint } from '../checkpoint.js';
import type { CheckpointStorage } from '../checkpoint-storage.js';
import { CheckpointWriteCondition, formatWriteCondition } from '../checkpoint-write-condition.js';
import { quoteText } from '../describe-value.js';
import { assertWriteVersion, validateSaveArguments } from '../storage-arguments.js';
import { assertSubscriptionId } from '../subscription-id.js';
import { advanceWriteVersionScript } from './advance-write-version-script.js';
import { CheckpointKeyLayout, defaultRedisVersionKeyPrefix, type CheckpointKeys } from './checkpoint-key-layout.js';
import { ifAbsentScript } from './if-absent-script.js';
import { notOlderThanScript } from './not-older-than-script.js';
import type { RedisCheckpointClient } from './redis-checkpoint-client.js';
import { RedisCommandBatcher } from './redis-command-batcher.js';
import { RedisScriptRunner } from './redis-script-runner.js';
import { judgeScriptReply, storedVersion } from './script-reply.js';

/** Options of {@link RedisCheckpointStorage}. */
export interface RedisCheckpointStorageOptions {
  /** Prefix of every version key; `checkpoint-fencing:version:` by default. Use `occurrent:checkpoint-version:` to share keys with Occurrent. */
  readonly versionKeyPrefix?: string;
  /** Prefix of every checkpoint key; none by default, so the checkpoint key is the subscription id itself. */
  readonly keyPrefix?: string;
}

/**
 * A checkpoint storage in Redis over an ioredis `Redis` or `Cluster` client the caller owns. `any()` is one plain
 * `SET`; `notOlderThan(v)` and `ifAbsent()` are each one Lua script over the checkpoint key and its version key,
 * which share a hash slot. The constructor gives the Cluster-safe mode (also right for a standalone server);
 * {@link RedisCheckpointStorage.forStandalone} drops the slot check for a server that is not a Cluster.
 */
export class RedisCheckpointStorage implements CheckpointStorage {
  readonly #commands: RedisCommandBatcher;
  readonly #scripts: RedisScriptRunner;
  readonly #layout: CheckpointKeyLayout;
  #clusterSafe = true;

  /**
   * Cluster-safe mode: refuses `notOlderThan` and `ifAbsent` for an id whose keys Redis Cluster cannot put in one slot.
   * @throws TypeError for a `versionKeyPrefix` that is empty or holds a brace, or a `keyPrefix` inside it.
   */
  constructor(client: RedisCheckpointClient, options: RedisCheckpointStorageOptions = {}) {
    this.#commands = new RedisCommandBatcher(client);
    this.#scripts = new RedisScriptRunner(client, this.#commands);
    this.#layout = new CheckpointKeyLayout(
      options.keyPrefix ?? '',
      options.versionKeyPrefix ?? defaultRedisVersionKeyPrefix,
    );
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
   * Writes `checkpoint` when `condition` holds. A connection error from a conditional write is passed through as
   * is: the script may or may not have run, so the caller must not read it as a refusal.
   */
  async save(subscriptionId: string, checkpoint: Checkpoint, condition: CheckpointWriteCondition): Promise<Checkpoint> {
    const judged = validateSaveArguments(subscriptionId, checkpoint, condition);
    const keys = this.#layout.keysFor(subscriptionId);
    if (judged.kind === 'any') {
      await this.#commands.set(keys.checkpointKey, checkpoint);
      return checkpoint;
    }
    this.#assertClusterAligned(subscriptionId, keys, formatWriteCondition(judged));
    const scriptKeys = [keys.checkpointKey, keys.versionKey];
    const reply =
      judged.kind === 'notOlderThan'
        ? await this.#scripts.run(notOlderThanScript, scriptKeys, [checkpoint, String(judged.version)])
        : await this.#scripts.run(ifAbsentScript, scriptKeys, [checkpoint]);
    judgeScriptReply(reply, subscriptionId, judged, keys.versionKey);
    return checkpoint;
  }

  /**
   * Raises the version key to `version` with one Lua script that never touches the checkpoint key. In Cluster-safe
   * mode an id whose keys cannot share a slot is refused with a `TypeError` before anything is sent, as `save` does.
   */
  async advanceWriteVersion(subscriptionId: string, version: bigint): Promise<void> {
    assertSubscriptionId(subscriptionId);
    assertWriteVersion(version);
    const keys = this.#layout.keysFor(subscriptionId);
    this.#assertClusterAligned(subscriptionId, keys, `advanceWriteVersion(${version})`);
    const reply = await this.#scripts.run(
      advanceWriteVersionScript,
      [keys.checkpointKey, keys.versionKey],
      [String(version)],
    );
    judgeScriptReply(reply, subscriptionId, CheckpointWriteCondition.notOlderThan(version), keys.versionKey);
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

  /** True: conditions are evaluated in one Lua script. In Cluster-safe mode a few id shapes are the exception; see {@link evaluatesWriteConditionsFor}. */
  evaluatesWriteConditions(): boolean {
    return true;
  }

  /** False, in Cluster-safe mode, exactly for ids whose keys Cluster cannot put in one slot (no hash tag, and empty or holding `}`). */
  evaluatesWriteConditionsFor(subscriptionId: string): boolean {
    assertSubscriptionId(subscriptionId);
    const { clusterAligned } = this.#layout.keysFor(subscriptionId);
    return !this.#clusterSafe || clusterAligned;
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
