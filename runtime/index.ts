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
export {
  assertCheckpoint,
  assertSaveArguments,
  assertSubscriptionId,
  assertWriteCondition,
  assertWriteVersion,
} from './storage-arguments.js';
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
export {
  RedisCheckpointStorage,
  type RedisCheckpointClient,
  type RedisCheckpointStorageOptions,
} from './redis/index.js';
export {
  defaultRedisLeaseKeyPrefix,
  InMemoryLeaseStrategy,
  InMemoryLeaseTable,
  LeaseKeepingStrategy,
  RedisLeaseStrategy,
  redisLeaseKeys,
  systemLeaseClock,
  type CompetingConsumerListener,
  type CompetingConsumerStrategy,
  type InMemoryLeaseStrategyOptions,
  type InMemoryLeaseTableOptions,
  type LeaseClock,
  type LeaseKeepingStrategyOptions,
  type LeaseStore,
  type LeaseTimer,
  type RedisLeaseClient,
  type RedisLeasePipeline,
  type RedisLeaseKeys,
  type RedisLeaseStrategyOptions,
  type WaitForReplicas,
} from './leases/index.js';
export {
  DurableSubscription,
  DuplicateSubscriptionIdError,
  UnknownSubscriptionError,
  type DurableSubscriptionOptions,
  type EventHandler,
  type EventSource,
  type PositionedEvent,
  type SubscribeOptions,
} from './subscription/index.js';
export type { FencingToken } from './fencing-token.js';
