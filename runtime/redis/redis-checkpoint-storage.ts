import type { Checkpoint } from '../checkpoint.js';
import type { CheckpointStorage } from '../checkpoint-storage.js';
import { CheckpointWriteCondition, formatWriteCondition } from '../checkpoint-write-condition.js';
import { CheckpointWriteConditionNotFulfilledError } from '../errors/checkpoint-write-condition-not-fulfilled-error.js';
import { assertSaveArguments, assertSubscriptionId, assertWriteVersion } from '../storage-arguments.js';
import { advanceWriteVersionScript } from './advance-write-version-script.js';
import { CheckpointKeyLayout, type CheckpointKeys } from './checkpoint-key-layout.js';
import { ifAbsentScript } from './if-absent-script.js';
import { notOlderThanScript } from './not-older-than-script.js';
import type { RedisCheckpointClient } from './redis-checkpoint-client.js';
import { RedisScriptRunner } from './redis-script-runner.js';
import { parseScriptReply } from './script-reply.js';

/** Options of {@link RedisCheckpointStorage}. */
export interface RedisCheckpointStorageOptions {
  /** Prefix of every version key; `checkpoint-fencing:version:` by default. Use `occurrent:checkpoint-version:` to share keys with Occurrent. */
  readonly versionKeyPrefix?: string;
  /** Prefix of every checkpoint key; none by default, so the checkpoint key is the subscription id itself. */
  readonly keyPrefix?: string;
}

const defaultVersionKeyPrefix = 'checkpoint-fencing:version:';
const decimal = /^\d+$/;

/**
 * A checkpoint storage in Redis over an ioredis `Redis` or `Cluster` client the caller owns. `any()` is one plain
 * `SET`; `notOlderThan(v)` and `ifAbsent()` are each one Lua script over the checkpoint key and its version key,
 * which share a hash slot. The constructor gives the Cluster-safe mode (also right for a standalone server);
 * {@link RedisCheckpointStorage.forStandalone} drops the slot check for a server that is not a Cluster.
 */
export class RedisCheckpointStorage implements CheckpointStorage {
  readonly #client: RedisCheckpointClient;
  readonly #scripts: RedisScriptRunner;
  readonly #layout: CheckpointKeyLayout;
  #clusterSafe = true;

  /**
   * Cluster-safe mode: refuses `notOlderThan` and `ifAbsent` for an id whose keys Redis Cluster cannot put in one slot.
   * @throws TypeError for a `versionKeyPrefix` that is empty or holds a brace, or a `keyPrefix` inside it.
   */
  constructor(client: RedisCheckpointClient, options: RedisCheckpointStorageOptions = {}) {
    this.#client = client;
    this.#scripts = new RedisScriptRunner(client);
    this.#layout = new CheckpointKeyLayout(
      options.keyPrefix ?? '',
      options.versionKeyPrefix ?? defaultVersionKeyPrefix,
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
    return (await this.#client.get(this.#layout.keysFor(subscriptionId).checkpointKey)) ?? undefined;
  }

  /**
   * Writes `checkpoint` when `condition` holds. A connection error from a conditional write is passed through as
   * is: the script may or may not have run, so the caller must not read it as a refusal.
   */
  async save(subscriptionId: string, checkpoint: Checkpoint, condition: CheckpointWriteCondition): Promise<Checkpoint> {
    assertSaveArguments(subscriptionId, checkpoint, condition);
    const keys = this.#layout.keysFor(subscriptionId);
    if (condition.kind === 'any') {
      await this.#client.set(keys.checkpointKey, checkpoint);
      return checkpoint;
    }
    this.#assertClusterAligned(subscriptionId, keys, formatWriteCondition(condition));
    const scriptKeys = [keys.checkpointKey, keys.versionKey];
    const reply =
      condition.kind === 'notOlderThan'
        ? await this.#scripts.run(notOlderThanScript, scriptKeys, [checkpoint, String(condition.version)])
        : await this.#scripts.run(ifAbsentScript, scriptKeys, [checkpoint]);
    const outcome = parseScriptReply(reply, formatWriteCondition(condition));
    if (!outcome.accepted) {
      throw new CheckpointWriteConditionNotFulfilledError(subscriptionId, condition, outcome.storedVersion);
    }
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
    const condition = CheckpointWriteCondition.notOlderThan(version);
    this.#assertClusterAligned(subscriptionId, keys, `advanceWriteVersion(${version})`);
    const reply = await this.#scripts.run(
      advanceWriteVersionScript,
      [keys.checkpointKey, keys.versionKey],
      [String(version)],
    );
    const outcome = parseScriptReply(reply, formatWriteCondition(condition));
    if (!outcome.accepted) {
      throw new CheckpointWriteConditionNotFulfilledError(subscriptionId, condition, outcome.storedVersion);
    }
  }

  async writeVersion(subscriptionId: string): Promise<bigint | undefined> {
    assertSubscriptionId(subscriptionId);
    const { versionKey } = this.#layout.keysFor(subscriptionId);
    const stored = await this.#client.get(versionKey);
    if (stored === null) {
      return undefined;
    }
    if (!decimal.test(stored)) {
      throw new Error(
        `Version key ${JSON.stringify(versionKey)} holds ${JSON.stringify(stored)}, not a non-negative decimal integer. ` +
          'Something other than a fenced writer wrote it; delete the key or write a decimal version to it.',
      );
    }
    return BigInt(stored);
  }

  /** Removes both keys with one `DEL` when they share a slot; otherwise, or on `CROSSSLOT`, the checkpoint key first, then the version key. */
  async delete(subscriptionId: string): Promise<void> {
    assertSubscriptionId(subscriptionId);
    const { checkpointKey, versionKey, clusterAligned } = this.#layout.keysFor(subscriptionId);
    if (!this.#clusterSafe || clusterAligned) {
      try {
        await this.#client.del(checkpointKey, versionKey);
        return;
      } catch (error) {
        if (!isCrossSlotError(error)) {
          throw error;
        }
      }
    }
    // Checkpoint first: a crash in between leaves an orphan version, which ifAbsent ignores and notOlderThan still honours.
    await this.#client.del(checkpointKey);
    await this.#client.del(versionKey);
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
        `RedisCheckpointStorage cannot evaluate ${operation} for subscription ${JSON.stringify(subscriptionId)} in Cluster-safe mode: ` +
          `its checkpoint key ${JSON.stringify(keys.checkpointKey)} has no hash tag and is empty or contains "}", so no version key can share its ` +
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
