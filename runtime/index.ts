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
export { CheckpointStorageBase } from './checkpoint-storage-base.js';
export {
  assertCheckpoint,
  assertSaveArguments,
  assertWriteCondition,
  assertWriteVersion,
  toWriteCondition,
  validateSaveArguments,
} from './storage-arguments.js';
export { assertSubscriptionId } from './subscription-id.js';
export {
  CheckpointWriteConditionNotFulfilledError,
  CheckpointWriteNotReplicatedError,
  NoLeaseHeldError,
  StartPositionAlreadyPinnedError,
  StorageCannotBeFencedError,
  UnsupportedWriteConditionError,
  type CheckpointWriteNotReplicatedDetails,
} from './errors/index.js';
export {
  FencedCheckpointWriter,
  type FencedCheckpointWriterOptions,
  type FencingTokenSource,
} from './fenced-checkpoint-writer.js';
export {
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  InMemoryLeaseTable,
  InMemoryMembership,
  InMemoryMembershipTable,
  type InMemoryCheckpointStorageOptions,
  type InMemoryLeaseStrategyOptions,
  type InMemoryLeaseTableOptions,
  type InMemoryMembershipOptions,
  type InMemoryMembershipTableOptions,
} from './in-memory/index.js';
export {
  RedisCheckpointStorage,
  RedisLeaseStrategy,
  RedisMembership,
  type RedisCheckpointClient,
  type RedisCheckpointPipeline,
  type RedisCheckpointStorageOptions,
  type RedisLeaseClient,
  type RedisLeasePipeline,
  type RedisLeaseStrategyOptions,
  type RedisMembershipClient,
  type RedisMembershipOptions,
  type WaitForReplicas,
  type WaitForReplicasOption,
} from './redis/index.js';
export {
  PostgresCheckpointStorage,
  PostgresLeaseStrategy,
  PostgresMembership,
  type PostgresCheckpointStorageOptions,
  type PostgresClient,
  type PostgresLeaseStrategyOptions,
  type PostgresMembershipOptions,
  type PostgresQueryResult,
  type PostgresTableOptions,
  type WaitForStandbysOption,
  type WaitForStandbysOptions,
} from './postgres/index.js';
export {
  LeaseKeepingStrategy,
  systemLeaseClock,
  type CompetingConsumerListener,
  type CompetingConsumerStrategy,
  type HeldLease,
  type LeaseClock,
  type LeaseKeepingStrategyOptions,
  type LeaseStore,
  type LeaseTimer,
} from './leases/index.js';
export {
  DurableSubscription,
  DuplicateSubscriberError,
  DuplicateSubscriptionIdError,
  FencingTokenReusedError,
  UnknownSubscriptionError,
  type CheckpointPolicy,
  type DurableSubscriptionOptions,
  type EventHandler,
  type EventSource,
  type HandlerContext,
  type PauseOptions,
  type PositionedEvent,
  type SubscribeOptions,
} from './subscription/index.js';
export type { LiveMember, Member, Membership, MembershipOptions, MembershipView } from './partitions/index.js';
export {
  PartitionedSubscription,
  partitionOf,
  type OwnedPartitionStatus,
  type PartitionedSubscriptionOptions,
  type PartitionedSubscriptionStatus,
  type PartitionHandler,
  type PartitionHandlerContext,
  type PartitionSource,
} from './partitions/index.js';
export type { FencingToken } from './fencing-token.js';
export type {
  TelemetryContext,
  TelemetryMeterProvider,
  TelemetryOptions,
  TelemetryTracerProvider,
} from './telemetry/index.js';
