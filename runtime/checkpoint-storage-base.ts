import type { Checkpoint } from './checkpoint.js';
import type { CheckpointStorage } from './checkpoint-storage.js';
import type { CheckpointWriteCondition } from './checkpoint-write-condition.js';
import { assertCheckpoint, assertWriteVersion, rejectedWith, toWriteCondition } from './storage-arguments.js';
import { assertSubscriptionId } from './subscription-id.js';
import { advanceWriteVersionCondition, CheckpointWriteTelemetry, type TelemetryOptions } from './telemetry/index.js';

/**
 * The write path every built-in storage shares, and a storage of your own can too (ADR 0005): `save` and
 * `advanceWriteVersion` check their arguments before anything is sent, record the write in OpenTelemetry
 * (doc/observability.md), whose errors never reach the write (ADR 2402), and then call the backend's own atomic step,
 * {@link CheckpointStorageBase.write} or {@link CheckpointStorageBase.raiseWriteVersion}. A `TypeError` from the checks
 * is a rejection, as every other failure.
 */
export abstract class CheckpointStorageBase implements CheckpointStorage {
  #telemetry: CheckpointWriteTelemetry | undefined;

  /**
   * @param backend The `checkpoint_fencing.backend` of this storage's metrics and spans: a short fixed name such as
   *   `'dynamodb'`; `custom` by default.
   * @param options Where to record: the global providers as registered when the storage is made, by default.
   */
  constructor(backend = 'custom', options: TelemetryOptions = {}) {
    this.#telemetry = CheckpointWriteTelemetry.resolve(backend, options);
  }

  /**
   * Stores `checkpoint` when `condition` holds, and resolves to it. Rejects with
   * `CheckpointWriteConditionNotFulfilledError` when it does not, changing nothing; with `TypeError` for an argument
   * that is not what the contract says, before anything is sent. Any other rejection (a lost connection, a timeout)
   * may or may not have written: never read it as a refusal.
   */
  save(subscriptionId: string, checkpoint: Checkpoint, condition: CheckpointWriteCondition): Promise<Checkpoint> {
    return this.#telemetry === undefined
      ? this.#save(subscriptionId, checkpoint, condition)
      : this.#telemetry.record(subscriptionId, condition, undefined, () =>
          this.#save(subscriptionId, checkpoint, condition),
        );
  }

  /**
   * Raises the stored write version to `version` without touching the checkpoint: the fence on acquire in one step.
   * Recorded as the `notOlderThan` write it is.
   */
  advanceWriteVersion(subscriptionId: string, version: bigint): Promise<void> {
    return this.#telemetry === undefined
      ? this.#advanceWriteVersion(subscriptionId, version)
      : this.#telemetry.record(subscriptionId, advanceWriteVersionCondition, undefined, () =>
          this.#advanceWriteVersion(subscriptionId, version),
        );
  }

  /**
   * Throws `TypeError` for an id that is not a non-empty string of well-formed UTF-16. Every write checks it first;
   * override it (calling `super`) for an id your backend cannot store.
   */
  assertSubscriptionId(subscriptionId: string): void {
    assertSubscriptionId(subscriptionId);
  }

  /** True: a storage on this base evaluates every condition in its {@link CheckpointStorageBase.write}. */
  evaluatesWriteConditions(): boolean {
    return true;
  }

  /**
   * Records this storage's writes as `source`'s: for a storage derived from it, such as a binding of it to one
   * transaction, whose telemetry errors would otherwise be reported once per binding.
   */
  protected recordAs(source: CheckpointStorageBase): void {
    this.#telemetry = source.#telemetry;
  }

  abstract read(subscriptionId: string): Promise<Checkpoint | undefined>;

  abstract writeVersion(subscriptionId: string): Promise<bigint | undefined>;

  abstract delete(subscriptionId: string): Promise<void>;

  /**
   * One atomic step, with checked arguments: when `condition` holds, store `checkpoint` (and for `notOlderThan(v)` the
   * version `v`; `any()` and `ifAbsent()` keep the stored version) and resolve to `checkpoint`; when it does not,
   * reject with `CheckpointWriteConditionNotFulfilledError(subscriptionId, condition, storedVersion)` and change
   * nothing. `ifAbsent()` holds when no checkpoint is stored, `notOlderThan(v)` when no version is stored or it is ≤ v.
   */
  protected abstract write(
    subscriptionId: string,
    checkpoint: Checkpoint,
    condition: CheckpointWriteCondition,
  ): Promise<Checkpoint>;

  /**
   * One atomic step, with checked arguments: when no version is stored or it is ≤ `version`, store `version` and leave
   * the checkpoint (or its absence) as it is; else reject with `CheckpointWriteConditionNotFulfilledError(subscriptionId,
   * CheckpointWriteCondition.notOlderThan(version), storedVersion)` and change nothing.
   */
  protected abstract raiseWriteVersion(subscriptionId: string, version: bigint): Promise<void>;

  /** Checks in the order the arguments are declared, and writes with the condition read once. */
  #save(subscriptionId: string, checkpoint: Checkpoint, condition: CheckpointWriteCondition): Promise<Checkpoint> {
    try {
      this.assertSubscriptionId(subscriptionId);
      assertCheckpoint(checkpoint);
      return this.write(subscriptionId, checkpoint, toWriteCondition(condition));
    } catch (error) {
      return rejectedWith(error);
    }
  }

  #advanceWriteVersion(subscriptionId: string, version: bigint): Promise<void> {
    try {
      this.assertSubscriptionId(subscriptionId);
      assertWriteVersion(version);
      return this.raiseWriteVersion(subscriptionId, version);
    } catch (error) {
      return rejectedWith(error);
    }
  }
}
