import { formatWriteCondition, type CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import {
  assertStreamName,
  assertWellFormedId,
  decodeDualAnchorCheckpoint,
  DualAnchorWritePlan,
  type DualAnchorCheckpoint,
  type DualAnchorCheckpointStore,
  type DualAnchorFieldWrite,
  type DualAnchorResetWrite,
  type DualAnchorToken,
} from '../dual-anchor/index.js';
import { CheckpointWriteConditionNotFulfilledError } from '../errors/checkpoint-write-condition-not-fulfilled-error.js';
import { hashArguments, millisText, pairText, storedFieldsOfHash } from './dual-anchor-hash.js';
import {
  dualAnchorIfAbsentScript,
  dualAnchorNotOlderThanScript,
  resetAfterHistoryLostIfAbsentScript,
  resetAfterHistoryLostNotOlderThanScript,
  resetAfterHistoryLostScript,
} from './dual-anchor-scripts.js';
import type { RedisDualAnchorClient } from './redis-dual-anchor-client.js';
import { RedisScriptRunner } from './redis-script-runner.js';
import { parseScriptReply } from './script-reply.js';

/** Options of {@link RedisDualAnchorCheckpointStore}. */
export interface RedisDualAnchorCheckpointStoreOptions {
  /** Prefix of every record's key; `checkpoint-fencing:anchors:` by default. The key is `keyPrefix + streamName`. */
  readonly keyPrefix?: string;
}

const defaultKeyPrefix = 'checkpoint-fencing:anchors:';

/**
 * A dual-anchor checkpoint store in Redis over an ioredis `Redis` or `Cluster` client the caller owns: one hash per
 * stream (`keyPrefix + streamName`), so every operation touches one key and the store is Cluster-safe for every
 * stream name. Each partial write under `any()` is one `HSET` of its own fields; a conditional write is one Lua
 * script that judges the version field of the same hash and writes; `resetAfterHistoryLost` is one Lua script with
 * the guard inside. Layout and field encoding: doc/dual-anchor.md.
 */
export class RedisDualAnchorCheckpointStore implements DualAnchorCheckpointStore {
  readonly #client: RedisDualAnchorClient;
  readonly #scripts: RedisScriptRunner;
  readonly #keyPrefix: string;

  /** @throws TypeError for a `keyPrefix` that is not a string or holds a lone surrogate. */
  constructor(client: RedisDualAnchorClient, options: RedisDualAnchorCheckpointStoreOptions = {}) {
    const keyPrefix = options.keyPrefix ?? defaultKeyPrefix;
    if (keyPrefix !== '') {
      assertWellFormedId(keyPrefix, 'keyPrefix');
    }
    this.#client = client;
    this.#scripts = new RedisScriptRunner(client);
    this.#keyPrefix = keyPrefix;
  }

  /** The key of the hash that holds `streamName`'s record, for operators and tests. */
  recordKey(streamName: string): string {
    assertStreamName(streamName);
    return this.#keyPrefix + streamName;
  }

  /** `save` under `any()` is one `HSET` of every field (`''` for null); the version field is left as it was. */
  async save(checkpoint: DualAnchorCheckpoint, condition?: CheckpointWriteCondition): Promise<void> {
    await this.#write(DualAnchorWritePlan.save(checkpoint, condition));
  }

  /** One `HGETALL`. */
  async findByStreamName(streamName: string): Promise<DualAnchorCheckpoint | undefined> {
    const key = this.recordKey(streamName);
    const hash = await this.#client.hgetall(key);
    return Object.keys(hash).length === 0
      ? undefined
      : decodeDualAnchorCheckpoint(streamName, storedFieldsOfHash(key, hash));
  }

  /** One `DEL` of the hash, version included. */
  async delete(streamName: string): Promise<void> {
    await this.#client.del(this.recordKey(streamName));
  }

  async saveSeen(
    streamName: string,
    token: DualAnchorToken,
    timestamp: Date,
    heartbeatTimestamp?: Date,
    condition?: CheckpointWriteCondition,
  ): Promise<void> {
    await this.#write(DualAnchorWritePlan.saveSeen(streamName, token, timestamp, heartbeatTimestamp, condition));
  }

  async saveProcessed(
    streamName: string,
    token: DualAnchorToken,
    timestamp: Date,
    heartbeatTimestamp?: Date,
    condition?: CheckpointWriteCondition,
  ): Promise<void> {
    await this.#write(DualAnchorWritePlan.saveProcessed(streamName, token, timestamp, heartbeatTimestamp, condition));
  }

  async saveHeartbeat(
    streamName: string,
    heartbeatTimestamp: Date,
    condition?: CheckpointWriteCondition,
  ): Promise<void> {
    await this.#write(DualAnchorWritePlan.saveHeartbeat(streamName, heartbeatTimestamp, condition));
  }

  async resetAfterHistoryLost(
    streamName: string,
    freshSeenToken: DualAnchorToken | null,
    expectedDeadProcessed: DualAnchorToken | null,
    timestamp: Date,
    condition?: CheckpointWriteCondition,
  ): Promise<void> {
    const reset = DualAnchorWritePlan.resetAfterHistoryLost(
      streamName,
      freshSeenToken,
      expectedDeadProcessed,
      timestamp,
      condition,
    );
    await this.#reset(reset);
  }

  /** True: every condition is judged in the same Lua script as the write, against the hash's own version field. */
  evaluatesWriteConditions(): boolean {
    return true;
  }

  /**
   * One command: `HSET` under `any()`, else one script run. Not `async`, so an unconditional write costs the caller
   * one promise, the client's. A connection error is passed through as is: the write may or may not have happened,
   * so the caller must not read it as a refusal.
   */
  #write(write: DualAnchorFieldWrite): Promise<unknown> {
    const key = this.#keyPrefix + write.streamName;
    const { condition } = write;
    const fields = hashArguments(write.fields);
    switch (condition.kind) {
      case 'any':
        return this.#client.hset(key, ...fields);
      case 'notOlderThan':
        return this.#scripts
          .run(dualAnchorNotOlderThanScript, [key], [String(condition.version), ...fields])
          .then((reply) => {
            this.#judge(write.streamName, condition, reply);
          });
      case 'ifAbsent':
        return this.#scripts.run(dualAnchorIfAbsentScript, [key], fields).then((reply) => {
          this.#judge(write.streamName, condition, reply);
        });
    }
  }

  async #reset(reset: DualAnchorResetWrite): Promise<void> {
    const key = this.#keyPrefix + reset.streamName;
    const { condition, fields, expectedDeadProcessed } = reset;
    const args = [
      expectedDeadProcessed === null ? '0' : '1',
      expectedDeadProcessed ?? '',
      pairText(fields.lastSeenTimestamp, fields.lastSeenToken),
      millisText(fields.lastHeartbeatTimestamp),
    ];
    const reply =
      condition.kind === 'notOlderThan'
        ? await this.#scripts.run(resetAfterHistoryLostNotOlderThanScript, [key], [...args, String(condition.version)])
        : await this.#scripts.run(
            condition.kind === 'ifAbsent' ? resetAfterHistoryLostIfAbsentScript : resetAfterHistoryLostScript,
            [key],
            args,
          );
    this.#judge(reset.streamName, condition, reply);
  }

  #judge(streamName: string, condition: CheckpointWriteCondition, reply: unknown): void {
    const outcome = parseScriptReply(reply, `dual-anchor ${formatWriteCondition(condition)}`);
    if (!outcome.accepted) {
      throw new CheckpointWriteConditionNotFulfilledError(streamName, condition, outcome.storedVersion);
    }
  }
}
