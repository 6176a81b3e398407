import { formatWriteCondition, type CheckpointWriteCondition } from '../checkpoint-write-condition.js';

/**
 * A storage that cannot evaluate `condition` atomically refuses it instead of ignoring it.
 * Such a storage answers `evaluatesWriteConditions()` false and still accepts `any()`.
 */
export class UnsupportedWriteConditionError extends Error {
  override readonly name = 'UnsupportedWriteConditionError';

  constructor(readonly condition: CheckpointWriteCondition) {
    super(`This storage cannot evaluate ${formatWriteCondition(condition)}, only any() is supported.`);
  }
}
