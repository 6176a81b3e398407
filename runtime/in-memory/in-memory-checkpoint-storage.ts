import type { Checkpoint } from '../checkpoint.js';
import type { CheckpointStorage } from '../checkpoint-storage.js';
import { CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import { CheckpointWriteConditionNotFulfilledError } from '../errors/checkpoint-write-condition-not-fulfilled-error.js';
import { assertCheckpoint, assertWriteVersion, validateSaveArguments } from '../storage-arguments.js';
import { assertSubscriptionId } from '../subscription-id.js';
import { advanceWriteVersionCondition, CheckpointWriteTelemetry, type TelemetryOptions } from '../telemetry/index.js';

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
export class InMemoryCheckpointStorage implements CheckpointStorage {
  readonly #entries = new Map<string, StoredCheckpoint>();
  readonly #comparePositions: ((a: Checkpoint, b: Checkpoint) => number) | undefined;
  readonly #telemetry: CheckpointWriteTelemetry | undefined;

  constructor(options: InMemoryCheckpointStorageOptions = {}) {
    this.#comparePositions = options.comparePositions;
    this.#telemetry = CheckpointWriteTelemetry.resolve('memory', options);
  }

  async read(subscriptionId: string): Promise<Checkpoint | undefined> {
    assertSubscriptionId(subscriptionId);
    return this.#entries.get(subscriptionId)?.checkpoint;
  }

  save(subscriptionId: string, checkpoint: Checkpoint, condition: CheckpointWriteCondition): Promise<Checkpoint> {
    return this.#telemetry === undefined
      ? this.#save(subscriptionId, checkpoint, condition)
      : this.#telemetry.record(subscriptionId, condition, undefined, () =>
          this.#save(subscriptionId, checkpoint, condition),
        );
  }

  async #save(
    subscriptionId: string,
    checkpoint: Checkpoint,
    condition: CheckpointWriteCondition,
  ): Promise<Checkpoint> {
    const judged = validateSaveArguments(subscriptionId, checkpoint, condition);
    const stored = this.#entries.get(subscriptionId);
    if (stored === undefined) {
      this.#entries.set(subscriptionId, {
        checkpoint,
        version: judged.kind === 'notOlderThan' ? judged.version : undefined,
        pinned: judged.kind === 'ifAbsent',
      });
      return checkpoint;
    }
    switch (judged.kind) {
      case 'any':
        break;
      case 'ifAbsent':
        // Tests the checkpoint only: a version advanced before any checkpoint was stored is kept.
        if (stored.checkpoint !== undefined) {
          throw new CheckpointWriteConditionNotFulfilledError(subscriptionId, judged, stored.version);
        }
        break;
      case 'notOlderThan':
        if (stored.version !== undefined && stored.version > judged.version) {
          throw new CheckpointWriteConditionNotFulfilledError(subscriptionId, judged, stored.version);
        }
        stored.version = judged.version;
        break;
    }
    stored.checkpoint = checkpoint;
    stored.pinned = judged.kind === 'ifAbsent';
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

  /** Always true: every condition is evaluated in the same synchronous step as the write. */
  evaluatesWriteConditions(): boolean {
    return true;
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
  advanceWriteVersion(subscriptionId: string, version: bigint): Promise<void> {
    return this.#telemetry === undefined
      ? this.#advanceWriteVersion(subscriptionId, version)
      : this.#telemetry.record(subscriptionId, advanceWriteVersionCondition, undefined, () =>
          this.#advanceWriteVersion(subscriptionId, version),
        );
  }

  async #advanceWriteVersion(subscriptionId: string, version: bigint): Promise<void> {
    assertSubscriptionId(subscriptionId);
    assertWriteVersion(version);
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
