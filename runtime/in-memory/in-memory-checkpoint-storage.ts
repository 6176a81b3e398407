import type { Checkpoint } from '../checkpoint.js';
import { CheckpointStorageBase } from '../checkpoint-storage-base.js';
import { CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import { CheckpointWriteConditionNotFulfilledError } from '../errors/checkpoint-write-condition-not-fulfilled-error.js';
import { assertCheckpoint } from '../storage-arguments.js';
import { assertSubscriptionId } from '../subscription-id.js';
import type { TelemetryOptions } from '../telemetry/index.js';

/** Options of {@link InMemoryCheckpointStorage}. */
export interface InMemoryCheckpointStorageOptions extends TelemetryOptions {
  /**
   * Orders two checkpoints (negative when `a` comes first). With it the storage resolves a first-checkpoint race
   * by keeping the earlier start position; without it, `resolveFirstCheckpointRace` resolves to `undefined`.
   */
  readonly comparePositions?: (a: Checkpoint, b: Checkpoint) => number;
}

/** One subscription's entry; changed in place, so a write allocates nothing once the id is known. */
interface StoredCheckpoint {
  /** `undefined` for a version that `advanceWriteVersion` recorded before any checkpoint was stored. */
  checkpoint: Checkpoint | undefined;
  version: bigint | undefined;
  /** Still the start position an `ifAbsent()` write pinned: no other write has moved it since. */
  pinned: boolean;
}

/**
 * A checkpoint storage in process memory that evaluates every condition. Each method decides and writes
 * synchronously between two awaits, so no other call can interleave: the check and the write are one step.
 */
export class InMemoryCheckpointStorage extends CheckpointStorageBase {
  readonly #entries = new Map<string, StoredCheckpoint>();
  readonly #comparePositions: ((a: Checkpoint, b: Checkpoint) => number) | undefined;

  constructor(options: InMemoryCheckpointStorageOptions = {}) {
    super('memory', options);
    this.#comparePositions = options.comparePositions;
  }

  async read(subscriptionId: string): Promise<Checkpoint | undefined> {
    assertSubscriptionId(subscriptionId);
    return this.#entries.get(subscriptionId)?.checkpoint;
  }

  protected async write(
    subscriptionId: string,
    checkpoint: Checkpoint,
    condition: CheckpointWriteCondition,
  ): Promise<Checkpoint> {
    const stored = this.#entries.get(subscriptionId);
    if (stored === undefined) {
      this.#entries.set(subscriptionId, {
        checkpoint,
        version: condition.kind === 'notOlderThan' ? condition.version : undefined,
        pinned: condition.kind === 'ifAbsent',
      });
      return checkpoint;
    }
    switch (condition.kind) {
      case 'any':
        break;
      case 'ifAbsent':
        // Tests the checkpoint only: a version advanced before any checkpoint was stored is kept.
        if (stored.checkpoint !== undefined) {
          throw new CheckpointWriteConditionNotFulfilledError(subscriptionId, condition, stored.version);
        }
        break;
      case 'notOlderThan':
        if (stored.version !== undefined && stored.version > condition.version) {
          throw new CheckpointWriteConditionNotFulfilledError(subscriptionId, condition, stored.version);
        }
        stored.version = condition.version;
        break;
    }
    stored.checkpoint = checkpoint;
    stored.pinned = condition.kind === 'ifAbsent';
    return checkpoint;
  }

  async writeVersion(subscriptionId: string): Promise<bigint | undefined> {
    assertSubscriptionId(subscriptionId);
    return this.#entries.get(subscriptionId)?.version;
  }

  async delete(subscriptionId: string): Promise<void> {
    assertSubscriptionId(subscriptionId);
    this.#entries.delete(subscriptionId);
  }

  /**
   * Keeps the earlier of the stored start position and `candidate`, while no write has moved the stored position
   * since `ifAbsent()` pinned it. Resolves to the checkpoint stored, or `undefined` when the race cannot be
   * resolved (no `comparePositions`, nothing pinned, or the position has already moved on).
   */
  async resolveFirstCheckpointRace(subscriptionId: string, candidate: Checkpoint): Promise<Checkpoint | undefined> {
    assertSubscriptionId(subscriptionId);
    assertCheckpoint(candidate);
    const stored = this.#entries.get(subscriptionId);
    if (this.#comparePositions === undefined || stored?.pinned !== true || stored.checkpoint === undefined) {
      return undefined;
    }
    if (this.#comparePositions(candidate, stored.checkpoint) < 0) {
      stored.checkpoint = candidate;
      return candidate;
    }
    return stored.checkpoint;
  }

  /** Raises the stored version to `version` in one synchronous step, leaving the checkpoint (or its absence) as it is. */
  protected async raiseWriteVersion(subscriptionId: string, version: bigint): Promise<void> {
    const stored = this.#entries.get(subscriptionId);
    if (stored === undefined) {
      this.#entries.set(subscriptionId, { checkpoint: undefined, version, pinned: false });
      return;
    }
    if (stored.version !== undefined && stored.version > version) {
      throw new CheckpointWriteConditionNotFulfilledError(
        subscriptionId,
        CheckpointWriteCondition.notOlderThan(version),
        stored.version,
      );
    }
    stored.version = version;
  }
}
