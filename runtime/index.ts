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
  assertWriteCondition,
  assertWriteVersion,
  toWriteCondition,
  validateSaveArguments,
} from './storage-arguments.js';
export { assertStreamName, assertSubscriptionId } from './subscription-id.js';
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
  canonicalJson,
  decodeDualAnchorCheckpoint,
  DualAnchorCheckpointStoreBase,
  DualAnchorWritePlan,
  emptyStoredDualAnchorFields,
  encodeDualAnchorCheckpoint,
  noOpDualAnchorCheckpointStore,
  storedFieldsAfterReset,
  withReadModifyWriteDefaults,
  type DualAnchorCheckpoint,
  type DualAnchorCheckpointStore,
  type DualAnchorFieldWrite,
  type DualAnchorResetWrite,
  type DualAnchorToken,
  type JsonObject,
  type JsonValue,
  type MinimalDualAnchorCheckpointStore,
  type StoredDualAnchorFields,
} from './dual-anchor/index.js';
export {
  InMemoryCheckpointStorage,
  InMemoryDualAnchorCheckpointStore,
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
  CheckpointKeyLayout,
  defaultRedisLeaseKeyPrefix,
  defaultRedisVersionKeyPrefix,
  parseRedisLeaseKey,
  RedisCheckpointStorage,
  RedisDualAnchorCheckpointStore,
  RedisLeaseStrategy,
  redisLeaseKeys,
  RedisMembership,
  type CheckpointKeys,
  type ParsedRedisLeaseKey,
  type RedisCheckpointClient,
  type RedisCheckpointPipeline,
  type RedisCheckpointStorageOptions,
  type RedisDualAnchorCheckpointStoreOptions,
  type RedisDualAnchorClient,
  type RedisLeaseClient,
  type RedisLeaseKeys,
  type RedisLeasePipeline,
  type RedisLeaseStrategyOptions,
  type RedisMembershipClient,
  type RedisMembershipOptions,
  type WaitForReplicas,
  type WaitForReplicasOption,
} from './redis/index.js';
export {
  PostgresCheckpointStorage,
  PostgresDualAnchorCheckpointStore,
  PostgresLeaseStrategy,
  PostgresMembership,
  type PostgresCheckpointStorageOptions,
  type PostgresClient,
  type PostgresDualAnchorCheckpointStoreOptions,
  type PostgresLeaseStrategyOptions,
  type PostgresMembershipOptions,
  type PostgresQueryResult,
  type PostgresTableOptions,
} from './postgres/index.js';
export {
  LeaseKeepingStrategy,
  systemLeaseClock,
  type CompetingConsumerListener,
  type CompetingConsumerStrategy,
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
  type PositionedEvent,
  type SubscribeOptions,
} from './subscription/index.js';
export type { LiveMember, Member, Membership, MembershipOptions, MembershipView } from './partitions/index.js';
export type { FencingToken } from './fencing-token.js';
export type {
  TelemetryContext,
  TelemetryMeterProvider,
  TelemetryOptions,
  TelemetryTracerProvider,
} from './telemetry/index.js';
