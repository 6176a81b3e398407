import {
  decodeDualAnchorCheckpoint,
  DualAnchorCheckpointStoreBase,
  type DualAnchorCheckpoint,
  type DualAnchorFieldWrite,
  type DualAnchorResetWrite,
} from '../dual-anchor/index.js';
import { assertStreamName, assertWellFormedString } from '../subscription-id.js';
import {
  corruptPairError,
  hashArguments,
  millisText,
  pairText,
  storedFieldsOfHash,
  writeVersionField,
} from './dual-anchor-hash.js';
import {
  dualAnchorIfAbsentScript,
  dualAnchorNotOlderThanScript,
  resetAfterHistoryLostIfAbsentScript,
  resetAfterHistoryLostNotOlderThanScript,
  resetAfterHistoryLostScript,
} from './dual-anchor-scripts.js';
import type { TelemetryOptions } from '../telemetry/index.js';
import type { RedisDualAnchorClient } from './redis-dual-anchor-client.js';
import { RedisScriptRunner } from './redis-script-runner.js';
import { judgeScriptReply } from './script-reply.js';

/** Options of {@link RedisDualAnchorCheckpointStore}. */
export interface RedisDualAnchorCheckpointStoreOptions extends TelemetryOptions {
  /** Prefix of every record's key; `checkpoint-fencing:anchors:` by default. The key is `keyPrefix + streamName`. */
  readonly keyPrefix?: string;
}

const defaultKeyPrefix = 'checkpoint-fencing:anchors:';

/** How a reset script answers a `lastProcessed` field that is no anchor pair, before it writes anything. */
const corruptReplyPrefix = 'corrupt:';

/**
 * A dual-anchor checkpoint store in Redis over an ioredis `Redis` or `Cluster` client the caller owns: one hash per
 * stream (`keyPrefix + streamName`), so every operation touches one key and the store is Cluster-safe for every
 * stream name. Each partial write under `any()` is one `HSET` of its own fields; a conditional write is one Lua
 * script that judges the version field of the same hash and writes; `resetAfterHistoryLost` is one Lua script with
 * the guard inside. Layout and field encoding: doc/dual-anchor.md.
 */
export class RedisDualAnchorCheckpointStore extends DualAnchorCheckpointStoreBase {
  readonly #client: RedisDualAnchorClient;
  readonly #scripts: RedisScriptRunner;
  readonly #keyPrefix: string;

  /** @throws TypeError for a `keyPrefix` that is not a string or holds a lone surrogate. */
  constructor(client: RedisDualAnchorClient, options: RedisDualAnchorCheckpointStoreOptions = {}) {
    super('redis', options);
    const keyPrefix = options.keyPrefix ?? defaultKeyPrefix;
    assertWellFormedString(keyPrefix, 'keyPrefix');
    this.#client = client;
    this.#scripts = new RedisScriptRunner(client);
    this.#keyPrefix = keyPrefix;
  }

  /** The key of the hash that holds `streamName`'s record, for operators and tests. */
  recordKey(streamName: string): string {
    assertStreamName(streamName);
    return this.#keyPrefix + streamName;
  }

  /** True: every condition is judged in the same Lua script as the write, against the hash's own version field. */
  evaluatesWriteConditions(): boolean {
    return true;
  }

  /**
   * One command: `HSET` of the plan's fields under `any()` (every field for `save`; the version field is never
   * touched), else one script run. Not `async` itself, so an unconditional write adds no promise of its own to the
   * client's. A connection error is passed through as is: the write may or may not have happened, so the caller must
   * not read it as a refusal.
   */
  protected writeFields(write: DualAnchorFieldWrite): Promise<unknown> {
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
            judgeScriptReply(reply, write.streamName, condition, key, writeVersionField);
          });
      case 'ifAbsent':
        return this.#scripts.run(dualAnchorIfAbsentScript, [key], fields).then((reply) => {
          judgeScriptReply(reply, write.streamName, condition, key, writeVersionField);
        });
    }
  }

  /** One script run under every condition: the guard, the condition and the write are one atomic step. */
  protected async writeReset(reset: DualAnchorResetWrite): Promise<void> {
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
    if (typeof reply === 'string' && reply.startsWith(corruptReplyPrefix)) {
      throw corruptPairError(key, 'lastProcessed', reply.slice(corruptReplyPrefix.length));
    }
    judgeScriptReply(reply, reset.streamName, condition, key, writeVersionField);
  }

  /** One `HGETALL`; an empty hash is no record. */
  protected async readRecord(streamName: string): Promise<DualAnchorCheckpoint | undefined> {
    const key = this.#keyPrefix + streamName;
    const hash = await this.#client.hgetall(key);
    return Object.keys(hash).length === 0
      ? undefined
      : decodeDualAnchorCheckpoint(streamName, storedFieldsOfHash(key, hash));
  }

  /** One `DEL` of the hash, version included. */
  protected removeRecord(streamName: string): Promise<number> {
    return this.#client.del(this.#keyPrefix + streamName);
  }
}
