import type { Checkpoint } from '../checkpoint.js';
import type { CheckpointStorage } from '../checkpoint-storage.js';
import { CheckpointWriteCondition, formatWriteCondition } from '../checkpoint-write-condition.js';
import { CheckpointWriteConditionNotFulfilledError } from '../errors/checkpoint-write-condition-not-fulfilled-error.js';
import { describeValue, quoteText } from '../describe-value.js';
import { assertWriteVersion, validateSaveArguments } from '../storage-arguments.js';
import { assertSubscriptionId } from '../subscription-id.js';
import { advanceWriteVersionScript } from './advance-write-version-script.js';
import { CheckpointKeyLayout, type CheckpointKeys } from './checkpoint-key-layout.js';
import { ifAbsentScript } from './if-absent-script.js';
import { notOlderThanScript } from './not-older-than-script.js';
import type { RedisCheckpointClient } from './redis-checkpoint-client.js';
import { RedisCommandBatcher } from './redis-command-batcher.js';
import { RedisScriptRunner } from './redis-script-runner.js';

/** Options of {@link RedisCheckpointStorage}. */
export interface RedisCheckpointStorageOptions {
  /** Prefix of every version key; `checkpoint-fencing:version:` by default. Use `occurrent:checkpoint-version:` to share keys with Occurrent. */
  readonly versionKeyPrefix?: string;
  /** Prefix of every checkpoint key; none by default, so the checkpoint key is the subscription id itself. */
  readonly keyPrefix?: string;
}

const defaultVersionKeyPrefix = 'checkpoint-fencing:version:';
/** What `String(bigint)` makes of a non-negative version: digits, no sign, no leading zero. */
const canonicalDecimal = /^(?:0|[1-9]\d*)$/;

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
    const reply =
      judged.kind === 'notOlderThan'
        ? await this.#scripts.run(notOlderThanScript, keys, [checkpoint, String(judged.version)])
        : await this.#scripts.run(ifAbsentScript, keys, [checkpoint]);
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
    const reply = await this.#scripts.run(advanceWriteVersionScript, keys, [String(version)]);
    judgeScriptReply(reply, subscriptionId, CheckpointWriteCondition.notOlderThan(version), keys.versionKey);
  }

  async writeVersion(subscriptionId: string): Promise<bigint | undefined> {
    assertSubscriptionId(subscriptionId);
    const { versionKey } = this.#layout.keysFor(subscriptionId);
    const stored = await this.#commands.get(versionKey);
    return stored === null ? undefined : storedVersion(versionKey, stored);
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

/**
 * The one place a script's reply becomes an outcome: `accepted` returns; `refused:<stored>` throws the refusal, carrying
 * the stored version; `invalid:<stored>` throws the error `writeVersion` gives for that value; anything else is a
 * reply no script of this storage sends. ioredis 5 and 6 give the reply as a string, over RESP2 and RESP3.
 */
function judgeScriptReply(
  reply: unknown,
  subscriptionId: string,
  condition: CheckpointWriteCondition,
  versionKey: string,
): void {
  if (reply === 'accepted') {
    return;
  }
  if (typeof reply === 'string') {
    if (reply.startsWith('refused:')) {
      const stored = reply.slice('refused:'.length);
      throw new CheckpointWriteConditionNotFulfilledError(
        subscriptionId,
        condition,
        stored === '' ? undefined : storedVersion(versionKey, stored),
      );
    }
    if (reply.startsWith('invalid:')) {
      throw invalidStoredVersionError(versionKey, reply.slice('invalid:'.length));
    }
  }
  throw new Error(
    `The ${formatWriteCondition(condition)} script answered ${describeValue(reply)}, not "accepted", "refused:<version>" or ` +
      '"invalid:<value>". Another script with the same SHA-1 or a proxy rewriting replies is in the way; the write may or may not have happened.',
  );
}

/** The version a version key holds, as a `bigint`; throws when it is not a canonical non-negative decimal. */
function storedVersion(versionKey: string, stored: string): bigint {
  if (!canonicalDecimal.test(stored)) {
    throw invalidStoredVersionError(versionKey, stored);
  }
  return BigInt(stored);
}

function invalidStoredVersionError(versionKey: string, stored: string): Error {
  return new Error(
    `Version key ${quoteText(versionKey)} holds ${quoteText(stored)}, not a canonical non-negative decimal integer (digits only, ` +
      'no leading zero), so no version can be judged against it and nothing was written. Something other than a fenced writer ' +
      'wrote it; delete the key or write a canonical decimal version to it.',
  );
}
