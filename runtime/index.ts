export type { Checkpoint } from './checkpoint.js';
export {
  CheckpointWriteCondition,
  formatWriteCondition,
  isCheckpointWriteCondition,
  type AnyWriteCondition,
  type IfAbsentWriteCondition,
  type NotOlderThanWriteCondition,
} from './checkpoint-write-condition.js';
export { evaluatesWriteConditions, evaluatesWriteConditionsFor, type CheckpointStorage } from './checkpoint-storage.js';
export { assertCheckpoint, assertSaveArguments, assertSubscriptionId, assertWriteCondition } from './storage-arguments.js';
export {
  CheckpointWriteConditionNotFulfilledError,
  StartPositionAlreadyPinnedError,
  StorageCannotBeFencedError,
  UnsupportedWriteConditionError,
} from './errors/index.js';
export { InMemoryCheckpointStorage, type InMemoryCheckpointStorageOptions } from './in-memory-checkpoint-storage.js';
export {
  FencedCheckpointWriter,
  type FencedCheckpointWriterOptions,
  type FencingTokenSource,
} from './fenced-checkpoint-writer.js';
export { RedisCheckpointStorage, type RedisCheckpointClient, type RedisCheckpointStorageOptions } from './redis/index.js';
